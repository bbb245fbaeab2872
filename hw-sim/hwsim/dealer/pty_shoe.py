"""The dealer's `CardShoe` over the virtual ShoeLink shoe on a pseudo-terminal."""

from __future__ import annotations

from collections.abc import Sequence

from hwsim.shoe.virtual_shoe import VirtualShoe


class VirtualShoeCards:
    """Draws from a `VirtualShoe(..., dealer_paced=True)`; the cards travel to the table
    over ShoeLink. A frame the table acknowledged is stored, so `wait_delivered`
    waits until the shoe has let out every card drawn, has sent the `loaded` of
    the last load, and holds nothing unacknowledged.

    A waiting `wait_delivered` looks again after each step of the shoe's device loop
    (`VirtualShoe.wait_until`): an ACK read, a card let out, a restart that forgets
    the frames unacknowledged."""

    def __init__(self, shoe: VirtualShoe) -> None:
        if not shoe.dealer_paced:
            raise ValueError("the dealer needs a dealer-paced shoe: VirtualShoe(..., "
                             "dealer_paced=True)")
        self.shoe = shoe
        self._drawn = shoe.cards_dealt
        # The shoe says `loaded` when it starts: wait for it like for a later load.
        self._loaded_from: int | None = 0

    def draw(self) -> None:
        self._drawn += 1
        self.shoe.draw()

    def wait_delivered(self, timeout_s: float) -> bool:
        return self.shoe.wait_until(self._delivered, timeout_s)

    def cards_left(self) -> int:
        return self.shoe.cards_left

    def load(self, cards: Sequence[str]) -> None:
        self._loaded_from = len(self.shoe.records)
        self.shoe.load(cards)

    def _delivered(self) -> bool:
        shoe = self.shoe
        if self._loaded_from is not None:
            records = shoe.records[self._loaded_from:]
            if not any(r.kind == "shoe" and r.event == "loaded" for r in records):
                return False
            self._loaded_from = None
        return shoe.cards_dealt >= self._drawn and shoe.pending_count == 0
