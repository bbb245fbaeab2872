"""Each round's result recorded in the journal, once, when it can no longer change.

A round is recorded when the next one begins, not at settlement: a card drawn
after the settlement still belongs to it (flagged, burned on `accept`). At a
stop, a round that is over (settled or void) is recorded too, since no next
round will begin in this run to record it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from journal import Journal
from table.machine import Table

log = logging.getLogger(__name__)

# Called on the loop thread with each round's result as it is recorded in the journal.
RoundListener = Callable[[dict[str, Any]], None]


class RoundRecorder:
    """Used on the table's loop only. Journal errors reach the caller."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.listeners: list[RoundListener] = []
        self.recorded_round = 0
        self.reread()

    def reread(self) -> None:
        """The newest round the journal holds (after the table was rebuilt from it)."""
        rounds = self.journal.rounds()
        self.recorded_round = rounds[-1].round_no if rounds else 0

    def record_finished(self, table: Table) -> None:
        """Record every round before the one now in play (pending in the journal)."""
        if table.rounds_played <= self.recorded_round + 1:
            return
        for result in table.results(since=self.recorded_round):
            if result["round"] >= table.rounds_played:
                break
            self.journal.record_round(result["round"], result)
            self._recorded(result)

    def record_over_at_stop(self, table: Table) -> None:
        """At a stop: record and commit the newest round if it is over."""
        if (table.state not in ("settled", "void")
                or table.rounds_played != self.recorded_round + 1):
            return
        result = table.current_result()
        if result is None:
            return
        self.journal.record_round(result["round"], result)
        self.journal.commit()
        self._recorded(result)

    def _recorded(self, result: dict[str, Any]) -> None:
        self.recorded_round = result["round"]
        for listener in self.listeners:
            try:
                listener(result)
            except Exception:  # a view must never stop the table
                log.exception("a round listener failed")
