"""Recorded rounds as a replayable scenario (`table-scenario/1`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from journal.errors import JournalError
from journal.reader import JournalReader
from journal.records import JournalEvent

SCENARIO_FORMAT = "table-scenario/1"


def export_scenario(journal: JournalReader, rounds: Iterable[int] | None = None
                    ) -> dict[str, Any]:
    """A `table-scenario/1` document of recorded rounds (all by default).

    Each round carries its events, its number in the journal
    (`journal_round`) and, as `expect`, the result recorded when it was
    played, numbered as the replay numbers it: the round's `round` is its
    place in the document, and each refusal is placed at `round R, event E`,
    the refused event's place in the document's round.

    Rounds are replayed on a fresh table: a selection that does not start at
    the journal's first round (or at a shoe load) starts from a full shoe,
    which the original round did not.
    """
    profile = journal.profile
    if profile is None:
        raise JournalError(
            f"{journal.path}: no profile is stored in this journal, so it cannot be "
            "exported as a scenario; it was created without one"
        )
    records = {record.round_no: record for record in journal.rounds()}
    wanted = sorted(records) if rounds is None else list(rounds)
    missing = [n for n in wanted if n not in records]
    if missing:
        raise JournalError(
            f"{journal.path}: round(s) {', '.join(map(str, missing))} not recorded; "
            f"the journal has rounds 1 to {len(records)}"
        )
    doc: dict[str, Any] = {"format": SCENARIO_FORMAT}
    span = f"round {wanted[0]}" if len(wanted) == 1 else f"rounds {_ranges(wanted)}"
    doc["name"] = f"{journal.path.name}: {span}" if wanted else journal.path.name
    doc["profile"] = profile
    if journal.rules:
        doc["rules"] = journal.rules
    doc["rounds"] = []
    for index, n in enumerate(wanted, start=1):
        events = journal.round_events(n)
        doc["rounds"].append({
            "journal_round": n,
            "events": [item.event for item in events],
            "expect": _as_replayed(records[n].result, events, index),
        })
    return doc


def _ranges(numbers: list[int]) -> str:
    """`1-3,7` for [1, 2, 3, 7] (consecutive runs joined)."""
    parts: list[str] = []
    start = previous = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == previous + 1:
            previous = n
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if n is not None:
            start = previous = n
    return ",".join(parts)


def _as_replayed(result: dict[str, Any], events: list[JournalEvent], index: int
                 ) -> dict[str, Any]:
    """A recorded result in the numbering of a replay of the exported document."""
    expect = dict(result)
    if "round" in expect:
        expect["round"] = index
    refused = expect.get("refused")
    if isinstance(refused, list):
        expect["refused"] = _placed(refused, events, index)
    return expect


def _placed(entries: list[Any], events: list[JournalEvent], index: int) -> list[Any]:
    """The round's refusals, each at its event's place in the document's round.

    The round's list holds every refusal from its first event on, so its entries
    are the last of the round's refused events, in order (one refused before the
    round began is in the span but in no round's list). They are paired from the
    end; an entry is placed only when its event is of the refused kind and its
    reason the stored one, and pairing stops at the first that is not.
    """
    refused_events = [(place, item) for place, item in enumerate(events, start=1)
                      if item.refused is not None]
    placed = list(entries)
    for slot, (place, item) in zip(reversed(range(len(entries))), reversed(refused_events),
                                   strict=False):
        entry = entries[slot]
        if not (isinstance(entry, dict) and isinstance(entry.get("event"), dict)
                and set(entry["event"]) == set(item.event)
                and entry.get("reason") == item.refused):
            break
        placed[slot] = {**entry, "position": f"round {index}, event {place}"}
    return placed
