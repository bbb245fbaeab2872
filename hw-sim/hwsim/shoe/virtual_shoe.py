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

import os
import random
import select
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from firmware_bridge.shoelink.frames import (
    Frame,
    FrameDecoder,
    FrameError,
    FrameType,
    ShoeEventCode,
    card_payload,
    encode_frame,
    heartbeat_payload,
    hello_payload,
    index_payload,
    next_seq,
    parse_ack_payload,
    shoe_payload,
)
from foundation.cards import card_numbers, parse_card
from hwsim.shoe.faults import FaultInjector, LineFaults
from hwsim.shoe.pty_port import VirtualPort


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


@dataclass
class _Load:
    cards: deque[str]
    cut_card_after: int | None
    index: int = 0
    empty_sent: bool = False


class VirtualShoe:
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
        self._faults = FaultInjector(faults or LineFaults(), random.Random(self._rng.random()))
        self._port = VirtualPort(link_path, coalesce_writes=coalesce_writes)
        self._decoder = FrameDecoder()
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)

        self.counters = ShoeCounters()
        self.records: list[SentRecord] = []
        self.ack_log: list[int] = []
        self.write_times_ns: dict[int, int] = {}
        self._record_write_times = record_write_times
        self.on_ack: Callable[[int], None] | None = None
        # Called on the shoe's thread, holding its lock, with each reliable frame made.
        self.on_frame: Callable[[SentRecord], None] | None = None

        self._pending: deque[tuple[int, bytes]] = deque()
        self._status: deque[ShoeEventCode] = deque()
        self._next_seq = 1
        self.acked_seq = 0
        self._boot_at = 0.0
        self._booted = False
        self._last_progress = 0.0
        self._next_heartbeat = 0.0
        self._next_card_at = 0.0
        self._gate_open = True
        self._stalled_until = 0.0
        self._stall_buffer = bytearray()
        self._replug_at: float | None = None
        self._load = _Load(deque(parse_card(c) for c in cards), cut_card_after)
        if announce_loaded:
            self._status.append(ShoeEventCode.LOADED)
        self.dealer_paced = dealer_paced
        self.wait_for_host = wait_for_host
        self._draws_allowed = 0
        self.cards_dealt = 0

    # Life cycle -----------------------------------------------------------

    @property
    def path(self) -> str:
        """The stable path the host opens (a symlink to the current pty)."""
        return str(self._port.link_path)

    @property
    def device_name(self) -> str:
        return self._port.device_name

    def start(self) -> None:
        with self._lock:
            self._port.plug(release_slave=self.wait_for_host)
            if not self.wait_for_host:
                self._boot(time.monotonic())
        self._thread = threading.Thread(target=self._run, name="virtual-shoe", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake()
        if self._thread is not None:
            self._thread.join(2.0)
            self._thread = None
        with self._lock:
            # What the host sent before the stop (its last ACK, say) still counts.
            for _ in range(64):
                if self._port.master_fd is None or not self._read_host(time.monotonic()):
                    break
        self._port.close()
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> VirtualShoe:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # Controls (any thread) -------------------------------------------------

    def unplug(self, for_s: float | None = None) -> None:
        """Pull the cable; with `for_s`, plug it back in after that long."""
        with self._lock:
            self._port.unplug()
            self._replug_at = None if for_s is None else time.monotonic() + for_s
        self._wake()

    def replug(self) -> None:
        with self._lock:
            self._replug_at = None
            self._port.plug()
        self._wake()

    def stall(self, seconds: float) -> None:
        """The line stops both ways for `seconds`; held bytes then go out."""
        with self._lock:
            self._stalled_until = max(self._stalled_until, time.monotonic() + seconds)
        self._wake()

    def set_faults(self, faults: LineFaults) -> None:
        with self._lock:
            self._faults.faults = faults

    def restart(
        self, cards: Sequence[str] | None = None, serial_number: str | None = None
    ) -> None:
        """Power-cycle the firmware: unacknowledged frames are forgotten, sequence
        numbers start at 1, HELLO goes out. With `cards`, a new shoe is loaded."""
        with self._lock:
            if serial_number is not None:
                self.serial_number = serial_number
            self._pending.clear()
            self._status.clear()
            self._next_seq = 1
            self.acked_seq = 0
            if cards is not None:
                self._load = _Load(deque(parse_card(c) for c in cards), None)
                self._status.append(ShoeEventCode.LOADED)
            self._boot(time.monotonic())
        self._wake()

    def draw(self, count: int = 1) -> None:
        """A dealer-paced shoe: let `count` more cards out.

        The cards leave at once, on the caller's thread, as far as the gate
        allows (the window of unacknowledged frames, the card interval); the
        shoe's own thread lets out the rest when it can."""
        with self._lock:
            self._draws_allowed += count
            if self._booted and not self._stop.is_set():
                now = time.monotonic()
                waited = bool(self._pending)
                deadlines = (self._replug_at, self._stalled_until)
                self._deal(now)
                # The shoe's thread sleeps until its next deadline: wake it only
                # if this deal made an earlier one (a resend clock, a fault).
                if waited and deadlines == (self._replug_at, self._stalled_until) and (
                        not self._card_may_leave()):
                    return
        self._wake()

    def load(self, cards: Sequence[str], cut_card_after: int | None = None) -> None:
        """A freshly shuffled shoe goes in (between rounds): the cards left are
        taken out, the new ones loaded and `loaded` reported."""
        with self._lock:
            self._load = _Load(deque(parse_card(c) for c in cards), cut_card_after)
            self._draws_allowed = 0
            self._status.append(ShoeEventCode.LOADED)
        self._wake()

    def deal_more(self, cards: Sequence[str]) -> None:
        """Put more cards behind the ones still in the shoe."""
        with self._lock:
            self._load.cards.extend(parse_card(c) for c in cards)
            self._load.empty_sent = False
        self._wake()

    # Observers ---------------------------------------------------------------

    @property
    def faults(self) -> FaultInjector:
        return self._faults

    @property
    def port_bytes_lost(self) -> int:
        """Bytes the pty could not take, written by the port's own thread."""
        return self._port.bytes_lost

    @property
    def pending_count(self) -> int:
        with self._lock:
            return len(self._pending)

    @property
    def cards_left(self) -> int:
        return len(self._load.cards)  # one read of a deque's length: no lock needed

    def drained(self) -> bool:
        """Every card dealt, every status sent and everything acknowledged."""
        with self._lock:
            return not self._load.cards and not self._status and not self._pending

    def wait_drained(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.drained():
                return True
            time.sleep(0.005)
        return self.drained()

    # Device loop -------------------------------------------------------------

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

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
                listening = master is not None and not self._is_stalled(time.monotonic())
            fds = [self._wake_r] + ([master] if listening and master is not None else [])
            try:
                readable, _, _ = select.select(fds, [], [], timeout)
            except (OSError, ValueError):
                readable = []  # the pty closed under us: the next step notices
            if self._wake_r in readable:
                try:
                    os.read(self._wake_r, 512)
                except OSError:
                    pass

    def _is_stalled(self, now: float) -> bool:
        return now < self._stalled_until

    def _step(self, now: float) -> float:
        if self._replug_at is not None and now >= self._replug_at:
            self._replug_at = None
            self._port.plug()
        if not self._is_stalled(now) and self._stall_buffer:
            held, self._stall_buffer = bytes(self._stall_buffer), bytearray()
            self._write_raw(held)
        if not self._is_stalled(now):
            self._read_host(now)
        self._deal(now)
        if self._pending and now - self._last_progress >= self.timing.resend_interval_s:
            self._resend_all(now)
        if now >= self._next_heartbeat:
            self._send_heartbeat(now)
        return self._next_wakeup(now)

    def _next_wakeup(self, now: float) -> float:
        deadlines = [self._next_heartbeat]
        if self._pending:
            deadlines.append(self._last_progress + self.timing.resend_interval_s)
        if (self._card_may_leave() or self._status) and len(self._pending) < self.buffer_size:
            deadlines.append(self._next_card_at)
        if self._replug_at is not None:
            deadlines.append(self._replug_at)
        if self._is_stalled(now):
            deadlines.append(self._stalled_until)
        return max(0.0, min(deadlines) - now)

    def _boot(self, now: float) -> None:
        self._boot_at = now
        self._booted = True
        self._last_progress = now
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
        if all(pending_seq != seq for pending_seq, _ in self._pending):
            self.counters.acks_ignored += 1  # never sent by us, or already forgotten
            return
        while self._pending:
            pending_seq, _ = self._pending.popleft()
            if pending_seq == seq:
                break
        self.acked_seq = seq
        self._last_progress = now

    # Shoe to host ------------------------------------------------------------

    def _card_may_leave(self) -> bool:
        return bool(self._load.cards) and (not self.dealer_paced or self._draws_allowed > 0)

    def _deal(self, now: float) -> None:
        while (self._card_may_leave() or self._status) and now >= self._next_card_at:
            if len(self._pending) >= self.buffer_size:
                if self._gate_open:
                    self._gate_open = False
                    self.counters.gate_stops += 1
                return
            self._gate_open = True
            if self._status:
                self._new_status(self._status.popleft(), now)
                continue
            if not self._card_may_leave():
                return
            self._new_card(self._load.cards.popleft(), now)
            self.cards_dealt += 1
            if self.dealer_paced:
                self._draws_allowed -= 1
            if self.timing.card_interval_s > 0:
                self._next_card_at = now + self.timing.card_interval_s
            load = self._load
            if load.cut_card_after is not None and load.index == load.cut_card_after:
                self._status.append(ShoeEventCode.CUT_CARD)
            if not load.cards and not load.empty_sent:
                load.empty_sent = True
                self._status.append(ShoeEventCode.EMPTY)

    def _new_card(self, card: str, now: float) -> None:
        self._load.index += 1
        index = self._load.index
        seq = self._next_seq
        if self.unreadable and self._rng.random() < self.unreadable:
            frame = Frame(FrameType.UNREADABLE, seq, index_payload(index))
            record = SentRecord(seq, "unreadable", index)
        else:
            rank, suit = card_numbers(card)
            low = bool(self.low_confidence) and self._rng.random() < self.low_confidence
            frame = Frame(FrameType.CARD, seq, card_payload(rank, suit, index, low))
            record = SentRecord(seq, "card", index, card=card, low_confidence=low)
        self._add_reliable(frame, record, now)

    def _new_status(self, code: ShoeEventCode, now: float) -> None:
        seq = self._next_seq
        frame = Frame(FrameType.SHOE, seq, shoe_payload(code))
        self._add_reliable(frame, SentRecord(seq, "shoe", event=code.name.lower()), now)

    def _add_reliable(self, frame: Frame, record: SentRecord, now: float) -> None:
        self._next_seq = next_seq(self._next_seq)
        data = encode_frame(frame)
        if not self._pending:
            self._last_progress = now  # the resend clock starts with the first frame
        self._pending.append((frame.seq, data))
        self.records.append(record)
        if self.on_frame is not None:
            self.on_frame(record)
        if self._record_write_times and record.kind == "card":
            self.write_times_ns[frame.seq] = time.monotonic_ns()
        self._send(data, now)

    def _resend_all(self, now: float) -> None:
        self._last_progress = now
        if not self._pending:
            return
        self.counters.resend_rounds += 1
        for _, data in list(self._pending):
            self.counters.frames_resent += 1
            self._send(data, now)

    def _send_hello(self, now: float) -> None:
        info = {"fw": self.firmware, "sn": self.serial_number}
        if self.decks is not None:
            info["decks"] = str(self.decks)
        self._send(encode_frame(Frame(FrameType.HELLO, 0, hello_payload(info))), now)
        # A heartbeat right away lets the host judge at once whether we restarted.
        self._send_heartbeat(now)

    def _send_heartbeat(self, now: float) -> None:
        self._next_heartbeat = now + self.timing.heartbeat_interval_s
        uptime_ms = int((now - self._boot_at) * 1000)
        payload = heartbeat_payload(self._load.index, uptime_ms)
        self._send(encode_frame(Frame(FrameType.HEARTBEAT, 0, payload)), now)

    def _send(self, data: bytes, now: float) -> None:
        self.counters.frames_sent += 1
        self._write_raw(self._faults.apply(data))
        stall_s = self._faults.stall_after()
        if stall_s:
            self._stalled_until = max(self._stalled_until, now + stall_s)
        unplug_s = self._faults.unplug_after()
        if unplug_s and self._port.plugged:
            self._port.unplug()
            self._replug_at = now + unplug_s

    def _write_raw(self, data: bytes) -> None:
        if not data:
            return
        if self._is_stalled(time.monotonic()):
            self._stall_buffer += data
            return
        if not self._port.plugged:
            return  # nobody on the other end: the bytes are gone
        written = self._port.write(data)
        self.counters.bytes_lost += len(data) - written


__all__ = ["SentRecord", "ShoeCounters", "ShoeTiming", "VirtualShoe"]
