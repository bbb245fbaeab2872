"""The main game's expectation with every player card out of the shoe.

For each up card, every hand the player can hold (a multiset of card values)
gets the dealer's outcome probabilities on the shoe less the up card and all
of the hand's cards (`dealerbatch`, all hands at once), and the player's next
card comes from that shoe too. Decisions stay the strategy's (total,
card count, double open); only the expectations of following them change.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from houseedge.dealerbatch import dealer_batch
from houseedge.player import HandEV, Play, Policy
from houseedge.shoe import Counts

Multiset = tuple[int, ...]


@lru_cache(maxsize=4)
def hands_up_to(most: int) -> tuple[Multiset, ...]:
    """Every multiset of values 1-10 of two or more cards with hard total at most `most`."""
    out: list[Multiset] = []
    counts = [0] * 10

    def walk(start: int, size: int, total: int) -> None:
        if size >= 2:
            out.append(tuple(counts))
        for value in range(start, 11):
            if total + value <= most:
                counts[value - 1] += 1
                walk(value, size + 1, total + value)
                counts[value - 1] -= 1

    walk(1, 0, 0)
    return tuple(out)


def _probs(counts: np.ndarray) -> tuple[float, ...]:
    left = float(counts.sum())
    return tuple(float(c) / left for c in counts)


class RemovalTree:
    """Hand expectations for one up card, each hand on its own shoe."""

    def __init__(self, play: Play, shoe: Counts, up: int, hits_soft_17: bool, peek: bool,
                 policy: Policy) -> None:
        self.play = play
        self.policy = policy
        self.peek = peek
        base = np.array(shoe, dtype=np.int64)
        hands = [h for h in hands_up_to(21) if all(c <= b for c, b in zip(h, shoe, strict=True))]
        self.index = {h: k for k, h in enumerate(hands)}
        self.shoes = base[None, :] - np.array(hands, dtype=np.int64)
        self.p_nat, self.dist = dealer_batch(up, self.shoes, hits_soft_17)
        self.nodes: dict[Multiset, HandEV] = {}
        self.bust = HandEV(play, _probs(base), (0.0,) * 6, 0.0)

    def node(self, hand: Multiset) -> HandEV:
        found = self.nodes.get(hand)
        if found is not None:
            return found
        k = self.index.get(hand)
        if k is None:
            return self.bust
        d = self.dist[k]

        def child(value: int, hand: Multiset = hand) -> HandEV:
            grown = list(hand)
            grown[value - 1] += 1
            return self.node(tuple(grown))

        ev = HandEV(self.play, _probs(self.shoes[k]),
                    (float(d[0]), float(d[1]), float(d[2]), float(d[3]), float(d[4]), float(d[5])),
                    0.0 if self.peek else float(self.p_nat[k]), policy=self.policy, child=child)
        self.nodes[hand] = ev
        return ev

    def actions(self, i: int, j: int) -> dict[str, float]:
        """Expectations of the first actions (stand, hit, double) of the start i, j."""
        hand = [0] * 10
        hand[i - 1] += 1
        hand[j - 1] += 1
        return self.node(tuple(hand)).actions((i + j, 1 in (i, j), 2, 0))
