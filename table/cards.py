"""What cards are worth, shoe compositions and the inventory of what a shoe can still hold.

The card alphabet itself (codes, parsing) is `foundation.cards`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from foundation.cards import ALL_CARDS, TEN, CardError

TEN_VALUE_RANKS = frozenset("TJQK")
PICTURE_RANKS = frozenset("JQK")

IMPOSSIBLE_CARD = "IMPOSSIBLE_CARD"

# Shoe kinds: a standard pack has 52 cards; a Spanish pack has the four 10s removed.
STANDARD = "standard"
SPANISH = "spanish"
SHOE_KINDS = (STANDARD, SPANISH)

# Point value of each rank, the ace counted as 1 (a hand decides when it counts 11).
RANK_POINTS: dict[str, int] = {
    "A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
    "T": 10, "J": 10, "Q": 10, "K": 10,
}

# Card code -> points, for the hot path (one dict lookup per card).
CARD_POINTS: dict[str, int] = {card: RANK_POINTS[card[0]] for card in ALL_CARDS}


def rank(card: str) -> str:
    return card[0]


def suit(card: str) -> str:
    return card[1]


def points(card: str) -> int:
    """Point value with the ace as 1."""
    return CARD_POINTS[card]


def is_ten_value(card: str) -> bool:
    return card[0] in TEN_VALUE_RANKS


def pack_cards(kind: str) -> tuple[str, ...]:
    """The cards of one pack of the given kind."""
    if kind == STANDARD:
        return ALL_CARDS
    if kind == SPANISH:
        return tuple(card for card in ALL_CARDS if card[0] != TEN)
    raise CardError(f"unknown shoe kind {kind!r}: use one of {', '.join(SHOE_KINDS)}")


def shoe_composition(kind: str, decks: int) -> Counter[str]:
    """How many of each card a freshly loaded shoe of `decks` packs holds."""
    if decks < 1:
        raise CardError(f"a shoe needs at least one deck, got {decks}")
    return Counter({card: decks for card in pack_cards(kind)})


class ShoeInventory:
    """What the shoe can still hold: every card dealt (or burned) is taken out.

    A card whose count is already zero cannot come out of this shoe: the table
    flags it as IMPOSSIBLE_CARD.
    """

    __slots__ = ("kind", "decks", "_full", "_left", "_dealt")

    def __init__(self, kind: str, decks: int) -> None:
        self.kind = kind
        self.decks = decks
        self._full: dict[str, int] = dict(shoe_composition(kind, decks))
        self._left: dict[str, int] = dict(self._full)
        self._dealt = 0

    @property
    def size(self) -> int:
        return sum(self._full.values())

    @property
    def dealt(self) -> int:
        return self._dealt

    @property
    def remaining(self) -> int:
        return self.size - self._dealt

    def left(self, card: str) -> int:
        return self._left.get(card, 0)

    def can_hold(self, card: str) -> bool:
        return self._left.get(card, 0) > 0

    def take(self, card: str) -> None:
        """Count a card out of the shoe; refuse one it cannot hold."""
        left = self._left.get(card, 0)
        if left <= 0:
            raise CardError(f"{IMPOSSIBLE_CARD}: the shoe cannot hold another {card}")
        self._left[card] = left - 1
        self._dealt += 1

    def put_back(self, cards: Iterable[str]) -> None:
        """Return cards to the shoe (a one-pack game collects them after each deal)."""
        for card in cards:
            if self._left.get(card, 0) >= self._full.get(card, 0):
                raise CardError(f"{card} cannot go back: the shoe already holds all of them")
            self._left[card] += 1
            self._dealt -= 1

    def reload(self) -> None:
        """A freshly shuffled shoe is in: everything can come out again."""
        self._left = dict(self._full)
        self._dealt = 0

    def snapshot(self) -> dict[str, int]:
        return dict(self._left)
