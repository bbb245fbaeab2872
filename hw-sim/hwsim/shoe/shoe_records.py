"""What a virtual shoe is set to and what it reports: its timing, the reliable
frames it made, and its counters."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ShoeTiming:
    """Device-side timing; defaults as the protocol says. Shorten them in tests."""

    resend_interval_s: float = 0.25
    heartbeat_interval_s: float = 1.0
    card_interval_s: float = 0.0  # between cards; 0 = as fast as the gate lets them out


@dataclass(frozen=True)
class SentRecord:
    """One reliable frame the shoe created (its first transmission), in order."""

    seq: int
    kind: str  # "card", "unreadable" or "shoe"
    index: int = 0
    card: str = ""
    event: str = ""
    low_confidence: bool = False


@dataclass
class ShoeCounters:
    frames_sent: int = 0
    resend_rounds: int = 0
    frames_resent: int = 0
    acks: int = 0
    acks_ignored: int = 0  # ACK for a seq not in the buffer: not ours, or old
    hello_requests: int = 0
    gate_stops: int = 0  # times the full buffer stopped the card gate
    bytes_lost: int = 0  # the pty could not take them (nobody reading)
    bad_host_frames: int = 0
