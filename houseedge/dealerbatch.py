"""Dealer outcome probabilities for many shoe compositions at once (numpy).

Every way the dealer can draw from an up card to a stop is listed once per
up card as a multiset of drawn values with its number of orders and its
outcome; the chance of one order on a shoe is a product of falling
factorials, the same for every order of the multiset. Outcomes 0-5 as in
`dealer` (17-21, bust), 6 a dealer natural.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]
NATURAL = 6


@lru_cache(maxsize=40)
def draw_table(up: int, hits_soft_17: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(drawn value counts D x 10, orders D, outcome D) of every dealer finish from `up`."""
    groups: dict[tuple[tuple[int, ...], int], int] = {}
    drawn = [0] * 10

    def walk(hard: int, ace: bool, cards: int) -> None:
        soft = ace and hard + 10 <= 21
        total = hard + 10 if soft else hard
        if hard > 21:
            outcome = 5
        elif cards == 2 and total == 21:
            outcome = NATURAL
        elif total >= 17 and not (hits_soft_17 and soft and total == 17):
            outcome = total - 17
        else:
            for value in range(1, 11):
                drawn[value - 1] += 1
                walk(hard + value, ace or value == 1, cards + 1)
                drawn[value - 1] -= 1
            return
        key = (tuple(drawn), outcome)
        groups[key] = groups.get(key, 0) + 1

    walk(up, up == 1, 1)
    keys = list(groups)
    counts = np.array([k[0] for k in keys], dtype=np.int64)
    orders = np.array([groups[k] for k in keys], dtype=np.float64)
    outcome = np.array([k[1] for k in keys], dtype=np.int64)
    return counts, orders, outcome


def dealer_batch(up: int, shoes: npt.NDArray[np.int64], hits_soft_17: bool,
                 chunk: int = 1024) -> tuple[Floats, Floats]:
    """(chance of a dealer natural, outcome distribution given none) for each shoe row.

    `shoes` holds value counts (aces first) with the up card already out. The
    products of falling factorials are sums of logarithms: one matrix product.
    """
    counts, orders, outcome = draw_table(up, hits_soft_17)
    most = int(counts.max()) + 1
    length = counts.sum(axis=1)
    # pick[(v, k), d] = 1 when multiset d draws k cards of value v.
    pick = np.zeros((10 * most, len(counts)))
    for v in range(10):
        pick[v * most + counts[:, v], np.arange(len(counts))] = 1.0
    longest = int(length.max()) + 1
    by_length = np.zeros((longest, len(counts)))
    by_length[length, np.arange(len(counts))] = 1.0
    onehot = np.zeros((len(outcome), 7))
    onehot[np.arange(len(outcome)), outcome] = 1.0
    log_orders = np.log(orders)
    p_nat = np.zeros(len(shoes))
    dist = np.zeros((len(shoes), 6))
    floor = -1e30
    for start in range(0, len(shoes), chunk):
        c = shoes[start:start + chunk].astype(np.float64)
        n = c.sum(axis=1)
        steps = np.arange(most, dtype=np.float64)
        factors = c[:, :, None] - steps[None, None, :]
        logs = np.where(factors > 0, np.log(np.maximum(factors, 1.0)), floor)
        log_falling = np.concatenate(
            [np.zeros((len(c), 10, 1)), np.cumsum(logs[:, :, :-1], axis=2)], axis=2)
        log_falling = np.maximum(log_falling, floor)
        k = np.arange(longest, dtype=np.float64)
        log_total = np.concatenate(
            [np.zeros((len(c), 1)), np.cumsum(np.log(n[:, None] - k[None, :-1]), axis=1)],
            axis=1)
        exponent = log_falling.reshape(len(c), -1) @ pick - log_total @ by_length + log_orders
        out = np.exp(exponent) @ onehot
        nat = out[:, NATURAL]
        p_nat[start:start + chunk] = nat
        dist[start:start + chunk] = out[:, :6] / (1.0 - nat)[:, None]
    return p_nat, dist
