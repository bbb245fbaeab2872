"""Dealer outcome probabilities on a finite shoe, every draw removing its card.

Outcomes are indexed 0-5: a final 17, 18, 19, 20, 21 (not a natural) and bust.
"""

from __future__ import annotations

from functools import lru_cache

from houseedge.shoe import Counts, remove

OUTCOMES = ("17", "18", "19", "20", "21", "bust")
BUST = 5

Dist = tuple[float, float, float, float, float, float]


@lru_cache(maxsize=400_000)
def finish(hard: int, ace: bool, counts: Counts, hits_soft_17: bool) -> Dist:
    """Final outcome distribution of a dealer hand (hard total, holds an ace) drawing on."""
    if hard > 21:
        return (0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
    soft = ace and hard + 10 <= 21
    total = hard + 10 if soft else hard
    if total >= 17 and not (hits_soft_17 and soft and total == 17):
        out = [0.0] * 6
        out[total - 17] = 1.0
        return (out[0], out[1], out[2], out[3], out[4], out[5])
    left = sum(counts)
    acc = [0.0] * 6
    for index, count in enumerate(counts):
        if not count:
            continue
        value = index + 1
        sub = finish(hard + value, ace or value == 1, remove(counts, value), hits_soft_17)
        weight = count / left
        for k in range(6):
            acc[k] += weight * sub[k]
    return (acc[0], acc[1], acc[2], acc[3], acc[4], acc[5])


def natural_chance(up: int, counts: Counts) -> float:
    """Chance that the dealer's second card makes a natural, the up card already out."""
    left = sum(counts)
    if up == 1:
        return counts[9] / left
    if up == 10:
        return counts[0] / left
    return 0.0


def after_up(up: int, counts: Counts, hits_soft_17: bool) -> tuple[float, Dist]:
    """(chance of a dealer natural, outcome distribution given no natural).

    `counts` is the shoe with the up card (and any player cards) already out.
    """
    left = sum(counts)
    acc = [0.0] * 6
    p_natural = 0.0
    for index, count in enumerate(counts):
        if not count:
            continue
        value = index + 1
        weight = count / left
        if {up, value} == {1, 10}:
            p_natural += weight
            continue
        sub = finish(up + value, up == 1 or value == 1, remove(counts, value), hits_soft_17)
        for k in range(6):
            acc[k] += weight * sub[k]
    rest = 1.0 - p_natural
    dist = tuple(a / rest for a in acc)
    return p_natural, (dist[0], dist[1], dist[2], dist[3], dist[4], dist[5])


def off_the_top(counts: Counts, hits_soft_17: bool) -> Dist:
    """The dealer's outcome distribution from a full shoe (a natural counts as 21)."""
    return finish(0, False, counts, hits_soft_17)
