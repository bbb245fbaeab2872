"""Fast simulation of British pontoon: one punter against a banker who draws to 17.

A fresh pack every round (the table's inventory is the round's pack), dealt
punter, banker, punter, banker; the punter follows `pontoon.PontoonAnalysis`
(stick, twist, buy one or two stakes), the banker draws to 17 and stops at
five cards, settled as `table.settlement.settle_banker` does. Stakes of 10.
"""

from __future__ import annotations

import numpy as np

from houseedge.pontoon import BANKER_STANDS, PontoonAnalysis
from houseedge.sim import STAKE, VALUE, Ints, Record, SimOutcome, tops_of_shoes
from table.profiles import Rules

STICK, TWIST, BUY, BUY2 = 0, 1, 2, 3
CODES = {"S": STICK, "T": TWIST, "B": BUY, "B2": BUY2}


def policy_table(analysis: PontoonAnalysis) -> tuple[Ints, Ints]:
    """(first move by [hard, ace], later moves by [hard, ace, cards, stake units, cap])."""
    first = np.full((22, 2), TWIST, dtype=np.int64)
    for (row, _), move in analysis.chart.items():
        total = int(row[1:])
        if row[0] == "S":
            first[total - 10, 1] = CODES[move]
        else:
            first[total, 0] = CODES[move]
    later = np.full((32, 2, 6, 9, 3), STICK, dtype=np.int64)
    for (hard, ace, cards, stake, cap), move in analysis.later.items():
        if hard < 32 and cards < 6 and stake < 9:
            later[hard, int(ace), cards, stake, cap] = CODES[move]
    return first, later


def _best(hard: Ints, ace: Ints) -> Ints:
    return np.where(ace & (hard + 10 <= 21), hard + 10, hard)


def play_packs(rules: Rules, analysis: PontoonAnalysis, packs: Ints,
               records: list[Record]) -> SimOutcome:
    """One round off the top of each pack; record the first `len(records)` packs."""
    first, later = policy_table(analysis)
    m = len(packs)
    rows = np.arange(m)
    ptr = np.zeros(m, dtype=np.int64)

    def draw(idx: Ints) -> Ints:
        values = VALUE[packs[idx, ptr[idx]]]
        ptr[idx] += 1
        return values

    p1, b1, p2, b2 = draw(rows), draw(rows), draw(rows), draw(rows)
    hard, ace, cards = p1 + p2, (p1 == 1) | (p2 == 1), np.full(m, 2)
    units, cap = np.ones(m, dtype=np.int64), np.full(m, 2)
    bhard, bace, bcards = b1 + b2, (b1 == 1) | (b2 == 1), np.full(m, 2)
    banker_pontoon = bace & (bhard == 11)
    pontoon = ace & (hard == 11)
    playing = ~banker_pontoon & ~pontoon
    move = np.where(playing, first[np.minimum(hard, 21), ace.astype(np.int64)], STICK)
    while True:
        idx = rows[playing]
        if not len(idx):
            break
        mv = move[idx]
        total = _best(hard[idx], ace[idx])
        stick = (mv == STICK) & (total >= rules.stick_minimum)
        playing[idx[stick]] = False
        go = idx[~stick]
        mv = mv[~stick]
        units[go] += np.where(mv == BUY2, 2, np.where(mv == BUY, 1, 0))
        cap[go] = np.where(mv == BUY2, 2, np.where(mv == BUY, 1, 0))
        values = draw(go)
        hard[go] += values
        ace[go] |= values == 1
        cards[go] += 1
        total = _best(hard[go], ace[go])
        done = (hard[go] > 21) | (total == 21) | (cards[go] >= 5)
        playing[go[done]] = False
        on = go[~done]
        move[on] = later[hard[on], ace[on].astype(np.int64), cards[on], units[on], cap[on]]
    bust = hard > 21
    banker_plays = ~banker_pontoon & ~bust
    while True:
        idx = rows[banker_plays]
        idx = idx[(_best(bhard[idx], bace[idx]) < BANKER_STANDS) & (bhard[idx] <= 21)
                  & (bcards[idx] < 5)]
        if not len(idx):
            break
        values = draw(idx)
        bhard[idx] += values
        bace[idx] |= values == 1
        bcards[idx] += 1
    stake = units * STAKE
    total = _best(hard, ace)
    trick = ~bust & (cards >= 5)
    klass = np.where(pontoon, 4, np.where(trick, 3, np.where(total == 21, 2, 1)))
    odds = np.where(klass >= 3, 2, 1)
    btotal = _best(bhard, bace)
    bbust = bhard > 21
    btrick = ~bbust & (bcards >= 5)
    bclass = np.where(btotal == 21, 2, 1)
    higher = (klass > bclass) | ((klass == bclass) & (total > btotal))
    net = np.where(higher, stake * odds, -stake)
    net = np.where(btrick, np.where(klass >= 4, stake * odds,
                                    -stake * rules.banker_trick_collects), net)
    net = np.where(bbust, stake * odds, net)
    net = np.where(bust, -stake, net)
    net = np.where(banker_pontoon, -2 * stake, net)
    for lane, rec in enumerate(records):
        rec.cards.append(int(ptr[lane]))
        rec.hands.append([int(net[lane])])
        rec.sides.append({})
    main = net.astype(np.float64)
    return SimOutcome(m, float(main.sum()), float((main * main).sum()), {}, {})


def simulate_banker_game(rules: Rules, analysis: PontoonAnalysis, hands: int, seed: int = 1,
                         lanes: int = 100_000) -> SimOutcome:
    rng = np.random.default_rng(seed)
    total = SimOutcome(0, 0.0, 0.0, {}, {})
    while total.rounds < hands:
        out = play_packs(rules, analysis, tops_of_shoes(rules, lanes, rng, cards=12), [])
        total.rounds += out.rounds
        total.main_sum += out.main_sum
        total.main_sq += out.main_sq
    return total
