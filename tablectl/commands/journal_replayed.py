"""What replaying the journal tells about a round: where each card went, what was
refused or flagged, and its result (for `journal show` and a round not recorded
yet). Imported only when needed: it loads the rules engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from journal import JournalEvent, JournalReader
from journal.replay import ReplayWatcher, replay
from table.machine import Table
from table.profiles import ProfileError, load_profile
from table.views import Outcome


@dataclass
class Replayed:
    """What replaying the journal tells about the events of one round."""

    notes: dict[int, str]
    result: dict[str, Any] | None
    dealer_total: int | None
    problem: str | None = None



def replay_round(journal: JournalReader, events: list[JournalEvent]) -> Replayed:
    """Feed the journal to a fresh table up to the round's last event, noting
    where each card of the round went and what was refused or flagged."""
    if not events:
        return Replayed({}, None, None)
    if journal.profile is None:
        return Replayed({}, None, None, "no profile is stored in the journal")
    try:
        rules = load_profile(journal.profile, journal.rules)
    except ProfileError as error:
        return Replayed({}, None, None, f"its profile cannot be loaded ({error})")
    table = Table(rules, keep_rounds=2)
    notes = _RoundNotes(events[0].seq)
    replay(journal.events(), table, upto_seq=events[-1].seq, watcher=notes)
    view = table.view()
    return Replayed(notes.notes, table.current_result(),
                    view.dealer_total if view.dealer else None)


@dataclass
class _RoundNotes(ReplayWatcher):
    """Notes, per seq from `first` on, where a card went and what was refused."""

    first: int
    notes: dict[int, str] = field(default_factory=dict)
    _before: dict[str, int] | None = None

    def before(self, stored: JournalEvent, table: Table) -> None:
        self._before = (places(table) if stored.seq >= self.first and "card" in stored.event
                        else None)

    def after(self, stored: JournalEvent, outcome: Outcome, table: Table) -> None:
        if stored.seq < self.first:
            return
        parts = []
        if self._before is not None and outcome.accepted:
            now = places(table)
            went = [place for place, count in now.items() if count > self._before.get(place, 0)]
            parts.append("-> " + " and ".join(went) if went else "-> not dealt")
        if not outcome.accepted:
            parts.append(f"REFUSED: {outcome.reason}")
        if outcome.flags:
            parts.append("FLAG " + ", ".join(outcome.flags))
        self.notes[stored.seq] = "  ".join(parts)


def places(table: Table) -> dict[str, int]:
    """How many cards each place of the table holds now."""
    view = table.view()
    where = {"dealer": len(view.dealer)}
    for box in view.boxes:
        for hand in box.hands:
            where[f"box {box.number}, hand {hand.index + 1}"] = len(hand.cards)
    result = table.current_result()
    where["burned"] = len(result.get("burned", [])) if result else 0
    return where
