"""The plain-text scanner driver: one card per line (`AS\\r\\n`, `10H\\n`, `qd\\n`).

Such scanners send no sequence numbers and take no acknowledgement, so a card
lost on the line goes unnoticed: delivery is best-effort, and the driver says
so when it starts. Lines that are not a card are counted, logged and handed
to the consumer as `RejectedLine`, never as a card.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass

from firmware_bridge.serial_port import Backoff, PortUnavailable, ReopeningPort
from firmware_bridge.shoelink.events import LinkState
from foundation.cards import CardError, card_code, card_numbers

log = logging.getLogger(__name__)

DELIVERY_WARNING = (
    "plain-text scanner: no acknowledgement and no re-send, so a card lost on the "
    "line goes unnoticed; delivery is best-effort (use a ShoeLink shoe for a "
    "guarantee)"
)
MAX_LINE = 32


@dataclass(frozen=True)
class ScannedCard:
    """A card line; `number` counts the cards read on this link, from 1."""

    number: int
    rank: int  # 1 = A … 13 = K
    suit: int  # 0 = S, 1 = H, 2 = D, 3 = C

    @property
    def code(self) -> str:
        return card_code(self.rank, self.suit)


@dataclass(frozen=True)
class RejectedLine:
    """A line that is not a card: counted and reported, never fed to the table."""

    line_number: int
    text: str
    reason: str


ScannerEvent = ScannedCard | RejectedLine | LinkState


@dataclass
class ScannerStats:
    lines: int = 0
    cards: int = 0
    rejected: int = 0
    blank_lines: int = 0
    bytes_in: int = 0
    reconnects: int = 0
    port_errors: int = 0
    last_rejected: str = ""

    def as_dict(self) -> dict[str, int | str]:
        return asdict(self)


def parse_card_line(text: str) -> tuple[int, int]:
    """'AS', '10h', 'qd ' → (rank 1-13, suit 0-3); ValueError says what is wrong."""
    try:
        return card_numbers(text)
    except CardError as error:
        raise ValueError(error.problem) from None


class TextScannerReader:
    """Reads a line-per-card scanner in its own thread; best-effort delivery."""

    best_effort = True

    def __init__(
        self,
        port: ReopeningPort | str,
        deliver: Callable[[ScannerEvent], None],
        *,
        baudrate: int = 9600,
        backoff: Backoff | None = None,
    ) -> None:
        if isinstance(port, str):
            port = ReopeningPort(port, baudrate=baudrate, backoff=backoff)
        self.port = port
        self._deliver = deliver
        self._stats = ScannerStats()
        self._buffer = bytearray()
        self._overlong = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._online = False

    @property
    def stats(self) -> ScannerStats:
        snapshot = ScannerStats(**asdict(self._stats))
        snapshot.port_errors = self.port.errors
        return snapshot

    @property
    def online(self) -> bool:
        return self._online

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("the reader is already running")
        log.warning("%s", DELIVERY_WARNING)
        self._thread = threading.Thread(target=self._run, name="text-scanner", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None
        self.port.close()

    def __enter__(self) -> TextScannerReader:
        if self._thread is None:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        while not self._stop.is_set():
            if not self.port.is_open:
                self._set_online(False, "the port is closed")
                had_opened = self.port.opens > 0
                if not self.port.ensure_open(self._stop):
                    continue
                if had_opened:
                    self._stats.reconnects += 1
                self._buffer.clear()
                self._overlong = False
                self._set_online(True, "port open")
            try:
                data = self.port.read()
            except PortUnavailable:
                continue
            if data:
                self._stats.bytes_in += len(data)
                self.feed(data)

    def feed(self, data: bytes) -> None:
        """Split bytes into lines and handle each complete one."""
        start = 0
        while (newline := data.find(b"\n", start)) >= 0:
            self._add(data[start:newline])
            if self._overlong:
                self._overlong = False
                self._buffer.clear()
            else:
                line, self._buffer = bytes(self._buffer), bytearray()
                self._handle_line(line)
            start = newline + 1
        self._add(data[start:])

    def _add(self, chunk: bytes) -> None:
        if self._overlong:
            return
        self._buffer += chunk
        if len(self._buffer) > MAX_LINE:
            self._overlong = True
            self._stats.lines += 1
            self._reject(bytes(self._buffer[:MAX_LINE]), f"line longer than {MAX_LINE} bytes")
            self._buffer.clear()

    def _handle_line(self, raw: bytes) -> None:
        text = raw.decode("ascii", errors="replace").strip()
        if not text:
            self._stats.blank_lines += 1
            return
        self._stats.lines += 1
        try:
            rank, suit = parse_card_line(text)
        except ValueError as error:
            self._reject(raw, str(error))
            return
        self._stats.cards += 1
        self._emit(ScannedCard(self._stats.cards, rank, suit))

    def _reject(self, raw: bytes, reason: str) -> None:
        text = raw.decode("ascii", errors="replace").strip()
        self._stats.rejected += 1
        self._stats.last_rejected = text
        log.warning("scanner line %d %r rejected: %s", self._stats.lines, text, reason)
        self._emit(RejectedLine(self._stats.lines, text, reason))

    def _set_online(self, online: bool, reason: str) -> None:
        if online != self._online:
            self._online = online
            self._emit(LinkState(online, reason))

    def _emit(self, event: ScannerEvent) -> None:
        try:
            self._deliver(event)
        except Exception:
            log.exception("the consumer failed on %r", event)
