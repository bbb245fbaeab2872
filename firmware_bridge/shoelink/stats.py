"""Counters of one ShoeLink connection, for the daemon's status page and logs."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class LinkStats:
    """What the line did. See docs/shoe.md for what each figure tells an installer."""

    frames: int = 0  # valid frames received (CRC and layout good)
    crc_errors: int = 0  # frames dropped for a bad CRC (noise, a bad cable)
    bad_frames: int = 0  # other garbage: bad COBS, wrong length, unknown version/type
    bytes_in: int = 0
    bytes_out: int = 0
    delivered: int = 0  # reliable events handed to the consumer (each exactly once)
    acks_sent: int = 0
    resends_seen: int = 0  # reliable frames at or behind the newest seq seen: re-sends
    duplicates: int = 0  # reliable frames discarded because already delivered
    gaps: int = 0  # frames discarded because an earlier one is missing (waits for re-send)
    held_back: int = 0  # reliable frames ignored while (re)synchronising after a HELLO
    hello_requests: int = 0
    hellos: int = 0
    heartbeats: int = 0
    offline_events: int = 0
    reconnects: int = 0  # successful reopenings of the port after it failed
    port_errors: int = 0  # failed opens, reads and writes
    shoe_restarts: int = 0  # the shoe's uptime went back: its firmware restarted
    last_heartbeat_index: int = 0
    last_heartbeat_uptime_ms: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)
