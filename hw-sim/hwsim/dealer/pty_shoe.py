"""The dealer's `CardShoe` over the virtual ShoeLink shoe on a pseudo-terminal."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from hwsim.shoe.virtual_shoe import VirtualShoe


class VirtualShoeCards:
    """Draws from a `VirtualShoe(..., dealer_paced=True)`; the cards travel to the table
    over ShoeLink. A frame the table acknowledged is stored, so `wait_delivered`
    waits until the shoe has let out every card drawn, has sent the `loaded` of
    the last load, and holds nothing unacknowledged.

    Each ACK the shoe reads wakes a waiting `wait_delivered` at once (through the
    shoe's `on_ack`, chained after any callback set before); `poll_s` is the
    longest it waits without one (a restarted shoe forgets its frames unacknowledged)."""

    def __init__(self, shoe: VirtualShoe, poll_s: float = 0.01) -> None:
        if not shoe.dealer_paced:
            raise ValueError("the dealer needs a dealer-paced shoe: VirtualShoe(..., "
                             "dealer_paced=True)")
        self.shoe = shoe
        self.poll_s = poll_s
        self._news = threading.Event()
        earlier = shoe.on_ack

        def on_ack(seq: int) -> None:
            if earlier is not None:
                earlier(seq)
            self._news.set()

        shoe.on_ack = on_ack
        self._drawn = shoe.cards_dealt
        # The shoe says `loaded` when it starts: wait for it like for a later load.
        self._loaded_from: int | None = 0

    def draw(self) -> None:
        self._drawn += 1
        self.shoe.draw()

    def wait_delivered(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while True:
            # Cleared before looking: an ACK read after the look sets it again. The
            # shoe calls `on_ack` holding its lock, so the look (which takes the lock)
            # sees the frame gone once the shoe has handled the ACK.
            self._news.clear()
            if self._delivered():
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._news.wait(min(left, self.poll_s))

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
