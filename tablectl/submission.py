"""What goes into the table service and what comes back out, and what it is
given to resume after a journal fault.

Every input (a shoe frame, a button, a terminal's API call, the camera, the
simulated dealer) is a `Submission`; its submitter hears a `Receipt` once the
event's fate is on disk. Readers on other threads see the table as a
`Snapshot`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from table.machine import Table
from table.views import Due, TableView


@dataclass(frozen=True)
class Receipt:
    """What became of a submission, given once its fate is on disk (or cannot be)."""

    stored: bool
    accepted: bool
    reason: str | None = None
    journal_seq: int | None = None
    duplicate: bool = False
    flags: tuple[str, ...] = ()
    # The event is not an event at all: neither applied nor stored (`reason` says why).
    malformed: bool = False
    # Refused by the rules and, as its submitter asked (`keep_refused=False`), neither
    # stored nor noted in the round: the table is as if it had never come.
    refused: bool = False
    # Its reference is already stored with a different event: nothing applied or stored.
    conflict: bool = False


Reply = Callable[[Receipt], None]
# Runs on the loop thread with the table as it stands; returns the events to apply.
Derive = Callable[[Table], list[dict[str, Any]]]

NOTHING_TO_STORE = Receipt(True, True, "nothing to store")

T = TypeVar("T")


class Answer(Generic[T]):
    """One answer handed from the loop (or the committer) to a thread waiting for it."""

    def __init__(self) -> None:
        self._given = threading.Event()
        self._value: T | None = None

    def give(self, value: T) -> None:
        self._value = value
        self._given.set()

    def wait(self, timeout_s: float) -> T | None:
        """The answer, or None if none came in time."""
        return self._value if self._given.wait(timeout_s) else None


@dataclass
class Submission:
    """One input, applied in the order submitted. `event` None with no `derive`:
    nothing to store, only an answer in order (a shoe status the table has no use
    for must still be acknowledged after the frames before it).

    `reply` hears the receipt once the event is on disk (or cannot be). `derive`,
    instead of an event, makes the events on the loop from the table as it stands
    (a button means what the table expects now).

    `keep_refused` False: an event the rules refuse is neither stored nor noted in
    the round (the local API's calls: the caller is told, the journal stays clean)."""

    event: dict[str, Any] | None
    source: str
    source_ref: str | None = None
    reply: Reply | None = None
    derive: Derive | None = None
    keep_refused: bool = True


@dataclass(frozen=True)
class Snapshot:
    """The table as of the last batch, for readers on other threads (the API)."""

    due: Due
    view: TableView
    journal_fault: str | None
    shoe_online: bool
    journal_seq: int
    # Why the shoe is offline ("" while it is online).
    shoe_note: str = ""


@dataclass
class ServiceStatus:
    """What the lamps and displays show besides the table: set on the loop thread."""

    shoe_online: bool = True
    shoe_note: str = ""
    notes: list[str] = field(default_factory=list)


class JournalFaultRetry(Protocol):
    """Resumes the table once the journal stores again (`tablectl.journal_retry`)."""

    def poll(self) -> None:
        """On the loop thread, while the journal is faulted."""
