"""The math of each kind of game, chosen once from the profile's `game`.

The house-banked casino game has a house edge, a basic strategy chart and a
fast simulator; in the banker game (British pontoon) a player banks, so its
figures are a punter's return against a banker playing a fixed rule. Callers
ask `math_for(rules)` and never test the game themselves.
"""

from __future__ import annotations

import json
from typing import Protocol

from houseedge.bets import BetFigure, banker_figures, bet_figures
from houseedge.mainbet import Analysis, analyse
from table.profiles import Rules


class GameMath(Protocol):
    def figures(self, rules: Rules, simulate_hands: int = 0, seed: int = 1) -> list[BetFigure]:
        """Every bet's figures, exact or combinatorial; simulated too when hands > 0."""

    def strategy(self, rules: Rules, as_json: bool = False) -> str:
        """The strategy the figures assume, as a chart or as JSON."""


class CasinoMath:
    def main(self, rules: Rules) -> Analysis:
        return analyse(rules)

    def figures(self, rules: Rules, simulate_hands: int = 0, seed: int = 1) -> list[BetFigure]:
        main = analyse(rules)
        figures = bet_figures(rules, main)
        if simulate_hands:
            from houseedge.simulate import simulated_figures

            figures += simulated_figures(rules, main, simulate_hands, seed)
        return figures

    def strategy(self, rules: Rules, as_json: bool = False) -> str:
        from houseedge.strategy import chart_json, format_chart

        analysis = analyse(rules, removal=False)
        return json.dumps(chart_json(analysis), indent=2) if as_json else format_chart(analysis)


class BankerMath:
    def figures(self, rules: Rules, simulate_hands: int = 0, seed: int = 1) -> list[BetFigure]:
        figures = banker_figures(rules)
        if simulate_hands:
            from houseedge.simulate import banker_game_figures

            figures += banker_game_figures(rules, simulate_hands, seed)
        return figures

    def strategy(self, rules: Rules, as_json: bool = False) -> str:
        from houseedge.pontoon import analyse_banker_game, banker_chart_json, format_banker_chart

        game = analyse_banker_game(rules)
        return (json.dumps(banker_chart_json(game), indent=2) if as_json
                else format_banker_chart(game))


GAMES: dict[str, GameMath] = {"casino": CasinoMath(), "banker": BankerMath()}


def math_for(rules: Rules) -> GameMath:
    return GAMES[rules.game]
