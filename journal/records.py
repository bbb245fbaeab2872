"""The journal's records, typed: an event as stored, a recorded round, a batch.

A row of the `events` table is a `JournalEvent`; a row of `rounds` a
`RoundRecord`. Events are the table's scenario dicts (`docs/scenario-format.md`),
stored as JSON text; everything else is a column of its own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Made once: `json.dumps` with options builds a new encoder at every call.
_EVENT_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)

# The one event with a second key: a card with the place a camera saw it land.
_PLACED_CARD_KEYS = {"card", "box"}


@dataclass(frozen=True)
class JournalEvent:
    """A stored input event. `refused`: the table's reason when it refused the
    event as it was played (None: accepted, or not known)."""

    seq: int
    source: str
    source_ref: str | None
    event: dict[str, Any]
    refused: str | None = None


@dataclass(frozen=True)
class RoundRecord:
    """A finished round: the events `start_seq` to `end_seq` and their result."""

    round_no: int
    status: str
    start_seq: int
    end_seq: int
    flags: tuple[str, ...]
    result: dict[str, Any]


# One event row on its way to the disk: seq, source, source_ref, JSON text, refused.
EventRow = tuple[int, str, str | None, str, str | None]


@dataclass
class PendingBatch:
    """Events and rounds appended and not yet sealed."""

    events: list[EventRow] = field(default_factory=list)
    refs: dict[tuple[str, str], int] = field(default_factory=dict)
    rounds: list[RoundRecord] = field(default_factory=list)
    times: list[tuple[int, float]] = field(default_factory=list)

    def clear(self) -> None:
        self.events.clear()
        self.refs.clear()
        self.rounds.clear()
        self.times.clear()


@dataclass(frozen=True)
class SealedBatch:
    """A batch taken out of the journal's pending one by `seal()`, for `write()`."""

    events: tuple[EventRow, ...]
    refs: Mapping[tuple[str, str], int]
    rounds: tuple[RoundRecord, ...]
    times: tuple[tuple[int, float], ...] = ()

    @property
    def size(self) -> int:
        return len(self.events)


def event_text(event: Mapping[str, Any]) -> str:
    """The stored JSON of an event; `ValueError` for what is not an event."""
    if not isinstance(event, Mapping) or (
        len(event) != 1 and set(event) != _PLACED_CARD_KEYS
    ):
        raise ValueError(
            "an event is a dict with one key such as {'card': '7S'} (a card may add "
            f"'box'), got {event!r}"
        )
    try:
        return _EVENT_ENCODER.encode(dict(event))
    except (TypeError, ValueError) as error:
        raise ValueError(f"the event {event!r} cannot be stored as JSON: {error}") from error


def round_record(round_no: int, result: Mapping[str, Any], start_seq: int,
                 end_seq: int) -> RoundRecord:
    """The record of a round's result (the scenario result object); `ValueError`
    when it has no status or its flags are not a list of codes."""
    status = result.get("status")
    flags = result.get("flags", [])
    if not isinstance(status, str):
        raise ValueError(f"round {round_no}: the result needs a 'status' text")
    if not isinstance(flags, list | tuple) or not all(isinstance(f, str) for f in flags):
        raise ValueError(f"round {round_no}: 'flags' must be a list of codes")
    try:
        stored = json.loads(json.dumps(dict(result), separators=(",", ":")))
    except (TypeError, ValueError) as error:
        raise ValueError(f"round {round_no}: the result cannot be stored as JSON: "
                         f"{error}") from error
    return RoundRecord(round_no, status, start_seq, end_seq, tuple(flags), stored)


def round_row(record: RoundRecord) -> tuple[int, int, int, str, str, str]:
    """The `rounds` row of a record."""
    return (record.round_no, record.start_seq, record.end_seq, record.status,
            json.dumps(list(record.flags)), json.dumps(record.result, separators=(",", ":")))


def round_from_row(row: tuple[Any, ...]) -> RoundRecord:
    """A record from `round_no, status, start_seq, end_seq, flags, result`."""
    number, status, start, end, flags, result = row
    return RoundRecord(int(number), str(status), int(start), int(end),
                       tuple(json.loads(flags)), json.loads(result))


def event_from_row(row: tuple[Any, ...]) -> JournalEvent:
    """An event from `seq, source, source_ref, event, refused`."""
    seq, source, ref, text, refused = row
    return JournalEvent(int(seq), str(source), None if ref is None else str(ref),
                        json.loads(text), None if refused is None else str(refused))
