"""Queens Trio on the box's first two cards and the dealer's first card."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from table.sidebets.base import ThreeCardBet, Win
from table.sidebets.odds import three_card_return


def pays(cards: Sequence[str]) -> Win | None:
    """Only the highest combination pays."""
    spades = sum(1 for card in cards if card == "QS")
    queens = sum(1 for card in cards if card[0] == "Q")
    if spades == 3:
        return Fraction(300), "queens three queens of spades 300:1"
    if queens == 3:
        return Fraction(50), "queens three queens 50:1"
    if spades == 2:
        return Fraction(20), "queens two queens of spades 20:1"
    if queens == 2:
        return Fraction(10), "queens two queens 10:1"
    if spades == 1:
        return Fraction(4), "queens one queen of spades 4:1"
    if queens == 1:
        return Fraction(2), "queens one queen 2:1"
    return None


def exact(cards: Sequence[str], copies: int) -> Fraction:
    return three_card_return(cards, copies, pays)


class QueensTrio(ThreeCardBet):
    spot = "queens"
    title = "queens trio"
    pay = staticmethod(pays)
    odds = staticmethod(exact)


BET = QueensTrio()
