"""The dealer's protocols over a `table.machine.Table` in the same process."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hwsim.dealer.protocols import DealerError, Sent
from table.machine import Table
from table.views import Due, Outcome, TableView


class InProcessTable:
    """A `TableLink` straight onto a `Table`: `send` is `table.apply`, once per ref.

    The shoe's events come in through `feed` (no ref: the shoe numbers its own
    frames). Every event applied is kept in `events`, in order, so a run can be
    replayed as a scenario. Safe to share between the dealer and a shoe reader
    thread.
    """

    def __init__(self, table: Table) -> None:
        self.table = table
        self.events: list[dict[str, Any]] = []
        self._answers: dict[str, Sent] = {}
        self._lock = threading.RLock()

    def due(self) -> Due:
        with self._lock:
            return self.table.due()

    def view(self) -> TableView:
        with self._lock:
            return self.table.view()

    def send(self, event: dict[str, Any], ref: str) -> Sent:
        with self._lock:
            earlier = self._answers.get(ref)
            if earlier is not None:
                return Sent(earlier.stored, earlier.accepted, earlier.reason, duplicate=True)
            outcome = self._apply(event)
            answer = Sent(True, outcome.accepted, outcome.reason)
            self._answers[ref] = answer
            return answer

    def feed(self, event: Mapping[str, Any]) -> Outcome:
        """Apply an event that came from the shoe (a card, `loaded`, a fault flag)."""
        with self._lock:
            return self._apply(dict(event))

    @property
    def refs(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._answers)

    def _apply(self, event: dict[str, Any]) -> Outcome:
        self.events.append(event)
        return self.table.apply(event)


class InProcessShoe:
    """A `CardShoe` that applies `{"card": code}` to an `InProcessTable` on each draw."""

    def __init__(self, link: InProcessTable, cards: Iterable[str]) -> None:
        self.link = link
        self._cards: deque[str] = deque(cards)
        # Every card drawn, in order, across shoes.
        self.drawn: list[str] = []
        self.loads = 0

    def draw(self) -> None:
        if not self._cards:
            raise DealerError("the shoe is empty: no card to draw")
        card = self._cards.popleft()
        self.drawn.append(card)
        self.link.feed({"card": card})

    def wait_delivered(self, timeout_s: float) -> bool:
        return True  # applied as it was drawn

    def cards_left(self) -> int:
        return len(self._cards)

    def load(self, cards: Sequence[str]) -> None:
        self._cards = deque(cards)
        self.loads += 1
        self.link.feed({"shoe": "loaded"})
