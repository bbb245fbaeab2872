"""3 Card Wins on the box's first two cards and the dealer's first card."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from table.sidebets.base import ThreeCardBet, Win
from table.sidebets.odds import three_card_return


def pays(cards: Sequence[str]) -> Win | None:
    """The box's two cards and the dealer's first card (highest combination only)."""
    if all(card == "AS" for card in cards):
        return Fraction(300), "3cw three aces of spades 300:1"
    if all(card[0] == "J" and card[1] in "HD" for card in cards):
        return Fraction(200), "3cw three red jacks 200:1"
    if len({card[0] for card in cards}) == 1:
        return Fraction(50), "3cw three of a kind 50:1"
    if all(card[1] in "SC" for card in cards):
        return Fraction(4), "3cw three black cards 4:1"
    return None


def exact(cards: Sequence[str], copies: int) -> Fraction:
    return three_card_return(cards, copies, pays)


class ThreeCardWins(ThreeCardBet):
    spot = "3cw"
    title = "3 card wins"
    pay = staticmethod(pays)
    odds = staticmethod(exact)


BET = ThreeCardWins()
