"""21+3: the box's first two cards and the dealer's first card as a three-card poker hand.

Suited three of a kind 100:1, straight flush 40:1, three of a kind 30:1, straight 10:1,
flush 5:1; only the highest pays. An ace is high or low (A-2-3 and Q-K-A are straights,
K-A-2 is not). Any casino profile may offer it: `side_bets = [..., "21+3"]`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import comb
from typing import TYPE_CHECKING

from table.sidebets.base import DealtBet, OddsInputs, Win
from table.sidebets.odds import EXACT

if TYPE_CHECKING:
    from table.profiles import Rules

ORDER = "A23456789TJQK"
# Three ranks in a row, the ace low (A-2-3) and high (Q-K-A).
RUNS = [frozenset(ORDER[i:i + 3]) for i in range(11)] + [frozenset("QKA")]
SUITED_TRIPS, STRAIGHT_FLUSH, THREE_OF_A_KIND, STRAIGHT, FLUSH = (
    "suited three of a kind", "straight flush", "three of a kind", "straight", "flush")
PAYS = {SUITED_TRIPS: 100, STRAIGHT_FLUSH: 40, THREE_OF_A_KIND: 30, STRAIGHT: 10, FLUSH: 5}


class TwentyOneThree(DealtBet):
    spot = "21+3"
    title = "21+3"

    def judge(self, rules: Rules, box_cards: Sequence[str],
              dealer_cards: Sequence[str]) -> Win | None:
        hand = hand_of([box_cards[0], box_cards[1], dealer_cards[0]], PAYS)
        if hand is None:
            return None
        return Fraction(PAYS[hand]), f"21+3 {hand} {PAYS[hand]}:1"

    def exact_return(self, inputs: OddsInputs) -> tuple[Fraction | float, str, str]:
        return exact(inputs.cards, inputs.copies, PAYS), EXACT, ""


def hand_of(cards: Sequence[str], pays: dict[str, int]) -> str | None:
    """The highest hand of the pay table `pays` the three cards make, or None."""
    ranks = {card[0] for card in cards}
    suited = len({card[1] for card in cards}) == 1
    run = len(ranks) == 3 and frozenset(ranks) in RUNS
    for name, made in ((SUITED_TRIPS, suited and len(ranks) == 1),
                       (STRAIGHT_FLUSH, suited and run),
                       (THREE_OF_A_KIND, len(ranks) == 1),
                       (STRAIGHT, run),
                       (FLUSH, suited)):
        if made and name in pays:
            return name
    return None


def hand_counts(cards: Sequence[str], copies: int) -> dict[str, int]:
    """How many three-card hands (cards told apart, order aside) of a shoe holding every
    code of `cards` `copies` times are each hand, the highest only; "nothing" the rest."""
    by_rank: dict[str, int] = {}
    by_suit: dict[str, int] = {}
    for card in cards:
        by_rank[card[0]] = by_rank.get(card[0], 0) + copies
        by_suit[card[1]] = by_suit.get(card[1], 0) + copies
    present = set(cards)
    suited_trips = len(present) * comb(copies, 3)
    trips = sum(comb(n, 3) for n in by_rank.values())
    runs = [sorted(run) for run in RUNS if run <= by_rank.keys()]
    straights = sum(by_rank[a] * by_rank[b] * by_rank[c] for a, b, c in runs)
    straight_flushes = sum(copies ** 3 for a, b, c in runs for suit in by_suit
                           if {a + suit, b + suit, c + suit} <= present)
    flushes = sum(comb(n, 3) for n in by_suit.values())
    counts = {
        SUITED_TRIPS: suited_trips,
        STRAIGHT_FLUSH: straight_flushes,
        THREE_OF_A_KIND: trips - suited_trips,
        STRAIGHT: straights - straight_flushes,
        FLUSH: flushes - straight_flushes - suited_trips,
    }
    counts["nothing"] = comb(len(cards) * copies, 3) - sum(counts.values())
    return counts


def exact(cards: Sequence[str], copies: int, pays: dict[str, int]) -> Fraction:
    """Expected net return per unit under the pay table `pays` (to one; a hand it does
    not list loses)."""
    counts = hand_counts(cards, copies)
    total = sum(counts.values())
    net = sum(count * pays[name] if name in pays else -count
              for name, count in counts.items())
    return Fraction(net, total)


BET = TwentyOneThree()
