"""Sevens (ru-casino) on the box's first three cards; stakes `sevens_min` to `sevens_max`
in steps of `sevens_step` (profile keys). Settles with the round."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import product
from typing import TYPE_CHECKING

from table.cards import points
from table.sidebets.base import OddsInputs, Settles, Win
from table.sidebets.odds import EXACT

if TYPE_CHECKING:
    from table.profiles import Rules

THIRD_CARD_NOTE = "the third card comes when 7-7 is hit, doubled or split"


class Sevens:
    spot = "sevens"
    title = "sevens"
    games = ("casino",)
    settles: Settles = "end"
    depends_on_play = True
    needs_dealer_hand = False

    def stake_problem(self, rules: Rules, total: int) -> str | None:
        if rules.sevens_min <= total <= rules.sevens_max and total % rules.sevens_step == 0:
            return None
        return (f"sevens stakes are {rules.sevens_min} to {rules.sevens_max} "
                f"in steps of {rules.sevens_step}; {total} is not")

    def judge(self, rules: Rules, box_cards: Sequence[str],
              dealer_cards: Sequence[str]) -> Win | None:
        return pays(box_cards)

    def lost(self) -> str:
        return "sevens lost"

    def exact_return(self, inputs: OddsInputs) -> tuple[Fraction | float, str, str]:
        return exact(inputs.cards, inputs.copies, inputs.third_card), EXACT, THIRD_CARD_NOTE


def pays(box_cards: Sequence[str]) -> Win | None:
    """On the box's first three cards (or as many as it got)."""
    first = box_cards[:3]
    if not first or first[0][0] != "7":
        return None
    if len(first) >= 2 and first[1][0] == "7":
        if len(first) == 3 and first[2][0] == "7":
            if len({card[1] for card in first}) == 1:
                return Fraction(5000), "sevens three suited sevens 5000:1"
            return Fraction(500), "sevens three sevens 500:1"
        return Fraction(50), "sevens first two sevens 50:1"
    return Fraction(5), "sevens first card a seven 5:1"


def exact(cards: Sequence[str], copies: int, third_card: Callable[[str], float]) -> Fraction:
    """Expected net return per unit. `third_card(up_value)` is the chance the box takes a
    third card holding 7-7 against a dealer card of that value (1 for hit, double or
    split, 0 for stand or surrender). Sevens pays on the first card alone unless it is a
    seven, so only 7-7 starts need the third card; the dealer's card comes between."""
    size = len(cards) * copies
    two = Fraction(0)
    for a, b in product(cards, repeat=2):
        weight = Fraction(copies * (copies - (a == b)), size * (size - 1))
        if a[0] == "7" and b[0] == "7":
            continue
        result = pays([a, b])
        two += weight * (-1 if result is None else result[0])
    sevens = [c for c in cards if c[0] == "7"]
    three = Fraction(0)
    for a, b in product(sevens, repeat=2):
        w_ab = Fraction(copies * (copies - (a == b)), size * (size - 1))
        left = size - 2
        for up in cards:
            held = copies - (up == a) - (up == b)
            if held <= 0:
                continue
            w_up = Fraction(held, left)
            go = Fraction(third_card(str(points(up)))).limit_denominator(10**6)
            pay_two = pays([a, b])
            assert pay_two is not None
            if go == 0:
                three += w_ab * w_up * pay_two[0]
                continue
            pool = left - 1
            value = Fraction(0)
            for c in cards:
                held_c = copies - (c == a) - (c == b) - (c == up)
                if held_c <= 0:
                    continue
                result = pays([a, b, c])
                assert result is not None
                value += Fraction(held_c, pool) * result[0]
            three += w_ab * w_up * (go * value + (1 - go) * pay_two[0])
    return two + three


BET = Sevens()
