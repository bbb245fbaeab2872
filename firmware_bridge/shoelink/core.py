"""The host side of ShoeLink v1 as a pure protocol core: bytes in, events and
frames out, no port and no thread.

The core frames the byte stream, checks sequence numbers and hands every
reliable event (card, unreadable card, shoe status) to the consumer exactly
once and in order. The consumer calls `ack(seq)` once it has stored the
event; only then does the shoe hear that it may forget the frame. What the
core sends (ACK, HELLO_REQ) goes to the `Line` it was given; a test gives it a
list, `ShoeLinkReader` a serial port (docs/protocol.md).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from firmware_bridge.port_reader import deliver_safely
from firmware_bridge.shoelink.events import LinkState, ShoeEvent, ShoeHello, reliable_event
from firmware_bridge.shoelink.frames import (
    HALF_RING,
    Frame,
    FrameDecoder,
    FrameError,
    FrameType,
    ack_payload,
    encode_frame,
    next_seq,
    parse_heartbeat_payload,
    parse_hello_payload,
    seq_distance,
    shoe_restarted,
    signed_seq_distance,
    uptime_went_back,
)
from firmware_bridge.shoelink.stats import LinkStats

log = logging.getLogger(__name__)

_HELLO_REQ = encode_frame(Frame(FrameType.HELLO_REQ, 0, b""))

Deliver = Callable[[ShoeEvent], None]


class Line(Protocol):
    """Where the core's frames go: a serial port, or a list in a test."""

    def write(self, data: bytes) -> bool:
        """Send all of `data`; False if it could not go out."""
        ...

    def problem(self) -> str:
        """Why the line is down ('' when it is up or nobody knows)."""
        ...


@dataclass(frozen=True)
class LinkTiming:
    """Host-side timing; the defaults are the protocol's."""

    offline_after_s: float = 3.0  # no valid frame this long: the shoe is offline
    hello_interval_s: float = 1.0  # HELLO_REQ this often until a HELLO comes


class _Sync:
    """Where the host stands with the shoe's numbering."""

    AWAIT_HELLO = "await-hello"  # after opening or going offline
    AWAIT_HEARTBEAT = "await-heartbeat"  # HELLO seen; did the shoe restart?
    SYNCED = "synced"


class ShoeLinkCore:
    """One shoe's ShoeLink state on the host; the reader's thread drives it.

    `resume_after`: the last sequence number the consumer stored before
    (from its journal), 0 for a shoe that was never read; None trusts the
    first reliable frame after the shoe's HELLO (see docs/protocol.md).
    `known_uptime_ms`: the shoe's uptime when that frame was stored; if the
    shoe's first heartbeat shows less, it rebooted while nobody read it and its
    numbering starts at 1 again (`ShoeHello.restarted`).
    `deliver` runs on the driving thread; it should store or queue the event
    and return quickly. `ack(seq)` and `rewind` may be called from any thread.
    """

    def __init__(
        self,
        line: Line,
        deliver: Deliver,
        *,
        resume_after: int | None = None,
        timing: LinkTiming | None = None,
        known_uptime_ms: int | None = None,
    ) -> None:
        if resume_after is not None and not 0 <= resume_after <= 65535:
            raise ValueError(f"resume_after {resume_after} must be a sequence number 0-65535")
        self._line = line
        self._deliver = deliver
        self.timing = timing or LinkTiming()
        self._stats = LinkStats()
        self._decoder = FrameDecoder()
        self._ack_lock = threading.Lock()
        # `_expected`: the next seq to deliver; None until the first frame sets it.
        self._expected: int | None = None if resume_after is None else next_seq(resume_after)
        self._delivered_last: int | None = resume_after or None
        self._stored: int | None = resume_after or None
        self._highest_seen: int | None = self._delivered_last
        self._sync = _Sync.AWAIT_HELLO
        self._online = False
        # Until the shoe first speaks: when the reader started, and whether its silence
        # since was reported (a shoe dead or silent from boot is offline too).
        self._started_at: float | None = None
        self._silence_reported = False
        # A rewind asked for by the consumer, done on the driving thread: (seq, then).
        self._rewind: tuple[int, Callable[[], None]] | None = None
        self._last_frame_at = 0.0
        self._last_hello_req_at = 0.0
        # The shoe's uptime when the consumer last stored one of its frames (from its
        # journal): a first heartbeat below it means the shoe rebooted meanwhile.
        self._last_uptime: int | None = known_uptime_ms
        self._last_heartbeat_at: float | None = None  # when this process heard it
        self._last_serial: str | None = None
        self._pending_hello: dict[str, str] | None = None
        self._start_window: dict[int, Frame] = {}

    # Consumer side ----------------------------------------------------------

    @property
    def online(self) -> bool:
        return self._online

    @property
    def shoe_uptime_ms(self) -> int | None:
        """The shoe's uptime from its latest heartbeat (None before the first)."""
        return self._last_uptime

    @property
    def stats(self) -> LinkStats:
        """A snapshot of the protocol's counters (the port's are the reader's)."""
        counts = self._decoder.counts
        snapshot = LinkStats(**self._stats.as_dict())
        snapshot.frames = counts.frames
        snapshot.crc_errors = counts.crc_errors
        snapshot.bad_frames += counts.bad_frames
        return snapshot

    def ack(self, seq: int) -> bool:
        """Tell the shoe that every reliable event up to `seq` is stored.

        Call it only after the event is durably stored. A sequence number never
        delivered in the shoe's current numbering (a consumer bug, or an event
        stored just as the shoe restarted) is not sent: a warning is logged and
        False returned.
        """
        with self._ack_lock:
            last = self._delivered_last
            if last is None or seq_distance(seq, last) > HALF_RING:
                log.warning(
                    "ack(%d) not sent: no such event was delivered (last delivered: %s)",
                    seq, last,
                )
                return False
            self._stored = seq
            self._send_ack(seq)
            return True

    def rewind(self, stored: int, then: Callable[[], None]) -> None:
        """Deliver again every frame after `stored` (0: none of this numbering is
        stored): the consumer could not store what it was given (a full disk) and the
        shoe still holds those frames. Done on the driving thread before it delivers
        anything more; `then` runs there right after, so that what the consumer hears
        from `then` comes after every frame delivered before the rewind."""
        with self._ack_lock:
            self._rewind = (stored, then)

    # Driving side (the reader's thread) --------------------------------------

    def started(self, now: float) -> None:
        self._started_at = now

    def port_opened(self, now: float) -> None:
        """A fresh connection: forget the old one's half frame and ask for a HELLO."""
        self._decoder = FrameDecoder(counts=self._decoder.counts)
        self._sync = _Sync.AWAIT_HELLO
        self._last_frame_at = now
        self._send_hello_req(now)

    def port_lost(self, reason: str) -> None:
        self._go_offline(reason)

    def received(self, data: bytes, now: float) -> None:
        for frame in self._decoder.feed(data):
            self._handle(frame, now)

    def tick(self, now: float) -> None:
        """Timeouts: the offline watchdog, HELLO_REQ again, a rewind asked for."""
        self._watchdog(now)
        self._silent_since_start(now)
        if self._rewind is not None:
            self._do_rewind()

    # Inside -------------------------------------------------------------------

    def _do_rewind(self) -> None:
        with self._ack_lock:
            request, self._rewind = self._rewind, None
            if request is None:
                return
            stored, then = request
            self._expected = next_seq(stored) if stored else 1
            self._delivered_last = self._stored = stored or None
        log.info("the shoe's frames after %d are read again", stored)
        then()

    def _watchdog(self, now: float) -> None:
        if self._online and now - self._last_frame_at > self.timing.offline_after_s:
            self._go_offline(f"no frame for {self.timing.offline_after_s:g} s")
        if self._sync == _Sync.AWAIT_HELLO and (
            now - self._last_hello_req_at >= self.timing.hello_interval_s
        ):
            self._send_hello_req(now)

    def _silent_since_start(self, now: float) -> None:
        """A shoe that has not spoken within the timeout since the reader started
        is offline, as one that fell silent later is (reported once)."""
        started = self._started_at
        if (self._online or self._silence_reported or started is None
                or now - started <= self.timing.offline_after_s):
            return
        self._silence_reported = True
        self._stats.offline_events += 1
        problem = self._line.problem()
        reason = (f"no frame from the shoe in the {self.timing.offline_after_s:g} s since "
                  "start" + (f" ({problem})" if problem else ""))
        log.warning("shoe offline: %s", reason)
        self._emit(LinkState(False, reason))

    def _go_offline(self, reason: str) -> None:
        self._sync = _Sync.AWAIT_HELLO
        if self._online:
            self._online = False
            self._stats.offline_events += 1
            log.warning("shoe offline: %s", reason)
            self._emit(LinkState(False, reason))

    def _handle(self, frame: Frame, now: float) -> None:
        self._last_frame_at = now
        if frame.type == FrameType.HELLO:
            self._on_hello(frame)
        elif frame.type == FrameType.HEARTBEAT:
            self._on_heartbeat(frame, now)
        elif frame.reliable:
            self._on_reliable(frame)
        else:
            self._stats.bad_frames += 1  # a host-to-shoe type coming from the shoe

    def _on_hello(self, frame: Frame) -> None:
        self._stats.hellos += 1
        self._pending_hello = parse_hello_payload(frame.payload)
        # Hold reliable frames until a heartbeat says whether the shoe restarted.
        self._sync = _Sync.AWAIT_HEARTBEAT

    def _on_heartbeat(self, frame: Frame, now: float) -> None:
        try:
            index, uptime = parse_heartbeat_payload(frame.payload)
        except FrameError:
            self._stats.bad_frames += 1
            return
        self._stats.heartbeats += 1
        self._stats.last_heartbeat_index = index
        self._stats.last_heartbeat_uptime_ms = uptime
        if self._sync == _Sync.AWAIT_HELLO:
            return  # judged once the HELLO is in, against the uptime before
        heard_ago = None if self._last_heartbeat_at is None else now - self._last_heartbeat_at
        before = self._last_uptime
        restarted = before is not None and shoe_restarted(before, uptime, heard_ago)
        self._last_heartbeat_at = now
        if before is not None and not restarted and uptime_went_back(before, uptime):
            return  # a heartbeat of this boot that arrived behind a later one
        self._last_uptime = uptime
        if restarted:
            self._restart_numbering()
        if self._sync == _Sync.AWAIT_HEARTBEAT:
            self._finish_hello(restarted)

    def _restart_numbering(self) -> None:
        """The shoe rebooted: its reliable frames number from 1 again."""
        self._stats.shoe_restarts += 1
        log.warning("the shoe restarted: its sequence numbers start again at 1")
        with self._ack_lock:
            self._expected = 1
            self._start_window = {}
            self._delivered_last = None
            self._stored = None
            self._highest_seen = None

    def _finish_hello(self, restarted: bool) -> None:
        info = self._pending_hello or {}
        self._pending_hello = None
        serial_number = info.get("sn")
        new_shoe = (
            self._last_serial is not None
            and serial_number is not None
            and serial_number != self._last_serial
        )
        if serial_number is not None:
            self._last_serial = serial_number
        self._sync = _Sync.SYNCED
        self._silence_reported = True  # it spoke: later silences are `_go_offline`'s
        if not self._online:
            self._online = True
            self._emit(LinkState(True, "HELLO received"))
        self._emit(ShoeHello(info, new_shoe=new_shoe, restarted=restarted))

    def _on_reliable(self, frame: Frame) -> None:
        if self._sync != _Sync.SYNCED:
            self._stats.held_back += 1
            return
        seq = frame.seq
        if self._highest_seen is not None:
            if seq_distance(self._highest_seen, seq) > HALF_RING or seq == self._highest_seen:
                self._stats.resends_seen += 1
            else:
                self._highest_seen = seq
        else:
            self._highest_seen = seq
        if self._expected is None:
            self._find_start(frame)
            return
        self._sequence(frame)

    def _find_start(self, frame: Frame) -> None:
        """No journal position: wait for the shoe's next re-send round (a seq seen
        twice) and start at the lowest seq seen, so a frame the line lost in the
        first round is not skipped."""
        window = self._start_window
        if frame.seq not in window:
            window[frame.seq] = frame
            return
        first = next(iter(window))
        offsets = [signed_seq_distance(first, seq) for seq in window]
        start = (first - 1 + min(offsets)) % 65535 + 1
        self._expected = start
        self._start_window = {}
        seq = start
        while seq in window and self._expected == seq:
            self._deliver_frame(window[seq])
            seq = next_seq(seq)

    def _sequence(self, frame: Frame) -> None:
        seq = frame.seq
        assert self._expected is not None
        ahead = seq_distance(self._expected, seq)
        if ahead == 0:
            self._deliver_frame(frame)
        elif ahead <= HALF_RING:
            self._stats.gaps += 1
        else:
            self._stats.duplicates += 1
            stored = self._stored
            if stored is not None and seq_distance(seq, stored) <= HALF_RING:
                self._send_ack(stored)  # the shoe missed our ACK: say it again

    def _deliver_frame(self, frame: Frame) -> None:
        event = self._parse_reliable(frame)
        if event is None:
            return
        with self._ack_lock:
            before, self._delivered_last = self._delivered_last, frame.seq
        if not self._emit(event):
            with self._ack_lock:
                self._delivered_last = before
            return  # not taken: it comes again with the next re-send
        self._expected = next_seq(frame.seq)
        self._stats.delivered += 1

    def _parse_reliable(self, frame: Frame) -> ShoeEvent | None:
        try:
            return reliable_event(frame)
        except FrameError as error:
            # A CRC-valid frame the firmware built wrong: it will block the line.
            self._stats.bad_frames += 1
            log.error("seq %d: %s; the shoe's firmware needs attention", frame.seq, error)
            return None

    def _emit(self, event: ShoeEvent) -> bool:
        return deliver_safely(self._deliver, event)

    def _send_ack(self, seq: int) -> None:
        data = encode_frame(Frame(FrameType.ACK, 0, ack_payload(seq)))
        if self._line.write(data):
            self._stats.acks_sent += 1
            self._stats.bytes_out += len(data)

    def _send_hello_req(self, now: float) -> None:
        self._last_hello_req_at = now
        if self._line.write(_HELLO_REQ):
            self._stats.hello_requests += 1
            self._stats.bytes_out += len(_HELLO_REQ)

