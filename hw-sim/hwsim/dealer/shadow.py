"""A dealer who keeps his own copy of the table, so that he never waits for it.

At a real table the dealer sees each card he draws and knows the game: he does
not wait for a lamp before pulling the next card. `ShadowShoeCards` and
`ShadowLink` give the virtual dealer that: every frame the virtual shoe makes
and every event the dealer sends is applied to the dealer's own `Table`, which
he reads, and each event is handed on to the real table without waiting for it.

The two tables stay the same because the real one gets the same events in the
same order: cards come over the shoe's line in order, and each event handed on
says how many of the shoe's frames came before it (`after_frames`); the real
table's side passes it on after that many frames (`tablectl.sim_order`).
The shoe's window of unacknowledged frames keeps the dealer at most a few
rounds ahead of the journal.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from hwsim.dealer.protocols import DealerError, Sent
from hwsim.shoe.virtual_shoe import SentRecord, VirtualShoe
from table.machine import Table
from table.views import Due, Outcome, TableView

# (event, ref, after_frames, the outcome on the dealer's table)
Forward = Callable[[dict[str, Any], str, int, Outcome], None]

# The shoe's own statuses that are table events (the others are notes).
_TABLE_STATUSES = ("loaded", "cut_card")


def table_event(record: SentRecord) -> dict[str, Any] | None:
    """The table event a shoe frame carries, as the daemon's shoe reader makes it."""
    if record.kind == "card":
        return {"card": record.card}
    if record.kind == "unreadable":
        return {"flag": "UNREADABLE_CARD"}
    if record.kind == "shoe" and record.event in _TABLE_STATUSES:
        return {"shoe": record.event}
    return None


class ShadowShoeCards:
    """A `CardShoe` over a dealer-paced `VirtualShoe` that applies every frame the
    shoe makes to the dealer's `table`. `draw()` returns once the shoe has let the
    card out (it holds cards back while its window of unacknowledged frames is
    full)."""

    def __init__(self, shoe: VirtualShoe, table: Table, patience_s: float = 600.0) -> None:
        if not shoe.dealer_paced:
            raise ValueError("the dealer needs a dealer-paced shoe: VirtualShoe(..., "
                             "dealer_paced=True)")
        self.shoe = shoe
        self.table = table
        self.patience_s = patience_s
        self._made = threading.Condition()
        self._stopped = False
        earlier = shoe.on_frame

        def on_frame(record: SentRecord) -> None:
            if earlier is not None:
                earlier(record)
            with self._made:
                if record.kind in ("card", "unreadable"):
                    self._cards_made += 1
                self._made.notify_all()

        self._drawn = self._cards_made = shoe.cards_dealt
        shoe.on_frame = on_frame
        self._mirrored = 0

    @property
    def frames_mirrored(self) -> int:
        """The shoe's frames applied to the dealer's table so far."""
        return self._mirrored

    def mirror(self) -> None:
        """Apply the frames the shoe made since the last look to the dealer's table."""
        records = self.shoe.records
        while self._mirrored < len(records):
            event = table_event(records[self._mirrored])
            if event is not None:
                self.table.apply(event)
            self._mirrored += 1

    def draw(self) -> None:
        self._drawn += 1
        self.shoe.draw()
        self._wait_until(lambda: self._cards_made >= self._drawn, "the card drawn")
        self.mirror()

    def wait_delivered(self, timeout_s: float) -> bool:
        """The dealer's table has every frame the shoe made for what he did."""
        self.mirror()
        return True

    def cards_left(self) -> int:
        return self.shoe.cards_left

    def load(self, cards: Sequence[str]) -> None:
        before = len(self.shoe.records)
        self.shoe.load(cards)

        def loaded() -> bool:
            return any(r.kind == "shoe" and r.event == "loaded"
                       for r in self.shoe.records[before:])

        self._wait_until(loaded, "the new shoe's 'loaded'")
        self.mirror()

    def stop(self) -> None:
        """The table is closing: a dealer waiting for the shoe gives up (`DealerError`)."""
        with self._made:
            self._stopped = True
            self._made.notify_all()

    def _wait_until(self, done: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + self.patience_s
        with self._made:
            while not done():
                if self._stopped:
                    raise DealerError(f"{what}: the table is closing")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DealerError(f"{what}: the shoe did not let it out within "
                                      f"{self.patience_s:g} s")
                self._made.wait(left)  # woken by each frame the shoe makes, and the stop


class ShadowLink:
    """A `TableLink` on the dealer's own `table`: `send` applies the event there and
    hands it on with `forward` (it does not wait for the real table)."""

    def __init__(self, table: Table, cards: ShadowShoeCards, forward: Forward) -> None:
        self.table = table
        self.cards = cards
        self.forward = forward

    def due(self) -> Due:
        self.cards.mirror()
        return self.table.due()

    def view(self) -> TableView:
        self.cards.mirror()
        return self.table.view()

    def send(self, event: dict[str, Any], ref: str) -> Sent:
        self.cards.mirror()
        outcome = self.table.apply(event)
        self.forward(event, ref, self.cards.frames_mirrored, outcome)
        return Sent(True, outcome.accepted, outcome.reason)


__all__ = ["Forward", "ShadowLink", "ShadowShoeCards", "table_event"]
