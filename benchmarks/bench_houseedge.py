"""House-edge figures: simulator speed, `tablectl rtp` time, the full engine cross-check.

    python benchmarks/bench_houseedge.py [--hands N] [--cross-rounds N] [--profile NAME]

Prints hands per second of the fast simulator on one core (target: 1,000,000),
the time of the exact and combinatorial figures of each profile (target:
30 s), the simulated edge against the analysis (within the 95% interval) and
the engine cross-check on identical shoes (target: 100,000 rounds per
profile, every hand and payout equal).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from houseedge.bets import bet_figures
from houseedge.crosscheck import cross_check
from houseedge.crosspontoon import cross_check_banker_game
from houseedge.mainbet import analyse
from houseedge.pontoon import analyse_banker_game
from houseedge.simpontoon import simulate_banker_game
from houseedge.simulate import simulate
from table.profiles import Rules, list_profiles, load_profile

SIMULATED = (
    "casinos-austria", "live-studio", "pontoon-online", "pontoon-sydney", "ru-casino",
    "st-moritz", "st-moritz-65",
)


def bench_banker_game(rules: Rules, hands: int, cross_rounds: int) -> None:
    start = time.perf_counter()
    game = analyse_banker_game(rules)
    print(f"{rules.name}: punter against a banker drawing to 17, analysis in "
          f"{time.perf_counter() - start:.1f} s: return {100 * game.ev:+.4f}%")
    start, cpu = time.perf_counter(), time.process_time()
    out = simulate_banker_game(rules, game, hands, seed=1)
    took, used = time.perf_counter() - start, time.process_time() - cpu
    inside = abs(out.mean() - game.ev) <= 1.96 * out.stderr()
    print(f"  simulator: {out.rounds:,} hands, {out.rounds / used:,.0f} hands per CPU second "
          f"({out.rounds / took:,.0f} per wall second); return {100 * out.mean():+.4f}% "
          f"± {196 * out.stderr():.4f}% (95%); analysis "
          f"{'inside' if inside else 'OUTSIDE'} the interval")
    start = time.perf_counter()
    check = cross_check_banker_game(rules, game, cross_rounds, seed=17)
    print(f"  engine cross-check: {check.rounds:,} rounds, {len(check.differences)} "
          f"differences ({time.perf_counter() - start:.0f} s)")
    for line in check.differences[:5]:
        print(f"    {line}")


def bench_casino_game(rules: Rules, hands: int, top_hands: int, cross_rounds: int) -> None:
    start = time.perf_counter()
    analysis = analyse(rules)
    figures = bet_figures(rules, analysis)
    took = time.perf_counter() - start
    print(f"{rules.name}: exact and combinatorial figures of {len(figures)} bets in {took:.1f} s; "
          f"main edge {100 * analysis.house_edge:.4f}%")
    if rules.name not in SIMULATED:
        return
    start, cpu = time.perf_counter(), time.process_time()
    out = simulate(rules, analysis, hands, seed=1)
    took, used = time.perf_counter() - start, time.process_time() - cpu
    edge, err = -out.mean(), out.stderr()
    print(f"  simulator, 75% penetration: {out.rounds:,} hands, {out.rounds / used:,.0f} "
          f"hands per CPU second ({out.rounds / took:,.0f} per wall second); edge "
          f"{100 * edge:.4f}% ± {100 * 1.96 * err:.4f}% (95%; the cut card adds a little)")
    top = simulate(rules, analysis, top_hands, seed=2, lanes=2000, penetration=0)
    edge, err = -top.mean(), top.stderr()
    inside = abs(edge - analysis.house_edge) <= 1.96 * err
    print(f"  simulator off the top: {top.rounds:,} hands, edge {100 * edge:.4f}% "
          f"± {100 * 1.96 * err:.4f}% (95%); analysis "
          f"{'inside' if inside else 'OUTSIDE'} the interval")
    for spot in sorted(out.side_sum):
        print(f"  simulated {spot}: edge {-100 * out.mean(spot):.4f}% "
              f"± {100 * 1.96 * out.stderr(spot):.4f}%")
    start = time.perf_counter()
    lanes = max(1, cross_rounds // 40)
    check = cross_check(rules, analysis, lanes, seed=17)
    while check.rounds < cross_rounds and not check.differences:
        more = cross_check(rules, analysis, lanes // 4 + 1, seed=17 + check.rounds)
        check.rounds += more.rounds
        check.hands += more.hands
        check.differences += more.differences
    took = time.perf_counter() - start
    print(f"  engine cross-check: {check.rounds:,} rounds, {check.hands:,} hands, "
          f"{len(check.differences)} differences ({took:.0f} s)")
    for line in check.differences[:5]:
        print(f"    {line}")



# One benchmark per game, as houseedge.games.GAMES holds one kind of math per game.
BENCHES: dict[str, Callable[[Rules, argparse.Namespace], None]] = {
    "casino": lambda rules, args: bench_casino_game(rules, args.hands, args.top_hands,
                                                    args.cross_rounds),
    "banker": lambda rules, args: bench_banker_game(rules, args.hands, args.cross_rounds),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=20_000_000)
    parser.add_argument("--top-hands", type=int, default=4_000_000)
    parser.add_argument("--cross-rounds", type=int, default=100_000)
    parser.add_argument("--profile", action="append", default=[])
    args = parser.parse_args()
    names = args.profile or list_profiles()
    for name in names:
        rules = load_profile(name)
        BENCHES[rules.game](rules, args)


if __name__ == "__main__":
    main()
