"""Simulator rules of the Spanish-21 family: a 21 paid at once with its bonus, and what a
dealer natural found at the end takes when it does not take everything."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from houseedge.sim import PAID, RANK, STAKE, STOOD, SUIT, Ints

if TYPE_CHECKING:
    from houseedge.simround import Round

SEVEN, SIX, EIGHT = 6, 5, 7  # indices in foundation.cards.RANKS


def _win(stake: Ints, num: int, den: int) -> Ints:
    return (stake * num) // den


def pay_21_at_once(rnd: Round, idx: Ints, slot: int) -> None:
    """A hand reaching 21 is paid at once (see Table._pay_21_now)."""
    if not len(idx):
        return
    rules = rnd.g.rules
    stake = rnd.stake[idx, slot]
    win = stake.copy()
    if rules.pontoon_bonuses:
        plain = stake == STAKE
        n = rnd.n[idx, slot]
        win = np.where(plain & (n == 5), _win(stake, 3, 2), win)
        win = np.where(plain & (n == 6), _win(stake, 2, 1), win)
        win = np.where(plain & (n >= 7), _win(stake, 3, 1), win)
        codes = rnd.cards3[idx, slot]
        ranks = np.sort(RANK[np.maximum(codes, 0)], axis=1)
        suits = SUIT[np.maximum(codes, 0)]
        three = plain & (n == 3)
        trio = (((ranks[:, 0] == SIX) & (ranks[:, 1] == SEVEN) & (ranks[:, 2] == EIGHT))
                | ((ranks[:, 0] == SEVEN) & (ranks[:, 2] == SEVEN))) & three
        same = (suits[:, 0] == suits[:, 1]) & (suits[:, 1] == suits[:, 2])
        spades = same & (suits[:, 0] == 0)
        odds_win = np.where(spades, _win(stake, 3, 1),
                            np.where(same, _win(stake, 2, 1), _win(stake, 3, 2)))
        win = np.where(trio, odds_win, win)
        sevens = trio & (ranks[:, 0] == SEVEN)
        up_seven = RANK[rnd.dealer[0][idx]] == SEVEN
        superb = sevens & same & up_seven & ~rnd.split[idx] & (stake >= rules.super_bonus_min_stake)
        fixed = np.where(stake >= rules.super_bonus_large_from, rules.super_bonus_large,
                         rules.super_bonus_small)
        win = np.where(superb, fixed, win)
    rnd.status[idx, slot] = PAID
    rnd.net[idx, slot] = win


def natural_takes(takes: str, status: Ints, stake: Ints, net: Ints, natural: Ints) -> Ints:
    """Stakes still standing against a dealer natural: `obo`, `bb+1` or `obbo` (one box,
    original stake STAKE), taken from the hands in order (see settlement)."""
    out = net.copy()
    live = (status == STOOD) & natural[:, None]
    remaining = np.where(live, stake, 0).sum(axis=1)
    busted = np.where(status == 2, stake, 0).sum(axis=1)
    if takes == "obo":
        loss = np.minimum(remaining, np.maximum(0, STAKE - busted))
    elif takes == "bb+1":
        loss = np.minimum(remaining, STAKE)
    else:
        loss = np.minimum(remaining, STAKE * live.sum(axis=1))
    for slot in range(status.shape[1]):
        lost = np.where(live[:, slot], np.minimum(stake[:, slot], loss), 0)
        loss = loss - lost
        out[:, slot] = np.where(live[:, slot], -lost, out[:, slot])
    return out
