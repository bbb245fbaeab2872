"""The first answers of the newest referenced events.

A terminal that lost an answer sends its call again under the same id; it must
hear what the first call was told, and the same id with a different event is
a conflict. The newest `RECENT_ANSWERS` outcomes are kept (the replay at
startup rebuilds them from the journal); an older repeat is still known as
stored (the journal has its reference) but its first answer is no longer at
hand.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from journal import Journal
from table.views import Outcome
from tablectl.submission import Receipt

RECENT_ANSWERS = 4096
RefKey = tuple[str, str]  # (source, source_ref)


class RecentAnswers:
    """`recent`: the outcomes of the newest referenced events in the journal, oldest
    first. Used on the table's loop only."""

    def __init__(self, journal: Journal, recent: Iterable[tuple[RefKey, Outcome]] = (),
                 keep: int = RECENT_ANSWERS) -> None:
        self.journal = journal
        self.keep = keep
        self._outcomes: OrderedDict[RefKey, Outcome] = OrderedDict()
        # The bodies of the newest referenced events applied in this run (canonical
        # JSON), to tell a repeat from a different event under the same reference.
        self._bodies: OrderedDict[RefKey, str] = OrderedDict()
        for key, outcome in recent:
            self._remember_outcome(key, outcome)

    def remember(self, key: RefKey, event: dict[str, Any], outcome: Outcome) -> None:
        self._remember_outcome(key, outcome)
        self._bodies[key] = canonical(event)
        if len(self._bodies) > self.keep:
            self._bodies.popitem(last=False)

    def answer_again(self, key: RefKey, stored_as: int, event: dict[str, Any]) -> Receipt:
        """The answer to an event whose reference is already stored as `stored_as`:
        its first answer again, or a conflict if it is another event."""
        if self.differs(key, stored_as, event):
            return Receipt(False, False, f"the id {key[1]!r} is already stored (event "
                           f"{stored_as}) with a different event; give each new event a "
                           "new id", stored_as, conflict=True)
        return self.repeated(key, stored_as)

    def differs(self, key: RefKey, stored_as: int, event: dict[str, Any]) -> bool:
        """Whether `event` is not the one stored under this reference."""
        body = self._bodies.get(key)
        if body is None:
            stored = self.journal.event_at(stored_as)
            if stored is None:
                return False  # not at hand: taken for the same, as before
            body = canonical(stored)
        return body != canonical(event)

    def repeated(self, key: RefKey, stored_as: int) -> Receipt:
        """The answer to an event sent again under a reference already stored."""
        first = self._outcomes.get(key)
        if first is None:
            return Receipt(True, True, f"already stored as event {stored_as}; its first "
                           f"answer is older than the last {self.keep} and no longer "
                           "at hand: see `tablectl journal`", stored_as, duplicate=True)
        reason = "already stored" if first.reason is None else first.reason
        return Receipt(True, first.accepted, reason, stored_as, True, first.flags)

    def _remember_outcome(self, key: RefKey, outcome: Outcome) -> None:
        self._outcomes[key] = outcome
        if len(self._outcomes) > self.keep:
            self._outcomes.popitem(last=False)


def canonical(event: Any) -> str:
    return json.dumps(event, sort_keys=True, separators=(",", ":"))
