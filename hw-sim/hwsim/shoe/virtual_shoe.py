"""A virtual card shoe speaking ShoeLink v1 from the device side on a pty.

It behaves like the firmware described in docs/protocol.md: every reliable
frame stays in a 64-frame buffer until acknowledged (a full buffer stops the
card gate), unacknowledged frames are re-sent oldest first when the
acknowledged sequence number has not advanced for the resend interval, a
heartbeat goes out every heartbeat interval, and HELLO_REQ is answered with
HELLO (plus an immediate heartbeat) and a re-send of everything unacknowledged.

`restart()` is a power cycle: like real firmware without battery-backed
memory, the shoe forgets unacknowledged frames and numbers from 1 again.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from firmware_bridge.shoelink.frames import (
    Frame,
    FrameDecoder,
    FrameError,
    FrameType,
    parse_ack_payload,
)
from hwsim.shoe.card_gate import CardGate
from hwsim.shoe.faults import FaultInjector, LineFaults
from hwsim.shoe.pty_port import PtyDevice, VirtualPort
from hwsim.shoe.resend_buffer import ResendBuffer
from hwsim.shoe.shoe_frames import (
    card_frame,
    heartbeat_bytes,
    hello_bytes,
    status_frame,
    unreadable_frame,
)
from hwsim.shoe.shoe_line import ShoeLine
from hwsim.shoe.shoe_records import SentRecord, ShoeCounters, ShoeTiming
from hwsim.shoe.wake_pipe import WakePipe


class VirtualShoe(PtyDevice):
    """Start it, hand `path` to the host, deal; control faults from the test."""

    def __init__(
        self,
        cards: Sequence[str],
        *,
        serial_number: str = "SHOE-0001",
        firmware: str = "1.0.0",
        decks: int | None = None,
        timing: ShoeTiming | None = None,
        faults: LineFaults | None = None,
        seed: int | None = None,
        link_path: str | Path | None = None,
        buffer_size: int = 64,
        cut_card_after: int | None = None,
        unreadable: float = 0.0,
        low_confidence: float = 0.0,
        record_write_times: bool = False,
        dealer_paced: bool = False,
        wait_for_host: bool = False,
        coalesce_writes: bool = False,
        announce_loaded: bool = True,
    ) -> None:
        """`dealer_paced`: cards stay in the shoe until `draw()` lets them out, one
        per draw, as a dealer pulls them; otherwise they go as fast as the gate allows.
        `wait_for_host`: the shoe is switched on only once a host has opened the
        port, so the host sees its first HELLO and frames from the first.
        `coalesce_writes`: frames made in quick succession go to the pty in one
        write (`VirtualPort`); bytes the pty could not take are then counted in
        `port_bytes_lost`, not in `counters.bytes_lost`.
        `announce_loaded` False: the cards are what is left of a shoe already in
        play (a table restarted mid-shoe), so no `loaded` is reported for them."""
        if buffer_size < 1:
            raise ValueError("buffer_size must be at least 1")
        self.serial_number = serial_number
        self.firmware = firmware
        self.decks = decks
        self.timing = timing or ShoeTiming()
        self.buffer_size = buffer_size
        self.unreadable = unreadable
        self.low_confidence = low_confidence
        self._rng = random.Random(seed)
        self._port = VirtualPort(link_path, coalesce_writes=coalesce_writes)
        self._decoder = FrameDecoder()
        self._lock = threading.RLock()
        # Notified after each step of the device loop (`wait_until`).
        self._stepped = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._waker = WakePipe()

        self.counters = ShoeCounters()
        faults_rng = random.Random(self._rng.random())
        self._line = ShoeLine(
            self._port, FaultInjector(faults or LineFaults(), faults_rng), self.counters)
        self.records: list[SentRecord] = []
        self.ack_log: list[int] = []
        self.write_times_ns: dict[int, int] = {}
        self._record_write_times = record_write_times
        self.on_ack: Callable[[int], None] | None = None
        # Called on the shoe's thread, holding its lock, with each reliable frame made.
        self.on_frame: Callable[[SentRecord], None] | None = None

        self._buffer = ResendBuffer(self.counters)
        self._boot_at = 0.0
        self._booted = False
        self._next_heartbeat = 0.0
        self._next_card_at = 0.0
        self._gate_open = True
        self._gate = CardGate(cards, cut_card_after, dealer_paced=dealer_paced,
                              announce_loaded=announce_loaded)
        self.wait_for_host = wait_for_host

    @property
    def acked_seq(self) -> int:
        """The newest sequence number the host acknowledged (0: none since boot)."""
        return self._buffer.acked_seq

    @property
    def dealer_paced(self) -> bool:
        return self._gate.dealer_paced

    @property
    def cards_dealt(self) -> int:
        return self._gate.cards_dealt

    # Life cycle -----------------------------------------------------------

    def start(self) -> None:
        with self._lock:
            self._port.plug(release_slave=self.wait_for_host)
            if not self.wait_for_host:
                self._boot(time.monotonic())
        self._thread = threading.Thread(target=self._run, name="virtual-shoe", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._waker.wake()
        if self._thread is not None:
            self._thread.join(2.0)
            self._thread = None
        with self._lock:
            # What the host sent before the stop (its last ACK, say) still counts.
            for _ in range(64):
                if self._port.master_fd is None or not self._read_host(time.monotonic()):
                    break
        self._port.close()
        self._waker.close()

    # Controls (any thread) -------------------------------------------------

    def unplug(self, for_s: float | None = None) -> None:
        """Pull the cable; with `for_s`, plug it back in after that long."""
        with self._lock:
            self._line.unplug(for_s, time.monotonic())
        self._waker.wake()

    def replug(self) -> None:
        with self._lock:
            self._line.replug()
        self._waker.wake()

    def stall(self, seconds: float) -> None:
        """The line stops both ways for `seconds`; held bytes then go out."""
        with self._lock:
            self._line.stall(seconds, time.monotonic())
        self._waker.wake()

    def set_faults(self, faults: LineFaults) -> None:
        with self._lock:
            self._line.faults.faults = faults

    def restart(
        self, cards: Sequence[str] | None = None, serial_number: str | None = None
    ) -> None:
        """Power-cycle the firmware: unacknowledged frames are forgotten, sequence
        numbers start at 1, HELLO goes out. With `cards`, a new shoe is loaded."""
        with self._lock:
            if serial_number is not None:
                self.serial_number = serial_number
            self._buffer.forget()
            self._gate.restart(cards)
            self._boot(time.monotonic())
        self._waker.wake()

    def draw(self, count: int = 1) -> None:
        """A dealer-paced shoe: let `count` more cards out.

        The cards leave at once, on the caller's thread, as far as the gate
        allows (the window of unacknowledged frames, the card interval); the
        shoe's own thread lets out the rest when it can."""
        with self._lock:
            self._gate.allow(count)
            if self._booted and not self._stop.is_set():
                now = time.monotonic()
                waited = bool(self._buffer)
                deadlines = (self._line.replug_at, self._line.stalled_until)
                self._deal(now)
                # The shoe's thread sleeps until its next deadline: wake it only
                # if this deal made an earlier one (a resend clock, a fault).
                if waited and deadlines == (self._line.replug_at, self._line.stalled_until) and (
                        not self._gate.card_may_leave()):
                    return
        self._waker.wake()

    def load(self, cards: Sequence[str], cut_card_after: int | None = None) -> None:
        """A freshly shuffled shoe goes in (between rounds): the cards left are
        taken out, the new ones loaded and `loaded` reported."""
        with self._lock:
            self._gate.load(cards, cut_card_after)
        self._waker.wake()

    def deal_more(self, cards: Sequence[str]) -> None:
        """Put more cards behind the ones still in the shoe."""
        with self._lock:
            self._gate.deal_more(cards)
        self._waker.wake()

    # Observers ---------------------------------------------------------------

    @property
    def faults(self) -> FaultInjector:
        return self._line.faults

    @property
    def port_bytes_lost(self) -> int:
        """Bytes the pty could not take, written by the port's own thread."""
        return self._port.bytes_lost

    @property
    def pending_count(self) -> int:
        with self._lock:
            return len(self._buffer)

    @property
    def cards_left(self) -> int:
        return len(self._gate.cards)  # one read of a deque's length: no lock needed

    def drained(self) -> bool:
        """Every card dealt, every status sent and everything acknowledged."""
        with self._lock:
            return not self._gate.cards and not self._gate.statuses and not self._buffer

    def wait_drained(self, timeout_s: float) -> bool:
        return self.wait_until(self.drained, timeout_s)

    def wait_until(self, condition: Callable[[], object], timeout_s: float) -> bool:
        """Block until `condition` holds (looked at under the shoe's lock after each
        step of its device loop: a frame sent or re-sent, an ACK read, a card dealt);
        False after `timeout_s`."""
        with self._stepped:
            return bool(self._stepped.wait_for(condition, timeout_s))

    # Device loop -------------------------------------------------------------

    def _run(self) -> None:
        if self.wait_for_host:
            if not self._port.wait_for_host(self._stop):
                return
            with self._lock:
                self._boot(time.monotonic())
        while not self._stop.is_set():
            with self._lock:
                timeout = self._step(time.monotonic())
                master = self._port.master_fd
                listening = master is not None and not self._line.stalled(time.monotonic())
                self._stepped.notify_all()
            self._waker.sleep(timeout, master if listening else None)

    def _step(self, now: float) -> float:
        self._line.catch_up(now)
        if not self._line.stalled(now):
            self._read_host(now)
        self._deal(now)
        resend_at = self._buffer.resend_at(self.timing.resend_interval_s)
        if resend_at is not None and now >= resend_at:
            self._resend_all(now)
        if now >= self._next_heartbeat:
            self._send_heartbeat(now)
        return self._next_wakeup(now)

    def _next_wakeup(self, now: float) -> float:
        deadlines = [self._next_heartbeat]
        resend_at = self._buffer.resend_at(self.timing.resend_interval_s)
        if resend_at is not None:
            deadlines.append(resend_at)
        if self._gate.has_next() and len(self._buffer) < self.buffer_size:
            deadlines.append(self._next_card_at)
        deadlines += self._line.deadlines(now)
        return max(0.0, min(deadlines) - now)

    def _boot(self, now: float) -> None:
        self._boot_at = now
        self._booted = True
        self._buffer.last_progress = now
        self._send_hello(now)

    # Host to shoe ------------------------------------------------------------

    def _read_host(self, now: float) -> bool:
        """Handle what the host has sent; False if there was nothing."""
        data = self._port.read()
        if not data:
            return False
        bad_before = self._decoder.counts.crc_errors + self._decoder.counts.bad_frames
        for frame in self._decoder.feed(data):
            if frame.type == FrameType.ACK:
                self._on_ack(frame, now)
            elif frame.type == FrameType.HELLO_REQ:
                self.counters.hello_requests += 1
                self._send_hello(now)
                self._resend_all(now)
            else:
                self.counters.bad_host_frames += 1
        bad_after = self._decoder.counts.crc_errors + self._decoder.counts.bad_frames
        self.counters.bad_host_frames += bad_after - bad_before
        return True

    def _on_ack(self, frame: Frame, now: float) -> None:
        try:
            seq = parse_ack_payload(frame.payload)
        except FrameError:
            self.counters.bad_host_frames += 1
            return
        self.counters.acks += 1
        self.ack_log.append(seq)
        if self.on_ack is not None:
            self.on_ack(seq)
        self._buffer.acknowledge(seq, now)

    # Shoe to host ------------------------------------------------------------

    def _deal(self, now: float) -> None:
        gate = self._gate
        while gate.has_next() and now >= self._next_card_at:
            if len(self._buffer) >= self.buffer_size:
                if self._gate_open:
                    self._gate_open = False
                    self.counters.gate_stops += 1
                return
            self._gate_open = True
            if gate.statuses:
                status = status_frame(self._buffer.next_seq, gate.statuses.popleft())
                self._add_reliable(*status, now)
                continue
            if not gate.card_may_leave():
                return
            self._new_card(*gate.take_card(), now)
            gate.card_left()
            if self.timing.card_interval_s > 0:
                self._next_card_at = now + self.timing.card_interval_s

    def _new_card(self, card: str, index: int, now: float) -> None:
        seq = self._buffer.next_seq
        if self.unreadable and self._rng.random() < self.unreadable:
            self._add_reliable(*unreadable_frame(seq, index), now)
        else:
            low = bool(self.low_confidence) and self._rng.random() < self.low_confidence
            self._add_reliable(*card_frame(seq, card, index, low), now)

    def _add_reliable(self, frame: Frame, record: SentRecord, now: float) -> None:
        data = self._buffer.add(frame, now)
        self.records.append(record)
        if self.on_frame is not None:
            self.on_frame(record)
        if self._record_write_times and record.kind == "card":
            self.write_times_ns[frame.seq] = time.monotonic_ns()
        self._send(data, now)

    def _resend_all(self, now: float) -> None:
        for data in self._buffer.resend(now):
            self._send(data, now)

    def _send_hello(self, now: float) -> None:
        self._send(hello_bytes(self.firmware, self.serial_number, self.decks), now)
        # A heartbeat right away lets the host judge at once whether we restarted.
        self._send_heartbeat(now)

    def _send_heartbeat(self, now: float) -> None:
        self._next_heartbeat = now + self.timing.heartbeat_interval_s
        uptime_ms = int((now - self._boot_at) * 1000)
        self._send(heartbeat_bytes(self._gate.index, uptime_ms), now)

    def _send(self, data: bytes, now: float) -> None:
        self.counters.frames_sent += 1
        self._line.send(data, now)


__all__ = ["SentRecord", "ShoeCounters", "ShoeTiming", "VirtualShoe"]
