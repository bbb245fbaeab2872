"""The shoe's reader feeding the table service.

Each reliable ShoeLink frame becomes one submission, in order; the frame is
acknowledged only when the service answers that its event is on disk (the
ack is cumulative, so frames with nothing to store are answered in order
too). A plain-text scanner has no acknowledgement: its cards are best-effort.

A shoe frame's journal reference is `EPOCH:SEQ@UPTIME`. The epoch goes up
whenever the shoe's numbering starts again (a firmware restart, another shoe,
the 16-bit sequence wrapping), so a reference is never reused; UPTIME is the
shoe's uptime (ms, from its latest heartbeat) when the frame came. At startup
the newest stored reference says where the reader resumes, and a shoe whose
uptime is now below the stored one rebooted while the daemon was down: its
frames number from 1 again and are new, not re-sends.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from firmware_bridge.serial_port import Backoff
from firmware_bridge.shoelink.events import (
    LinkState,
    ShoeCard,
    ShoeEvent,
    ShoeHello,
    ShoeStatus,
    ShoeUnreadable,
)
from firmware_bridge.text_scanner import RejectedLine, ScannedCard, ScannerEvent, TextScannerReader
from tablectl.devices import OpenShoeLink, ShoeLinkDevice, ShoeLinkSettings, open_shoelink
from tablectl.service import Receipt, Reply, ServiceStatus, Submission, TableService

log = logging.getLogger(__name__)

SOURCE = "shoe"
# Shoe statuses that are table events; the others (empty, lid, jam) are notes.
TABLE_STATUSES = {"loaded": "loaded", "cut_card": "cut_card"}


@dataclass(frozen=True)
class FrameRef:
    epoch: int
    seq: int
    uptime_ms: int | None = None

    def __str__(self) -> str:
        uptime = "" if self.uptime_ms is None else f"@{self.uptime_ms}"
        return f"{self.epoch}:{self.seq}{uptime}"


def parse_ref(ref: str | None) -> FrameRef | None:
    """'3:417@90210' -> FrameRef(3, 417, 90210); None for no reference or one of
    another form."""
    if ref is None:
        return None
    numbering, _, uptime = ref.partition("@")
    epoch, _, seq = numbering.partition(":")
    if not (epoch.isdigit() and seq.isdigit()) or (uptime and not uptime.isdigit()):
        return None
    return FrameRef(int(epoch), int(seq), int(uptime) if uptime else None)


class _Stats(Protocol):
    def as_dict(self) -> Mapping[str, Any]: ...


class ShoeReader(Protocol):
    """What the feed needs of a card reader: start it, stop it, its figures."""

    @property
    def stats(self) -> _Stats: ...
    def start(self) -> None: ...
    def stop(self, timeout_s: float = 2.0) -> None: ...


# Opens a reader for the feed, delivering to the feed's own handler for it; the
# settings say where the reader is and where the journal says it resumes (a reader
# without sequence numbers ignores the latter).
ReaderOpener = Callable[["ShoeFeed", ShoeLinkSettings], ShoeReader]

# `[shoe] driver` -> how its reader is opened. A new reader (an RFID shoe, say)
# registers here with `register_reader` and is then a valid `driver` in the config.
SHOE_READERS: dict[str, ReaderOpener] = {}


def register_reader(driver: str, opener: ReaderOpener) -> None:
    if driver in SHOE_READERS or driver == "none":
        raise ValueError(f"shoe driver {driver!r} is taken")
    SHOE_READERS[driver] = opener


class ShoeFeed:
    """Starts the configured reader and turns its events into submissions."""

    def __init__(
        self,
        service: TableService,
        driver: str,
        port: str,
        *,
        baudrate: int = 115_200,
        backoff: Backoff | None = None,
        fresh_shoe: bool = False,
        open_shoe_link: OpenShoeLink = open_shoelink,
    ) -> None:
        """`fresh_shoe`: the shoe numbers its frames from 1 whatever the journal holds
        (a simulated shoe made anew at each start). `open_shoe_link` opens a ShoeLink
        shoe's reader (`tablectl.devices`)."""
        self.service = service
        self.driver = driver
        # The newest frame stored in the round of answers going on (ACK is
        # cumulative: one ACK after the round covers every frame in it).
        self._ack_due: int | None = None
        last = parse_ref(service.journal.last_source_ref(SOURCE))
        self._epoch, self._last_seq = (last.epoch, last.seq) if last else (0, 0)
        known_uptime = last.uptime_ms if last else None
        if fresh_shoe and last is not None:
            self._epoch, self._last_seq, known_uptime = self._epoch + 1, 0, None
        self.open_shoe_link = open_shoe_link
        # The ShoeLink reader that is acknowledged; None for a text scanner.
        self.link: ShoeLinkDevice | None = None
        opener = SHOE_READERS.get(driver)
        if opener is None:
            raise ValueError(f"unknown shoe driver {driver!r}: one of {', '.join(SHOE_READERS)}")
        self.reader = opener(
            self, ShoeLinkSettings(port, baudrate, backoff, self._last_seq, known_uptime))

    def start(self) -> None:
        if self.link is not None:
            self.service.after_answers(self._send_due_ack)
            self.service.recovery_hooks.append(self._read_again_after_stored)
        self.reader.start()

    def _read_again_after_stored(self, ready: Callable[[], None]) -> None:
        """On the loop, after a journal fault: the reader goes back to the newest
        stored frame, so the frames the shoe still holds (never acknowledged) are
        delivered again; `ready` once it has (on the reader thread, after every
        frame it delivered before)."""
        assert self.link is not None
        last = parse_ref(self.service.journal.last_source_ref(SOURCE))
        epoch = self._epoch
        stored = last.seq if last is not None and last.epoch == epoch else 0

        def rewound() -> None:
            self._epoch, self._last_seq, self._ack_due = epoch, stored, None
            ready()

        self.link.rewind(stored, rewound)

    def stop(self) -> None:
        self.reader.stop()

    def stats(self) -> dict[str, Any]:
        return dict(self.reader.stats.as_dict())

    def _open_link(self, settings: ShoeLinkSettings) -> ShoeReader:
        self.link = self.open_shoe_link(settings, self._on_shoelink)
        return self.link

    def _open_scanner(self, settings: ShoeLinkSettings) -> ShoeReader:
        return TextScannerReader(settings.port, self._on_scanner, baudrate=settings.baudrate,
                                 backoff=settings.backoff)

    # Reader thread ----------------------------------------------------------------

    def _on_shoelink(self, event: ShoeEvent) -> None:
        if isinstance(event, LinkState):
            self._set_online(event.online, event.reason)
            return
        if isinstance(event, ShoeHello):
            if event.restarted or event.new_shoe:
                self._epoch += 1
                self._last_seq = 0
            return
        if event.seq <= self._last_seq:  # numbering started again (or wrapped)
            self._epoch += 1
        self._last_seq = event.seq
        assert self.link is not None
        ref = str(FrameRef(self._epoch, event.seq, self.link.shoe_uptime_ms))
        self.service.submit(Submission(self._table_event(event), SOURCE, ref,
                                       reply=self._acknowledger(event.seq)))

    @staticmethod
    def _table_event(event: ShoeCard | ShoeUnreadable | ShoeStatus) -> dict[str, Any] | None:
        if isinstance(event, ShoeCard):
            return {"card": event.code}
        if isinstance(event, ShoeUnreadable):
            return {"flag": "UNREADABLE_CARD"}
        status = TABLE_STATUSES.get(event.event)
        if status is None:
            log.info("shoe reports %s", event.event)
            return None
        return {"shoe": status}

    def _acknowledger(self, seq: int) -> Reply:
        def acknowledge(receipt: Receipt) -> None:
            if receipt.stored:
                self._ack_due = seq  # answers come in order: this is the newest

        return acknowledge

    def _send_due_ack(self) -> None:
        """After a round of answers (committer thread): one cumulative ACK."""
        seq, self._ack_due = self._ack_due, None
        if seq is not None and self.link is not None:
            self.link.ack(seq)

    def _on_scanner(self, event: ScannerEvent) -> None:
        if isinstance(event, LinkState):
            self._set_online(event.online, event.reason)
        elif isinstance(event, RejectedLine):
            log.warning("scanner line %d rejected: %r (%s)", event.line_number, event.text,
                        event.reason)
        elif isinstance(event, ScannedCard):
            self.service.submit(Submission({"card": event.code}, SOURCE))

    def _set_online(self, online: bool, reason: str) -> None:
        if online:
            log.info("shoe online: %s", reason)
        else:
            log.warning("shoe offline: %s", reason)

        def update(service: TableService) -> None:
            status: ServiceStatus = service.status
            status.shoe_online = online
            status.shoe_note = reason

        self.service.call(update)


register_reader("shoelink", ShoeFeed._open_link)
register_reader("text", ShoeFeed._open_scanner)
