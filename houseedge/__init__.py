"""House edge and return to player of every bet of a profile.

Depends only on `table/` (profiles, cards, pay tables, and the engine for
the cross-checks). Modules, one job each:

- `shoe`: compositions; `exact`: side bets and insurance by exact combinatorics;
- `dealer`, `dealerbatch`: dealer outcome probabilities (one shoe; many at once);
- `player`: the player's expectations on one composition; `removal`: with every
  card of the hand out of the shoe; `mainbet`: the combinatorial analysis of the
  main game and its strategy; `strategy`: the chart;
- `pontoon`: British pontoon, a punter against a banker rule;
- `sim`, `simround`, `simbonus`, `simulate`: the fast simulator of the casino
  games; `simpontoon`: of the banker game;
- `crosscheck`, `crosspontoon`: the simulators against the table engine;
- `bets`: every bet of a profile; `options`: `--option key=value`; `report`:
  the math report.
"""
