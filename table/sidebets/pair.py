"""Pair: the box's first two cards of the same rank pay `pair_pays`:1 (profile key)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from table.sidebets.base import DealtBet, OddsInputs, Win
from table.sidebets.odds import EXACT, ordered_return

if TYPE_CHECKING:
    from table.profiles import Rules


class Pair(DealtBet):
    spot = "pair"
    title = "pair"

    def judge(self, rules: Rules, box_cards: Sequence[str],
              dealer_cards: Sequence[str]) -> Win | None:
        return pays(box_cards, rules.pair_pays)

    def exact_return(self, inputs: OddsInputs) -> tuple[Fraction | float, str, str]:
        return exact(inputs.cards, inputs.copies, inputs.rules.pair_pays), EXACT, ""


def pays(box_cards: Sequence[str], odds: int) -> Win | None:
    if box_cards[0][0] == box_cards[1][0]:
        return Fraction(odds), f"pair {odds}:1"
    return None


def exact(cards: Sequence[str], copies: int, odds: int) -> Fraction:
    """The pair bet's expected net return per unit on a fresh shoe."""
    def pay(two: Sequence[str]) -> Fraction | None:
        win = pays(two, odds)
        return None if win is None else win[0]
    return ordered_return(cards, copies, 2, pay)


BET = Pair()
