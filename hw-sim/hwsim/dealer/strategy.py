"""The players' and the banker's play: a compact basic strategy, by rule, no randomness.

Each function gets the hand, the dealer's first card and the legal actions,
and returns one action; "hit" means: take a card (the dealer simply draws).
"""

from __future__ import annotations

from collections.abc import Sequence

from table.cards import CARD_POINTS
from table.hands import hand_value, hard_total

HIT = "hit"
STAND = "stand"
DOUBLE = "double"
SPLIT = "split"
SURRENDER = "surrender"
BUY = "buy"
TWIST = "twist"


def up_value(card: str) -> int:
    """The dealer's first card as strategy tables count it: 2-10, the ace 11."""
    return 11 if card[0] == "A" else CARD_POINTS[card]


def _wants_split(rank_value: int, up: int) -> bool:
    if rank_value == 11:  # aces
        return up <= 10
    if rank_value == 8:
        return up <= 9
    if rank_value == 9:
        return up in (2, 3, 4, 5, 6, 8, 9)
    if rank_value in (2, 3, 7):
        return up <= 7
    if rank_value == 6:
        return up <= 6
    if rank_value == 4:
        return up in (5, 6)
    return False  # fives play as ten, ten-values stay together


def _wants_surrender(total: int, soft: bool, up: int) -> bool:
    return not soft and (total == 16 and up >= 9 or total == 15 and up == 10)


def _soft_choice(total: int, up: int) -> str:
    if total >= 19:
        return STAND
    if total == 18:
        if 3 <= up <= 6:
            return DOUBLE
        return STAND if up <= 8 else HIT
    if total == 17 and 3 <= up <= 6:
        return DOUBLE
    if total in (15, 16) and 4 <= up <= 6:
        return DOUBLE
    if total in (13, 14) and 5 <= up <= 6:
        return DOUBLE
    return HIT


def _hard_choice(total: int, up: int, cards: int) -> str:
    if total >= 17:
        return STAND
    if total >= 13:
        return STAND if up <= 6 else HIT
    if total == 12:
        return STAND if 4 <= up <= 6 else HIT
    if total == 11 and cards == 2:
        return DOUBLE if up <= 10 else HIT
    if total == 10 and cards == 2:
        return DOUBLE if up <= 9 else HIT
    if total == 9 and cards == 2:
        return DOUBLE if 3 <= up <= 6 else HIT
    return HIT


def basic_strategy(cards: Sequence[str], dealer_up: str, actions: Sequence[str]) -> str:
    """Hard, soft and pair strategy for the casino games; only actions in `actions`."""
    up = up_value(dealer_up)
    total, soft = hand_value(cards)
    if SURRENDER in actions and _wants_surrender(total, soft, up):
        return SURRENDER
    if SPLIT in actions and len(cards) == 2:
        first = up_value(cards[0])
        if first == up_value(cards[1]) and _wants_split(first, up):
            return SPLIT
    choice = _soft_choice(total, up) if soft else _hard_choice(total, up, len(cards))
    if choice == DOUBLE and DOUBLE not in actions:
        choice = STAND if soft and total == 18 else HIT
    if choice == HIT and HIT not in actions:
        choice = STAND
    return choice


def pontoon_choice(cards: Sequence[str], actions: Sequence[str], stick_minimum: int) -> str:
    """British pontoon: split aces and eights, buy while the hand cannot bust, twist
    below the stick line and on soft hands, stick on a good total."""
    total, soft = hand_value(cards)
    if SPLIT in actions and len(cards) == 2 and cards[0][0] in "A8":
        return SPLIT
    can_draw = BUY in actions or TWIST in actions
    if STAND in actions and total >= stick_minimum:
        good = total >= 18 if soft else total >= 16
        if good or not can_draw:
            return STAND
    if BUY in actions and hard_total(cards) <= 11:
        return BUY
    if TWIST in actions:
        return TWIST
    if BUY in actions:
        return BUY
    return STAND


def banker_draws(cards: Sequence[str]) -> bool:
    """The banker plays at will; this one draws below 17 and then stands."""
    return hand_value(cards)[0] < 17
