"""Exact returns of bets settled on the first cards, by enumerating a shoe's cards."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import product

EXACT = "exact combinatorics"

Pay = Callable[[Sequence[str]], int | Fraction | None]


def ordered_return(cards: Sequence[str], copies: int, k: int, pay: Pay) -> Fraction:
    """Expected net return of a bet paid `pay(cards):1` on k cards in dealing order,
    drawn without replacement from a shoe holding each card code `copies` times."""
    size = len(cards) * copies
    total: int | Fraction = 0
    for combo in product(cards, repeat=k):
        weight = 1
        seen: dict[str, int] = {}
        for card in combo:
            held = copies - seen.get(card, 0)
            if held <= 0:
                weight = 0
                break
            weight *= held
            seen[card] = seen.get(card, 0) + 1
        if not weight:
            continue
        odds = pay(combo)
        total += weight * (-1 if odds is None else odds)
    ways = 1
    for i in range(k):
        ways *= size - i
    return Fraction(total) / ways


def three_card_return(cards: Sequence[str], copies: int,
                      pays: Callable[[Sequence[str]], tuple[Fraction, str] | None]) -> Fraction:
    """Expected net return per unit of a bet on the box's two cards and the dealer's
    first, paid by `pays` (odds and name, or None): the three cards are a random draw
    whichever order they come in, so the box's two are the first two and the dealer's
    the third."""
    def pay(three: Sequence[str]) -> Fraction | None:
        win = pays(three)
        return None if win is None else win[0]
    return ordered_return(cards, copies, 3, pay)
