"""What leaves a virtual shoe next: the cards loaded in it and the shoe
statuses (loaded, cut card, empty) it has to report, in order."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from firmware_bridge.shoelink.frames import ShoeEventCode
from foundation.cards import parse_card


class CardGate:
    """The shoe's cards and pending statuses; a dealer-paced gate lets a card out
    only for each `allow()`. Not thread-safe: the shoe holds its lock."""

    def __init__(self, cards: Iterable[str], cut_card_after: int | None, *,
                 dealer_paced: bool, announce_loaded: bool) -> None:
        self.dealer_paced = dealer_paced
        self.statuses: deque[ShoeEventCode] = deque()
        self.cards_dealt = 0
        self._draws_allowed = 0
        self._fill(cards, cut_card_after)
        if announce_loaded:
            self.statuses.append(ShoeEventCode.LOADED)

    def _fill(self, cards: Iterable[str], cut_card_after: int | None) -> None:
        self.cards: deque[str] = deque(parse_card(card) for card in cards)
        self.cut_card_after = cut_card_after
        self.index = 0  # cards drawn since this shoe was loaded
        self._empty_sent = False

    def load(self, cards: Iterable[str], cut_card_after: int | None) -> None:
        """A freshly shuffled shoe goes in: the cards left are taken out."""
        self._fill(cards, cut_card_after)
        self._draws_allowed = 0
        self.statuses.append(ShoeEventCode.LOADED)

    def restart(self, cards: Iterable[str] | None) -> None:
        """The firmware restarted: statuses not sent are forgotten; with `cards`,
        a new shoe is loaded."""
        self.statuses.clear()
        if cards is not None:
            self._fill(cards, None)
            self.statuses.append(ShoeEventCode.LOADED)

    def deal_more(self, cards: Iterable[str]) -> None:
        """Put more cards behind the ones still in the shoe."""
        self.cards.extend(parse_card(card) for card in cards)
        self._empty_sent = False

    def allow(self, count: int) -> None:
        self._draws_allowed += count

    def card_may_leave(self) -> bool:
        return bool(self.cards) and (not self.dealer_paced or self._draws_allowed > 0)

    def has_next(self) -> bool:
        return bool(self.statuses) or self.card_may_leave()

    def take_card(self) -> tuple[str, int]:
        """The next card and its index (the first of a shoe is 1)."""
        card = self.cards.popleft()
        self.index += 1
        return card, self.index

    def card_left(self) -> None:
        """The card taken is on its way: count it, and note a cut card or an empty shoe."""
        self.cards_dealt += 1
        if self.dealer_paced:
            self._draws_allowed -= 1
        if self.cut_card_after is not None and self.index == self.cut_card_after:
            self.statuses.append(ShoeEventCode.CUT_CARD)
        if not self.cards and not self._empty_sent:
            self._empty_sent = True
            self.statuses.append(ShoeEventCode.EMPTY)
