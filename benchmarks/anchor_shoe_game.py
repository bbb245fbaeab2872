"""The main-game anchors played as a shoe game, to the cut card.

    python benchmarks/anchor_shoe_game.py [--decks 6 8] [--hands N] [--penetration P]

The combinatorial analysis computes the edge of a round off the top of a full
shoe. Published shoe simulations deal to a cut card, which costs the player a
little more (the cut-card effect); the issue's anchors are quoted that way:
6 decks 0.51-0.55%, 8 decks 0.56-0.57% (S17, DAS, ENHC, resplit to 4 hands,
no resplitting aces, 3:2). Prints, per deck count, the analysis off the top
and the simulated shoe game with its standard error.
"""

from __future__ import annotations

import argparse
import time

from houseedge.mainbet import analyse
from houseedge.simulate import simulate
from table.profiles import load_profile

QUOTED = {6: (0.51, 0.55), 8: (0.56, 0.57)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--decks", type=int, nargs="+", default=[8, 6])
    parser.add_argument("--hands", type=int, default=100_000_000)
    parser.add_argument("--penetration", type=float, default=0.75)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    for decks in args.decks:
        rules = load_profile("st-moritz", {"triple_seven": "none", "decks": decks})
        analysis = analyse(rules)
        start, cpu = time.perf_counter(), time.process_time()
        out = simulate(rules, analysis, args.hands, seed=args.seed,
                       penetration=args.penetration)
        edge, stderr = -100 * out.mean(), 100 * out.stderr()
        low, high = QUOTED.get(decks, (float("nan"), float("nan")))
        print(f"{decks} decks: analysis off the top {100 * analysis.house_edge:.4f}%; "
              f"shoe game to {args.penetration:.0%} penetration, {out.rounds:,} rounds: "
              f"{edge:.4f}% ± {stderr:.4f}% (s.e.); quoted {low}-{high}%; "
              f"{time.process_time() - cpu:.0f} CPU s, {time.perf_counter() - start:.0f} s",
              flush=True)


if __name__ == "__main__":
    main()
