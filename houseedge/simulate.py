"""Run the fast simulator for a number of hands; its figures for `tablectl rtp`."""

from __future__ import annotations

import numpy as np

from houseedge.bets import SIM, STRATEGY, BetFigure
from houseedge.mainbet import Analysis
from houseedge.sim import STAKE, Record, SimOutcome, check_supported, new_shoes, tops_of_shoes
from houseedge.simround import Game, Round
from table.profiles import Rules

PENETRATION = 0.75


def cut_of(size: int, penetration: float = PENETRATION) -> int:
    """Rounds start while fewer than this many cards are out (room left for the longest round)."""
    return min(int(size * penetration), size - 60)


def play_shoes(rules: Rules, analysis: Analysis, shoes: np.ndarray, records: list[Record],
               penetration: float = PENETRATION) -> SimOutcome:
    """Play every lane's shoe to its cut card; record the first `len(records)` lanes."""
    game = Game(rules, analysis, shoes)
    cut = 1 if penetration == 0 else cut_of(game.size, penetration)
    if cut <= 0:
        raise ValueError(f"{rules.decks} deck(s) are too few for the simulator; use 2 or more")
    out = SimOutcome(0, 0.0, 0.0, {}, {})
    while True:
        lanes = np.nonzero(game.ptr < cut)[0]
        if not len(lanes):
            break
        start = game.ptr[lanes].copy()
        rnd = Round(game, lanes)
        rnd.play()
        if records:
            rnd.record(records, start)
        out.rounds += len(lanes)
        main = rnd.main.astype(np.float64)
        out.main_sum += float(main.sum())
        out.main_sq += float((main * main).sum())
        for spot, values in rnd.sides.items():
            v = values.astype(np.float64)
            out.side_sum[spot] = out.side_sum.get(spot, 0.0) + float(v.sum())
            out.side_sq[spot] = out.side_sq.get(spot, 0.0) + float((v * v).sum())
    return out


def simulate(rules: Rules, analysis: Analysis, hands: int, seed: int = 1,
             lanes: int = 20_000, penetration: float = PENETRATION) -> SimOutcome:
    """At least `hands` rounds of one box, in batches of `lanes` shoes.

    Penetration 0 plays one round off the top of each shoe: the game the
    combinatorial analysis computes, without the cut card's effect.
    """
    check_supported(rules)
    rng = np.random.default_rng(seed)
    total = SimOutcome(0, 0.0, 0.0, {}, {})
    while total.rounds < hands:
        shoes = (tops_of_shoes(rules, lanes * 10, rng) if penetration == 0
                 else new_shoes(rules, lanes, rng))
        batch = play_shoes(rules, analysis, shoes, [], penetration)
        total.rounds += batch.rounds
        total.main_sum += batch.main_sum
        total.main_sq += batch.main_sq
        for spot in batch.side_sum:
            total.side_sum[spot] = total.side_sum.get(spot, 0.0) + batch.side_sum[spot]
            total.side_sq[spot] = total.side_sq.get(spot, 0.0) + batch.side_sq[spot]
    return total


def banker_game_figures(rules: Rules, hands: int, seed: int) -> list[BetFigure]:
    """British pontoon: the punter against the banker rule, one pack per round."""
    from houseedge.pontoon import analyse_banker_game
    from houseedge.simpontoon import simulate_banker_game

    out = simulate_banker_game(rules, analyse_banker_game(rules), hands, seed)
    mean = out.mean()
    return [BetFigure("main (punter against the banker)", -mean, 1 + mean, SIM, out.stderr(),
                      out.rounds, None, f"a fresh pack every round, stake {STAKE}")]


def simulated_figures(rules: Rules, analysis: Analysis, hands: int,
                      seed: int) -> list[BetFigure]:
    """A casino profile's main game and play-dependent bets, simulated."""
    out = simulate(rules, analysis, hands, seed)
    names = {"main": "main", "dealer_bust": "dealer bust", "pair": "pair"}
    figures = []
    for spot in ["main", *sorted(out.side_sum)]:
        mean = out.mean(spot)
        figures.append(BetFigure(names.get(spot, spot), -mean, 1 + mean, SIM, out.stderr(spot),
                                 out.rounds, STRATEGY if spot == "main" else None,
                                 f"{int(PENETRATION * 100)}% penetration, one box, stake "
                                 f"{STAKE} rounded down like the table"))
    return figures
