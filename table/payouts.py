"""Pay tables of the main bet: ratios and hand bonuses, as pure functions (side bets are
in `table.sidebets`).

Every function returns the ratio that applies (or None) and a short name of
the rule, so the settlement can show which rule paid.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from table.hands import hard_total


def ratio(text: str) -> Fraction:
    """'3:2' -> 3/2."""
    win, stake = text.split(":")
    return Fraction(int(win), int(stake))


def win_amount(stake: int, odds: Fraction) -> int:
    """The win on `stake` at `odds`, rounded down to a whole unit."""
    return (stake * odds.numerator) // odds.denominator


def sevens_prize(cards: Sequence[str]) -> tuple[Fraction, str] | None:
    """ru-casino prize combinations on the main bet (highest only)."""
    if len(cards) >= 3 and all(card[0] == "7" for card in cards[:3]):
        if len({card[1] for card in cards[:3]}) == 1:
            return Fraction(2), "prize 7-7-7 one suit 2:1"
        return Fraction(1), "prize 7-7-7 1:1"
    if len(cards) >= 2 and cards[0][0] == "7" and cards[1][0] == "7" and cards[0][1] == cards[1][1]:
        return Fraction(1, 2), "prize 7-7 one suit 1:2"
    return None


def is_triple_seven(cards: Sequence[str]) -> bool:
    return len(cards) == 3 and all(card[0] == "7" for card in cards)


def pontoon_21_bonus(cards: Sequence[str]) -> tuple[Fraction, str] | None:
    """Spanish-21 family bonus on a 21 (highest only)."""
    best: tuple[Fraction, str] | None = None

    def consider(odds: Fraction, name: str) -> None:
        nonlocal best
        if best is None or odds > best[0]:
            best = (odds, name)

    count = len(cards)
    if count == 5:
        consider(Fraction(3, 2), "five-card 21 3:2")
    elif count == 6:
        consider(Fraction(2), "six-card 21 2:1")
    elif count >= 7:
        consider(Fraction(3), "seven-card 21 3:1")
    if count == 3:
        ranks = sorted(card[0] for card in cards)
        if ranks == ["6", "7", "8"] or ranks == ["7", "7", "7"]:
            name = "-".join(ranks)
            suits = {card[1] for card in cards}
            if suits == {"S"}:
                consider(Fraction(3), f"{name} spades 3:1")
            elif len(suits) == 1:
                consider(Fraction(2), f"{name} suited 2:1")
            else:
                consider(Fraction(3, 2), f"{name} mixed 3:2")
    return best


def is_super_bonus(cards: Sequence[str], dealer_up: str) -> bool:
    """Suited 7-7-7 while the dealer's first card is a seven."""
    return (
        len(cards) == 3
        and all(card[0] == "7" for card in cards)
        and len({card[1] for card in cards}) == 1
        and dealer_up[0] == "7"
    )


def bonus_blackjack(cards: Sequence[str]) -> bool:
    """Ace and jack of spades as the first two cards."""
    return len(cards) == 2 and set(cards) == {"AS", "JS"}


def pontoon_rank(cards: Sequence[str], natural: bool, royal: bool = False) -> tuple[int, int]:
    """British pontoon hand rank: (class, total); bust is (0, 0).

    Classes: 5 royal pontoon (three 7s, when the table plays it), 4 pontoon, 3 five-card
    trick, 2 twenty-one in 3-4 cards, 1 anything else.
    """
    from table.hands import best_total

    if hard_total(cards) > 21:
        return 0, 0
    if royal and is_triple_seven(cards):
        return 5, 21
    if natural:
        return 4, 21
    if len(cards) >= 5:
        return 3, best_total(cards)
    total = best_total(cards)
    if total == 21:
        return 2, 21
    return 1, total
