"""Shoe compositions by point value (ace = 1, ten-value = 10) and by card."""

from __future__ import annotations

from dataclasses import dataclass

from table.cards import pack_cards
from table.profiles import Rules

# Index 0 holds the aces, index 9 the ten-value cards.
Counts = tuple[int, ...]


def card_value(card: str) -> int:
    """Point value 1-10 of a card code ('AS' -> 1, 'KD' -> 10)."""
    r = card[0]
    if r == "A":
        return 1
    if r in "TJQK":
        return 10
    return int(r)


@dataclass(frozen=True, slots=True)
class Shoe:
    """A freshly loaded shoe: every card code with how many copies it holds."""

    kind: str
    decks: int

    @property
    def cards(self) -> tuple[str, ...]:
        return pack_cards(self.kind)

    @property
    def size(self) -> int:
        return len(self.cards) * self.decks

    def counts(self) -> Counts:
        """Cards of each point value, aces first."""
        out = [0] * 10
        for card in self.cards:
            out[card_value(card) - 1] += self.decks
        return tuple(out)


def shoe_of(rules: Rules, decks: int | None = None) -> Shoe:
    return Shoe(rules.shoe, rules.decks if decks is None else decks)


def remove(counts: Counts, *values: int) -> Counts:
    """The counts with one card of each given point value taken out."""
    out = list(counts)
    for value in values:
        if out[value - 1] <= 0:
            raise ValueError(f"no card of value {value} left to remove")
        out[value - 1] -= 1
    return tuple(out)
