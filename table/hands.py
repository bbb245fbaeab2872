"""Hand values: hard and soft totals, blackjack, pontoon and the five-card trick."""

from __future__ import annotations

from collections.abc import Sequence

from table.cards import CARD_POINTS, TEN_VALUE_RANKS


def hand_value(cards: Sequence[str]) -> tuple[int, bool]:
    """(total, soft): an ace counts 11 when that does not bust; soft when one does."""
    total = 0
    has_ace = False
    for card in cards:
        total += CARD_POINTS[card]
        if card[0] == "A":
            has_ace = True
    if has_ace and total <= 11:
        return total + 10, True
    return total, False


def hard_total(cards: Sequence[str]) -> int:
    """Total with every ace counted as one."""
    return sum(CARD_POINTS[card] for card in cards)


def best_total(cards: Sequence[str]) -> int:
    return hand_value(cards)[0]


def is_bust(cards: Sequence[str]) -> bool:
    return hard_total(cards) > 21


def is_natural(cards: Sequence[str]) -> bool:
    """Ace and a ten-value card as exactly two cards (blackjack, or pontoon)."""
    if len(cards) != 2:
        return False
    first, second = cards[0][0], cards[1][0]
    return (first == "A" and second in TEN_VALUE_RANKS) or (
        second == "A" and first in TEN_VALUE_RANKS
    )


def is_five_card_trick(cards: Sequence[str]) -> bool:
    """Five cards totalling 21 or less (pontoon)."""
    return len(cards) == 5 and hard_total(cards) <= 21


def is_pair(cards: Sequence[str], by_rank: bool) -> bool:
    """Two first cards that may be split: same rank, or same value when `by_rank` is False."""
    if len(cards) != 2:
        return False
    if by_rank:
        return cards[0][0] == cards[1][0]
    return CARD_POINTS[cards[0]] == CARD_POINTS[cards[1]]
