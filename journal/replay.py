"""The one replay loop: a journal's events fed to a table, in order.

The table is deterministic, so feeding it the stored events rebuilds its state
exactly. The daemon replays at startup (and after a journal fault), the
`tablectl journal` commands replay to show where each card went, the simulated
table to find its shoe; each watches the replay through a `ReplayWatcher`.
"""

from __future__ import annotations

from collections.abc import Iterable

from journal.records import JournalEvent
from table.machine import Table
from table.views import Outcome


class ReplayWatcher:
    """Told about each event replayed: before the table takes it and after.
    Override what is needed; both do nothing here."""

    def before(self, stored: JournalEvent, table: Table) -> None:
        """The table before it takes `stored`."""

    def after(self, stored: JournalEvent, outcome: Outcome, table: Table) -> None:
        """The table after it took `stored`, and its answer."""


def replay(events: Iterable[JournalEvent], table: Table, *, upto_seq: int | None = None,
           watcher: ReplayWatcher | None = None) -> int:
    """Feed `events` (up to `upto_seq`, if given) to `table`; returns how many."""
    count = 0
    for stored in events:
        if upto_seq is not None and stored.seq > upto_seq:
            break
        if watcher is not None:
            watcher.before(stored, table)
        outcome = table.apply(stored.event)
        if watcher is not None:
            watcher.after(stored, outcome, table)
        count += 1
    return count
