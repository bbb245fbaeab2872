"""The plain-text scanner driver: one card per line (`AS\\r\\n`, `10H\\n`, `qd\\n`).

Such scanners send no sequence numbers and take no acknowledgement, so a card
lost on the line goes unnoticed: delivery is best-effort, and the driver says
so when it starts. Lines that are not a card are counted, logged and handed
to the consumer as `RejectedLine`, never as a card.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass

from firmware_bridge.port_reader import PortDevice, PortReader, deliver_safely, open_port
from firmware_bridge.serial_port import Backoff, ReopeningPort
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


class TextScannerProtocol:
    """The scanner's lines as a `PortProtocol`: bytes in, cards and rejected lines out."""

    def __init__(self, deliver: Callable[[ScannerEvent], None]) -> None:
        self._deliver = deliver
        self.stats = ScannerStats()
        self._buffer = bytearray()
        self._overlong = False
        self.online = False

    def started(self, now: float) -> None:
        pass

    def tick(self, now: float) -> None:
        pass

    def port_opened(self, now: float) -> None:
        self._buffer.clear()
        self._overlong = False
        self._set_online(True, "port open")

    def port_lost(self, reason: str) -> None:
        self._set_online(False, reason)

    def received(self, data: bytes, now: float) -> None:
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
            self.stats.lines += 1
            self._reject(bytes(self._buffer[:MAX_LINE]), f"line longer than {MAX_LINE} bytes")
            self._buffer.clear()

    def _handle_line(self, raw: bytes) -> None:
        text = raw.decode("ascii", errors="replace").strip()
        if not text:
            self.stats.blank_lines += 1
            return
        self.stats.lines += 1
        try:
            rank, suit = parse_card_line(text)
        except ValueError as error:
            self._reject(raw, str(error))
            return
        self.stats.cards += 1
        self._emit(ScannedCard(self.stats.cards, rank, suit))

    def _reject(self, raw: bytes, reason: str) -> None:
        text = raw.decode("ascii", errors="replace").strip()
        self.stats.rejected += 1
        self.stats.last_rejected = text
        log.warning("scanner line %d %r rejected: %s", self.stats.lines, text, reason)
        self._emit(RejectedLine(self.stats.lines, text, reason))

    def _set_online(self, online: bool, reason: str) -> None:
        if online != self.online:
            self.online = online
            self._emit(LinkState(online, reason))

    def _emit(self, event: ScannerEvent) -> None:
        deliver_safely(self._deliver, event)


class TextScannerReader(PortDevice):
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
        opened = open_port(port, baudrate, backoff)
        self.lines = TextScannerProtocol(deliver)
        super().__init__(PortReader(opened, self.lines, name="text-scanner"))

    @property
    def stats(self) -> ScannerStats:
        snapshot = ScannerStats(**asdict(self.lines.stats))
        self._reader.counts.fill(snapshot)
        return snapshot

    @property
    def online(self) -> bool:
        return self.lines.online

    def feed(self, data: bytes) -> None:
        """Handle bytes as if read from the port (lines may be split anywhere)."""
        self.lines.feed(data)

    def start(self) -> None:
        log.warning("%s", DELIVERY_WARNING)
        super().start()
