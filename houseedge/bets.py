"""Every bet a profile offers, with its house edge, return and how it was found."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from houseedge import exact
from houseedge.dealer import BUST, off_the_top
from houseedge.mainbet import Analysis, analyse
from houseedge.shoe import shoe_of
from table.profiles import Rules
from table.sidebets import SIDE_BETS, OddsInputs

EXACT = "exact combinatorics"
CA = "combinatorial analysis"
SIM = "simulation"
STRATEGY = "total-dependent basic strategy computed from the rules; insurance never"


@dataclass(frozen=True, slots=True)
class BetFigure:
    bet: str
    house_edge: float | None
    rtp: float | None
    method: str
    stderr: float | None = None
    hands: int | None = None
    strategy: str | None = None
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        if not self.note:
            del out["note"]
        return out


def _edge(bet: str, value: float, method: str, strategy: str | None = None,
          note: str = "") -> BetFigure:
    return BetFigure(bet, -value, 1.0 + value, method, None, None, strategy, note)


def _bonus(rules: Rules, fast: Analysis, bet: str, overrides: dict[str, Any]) -> BetFigure:
    """A bonus paid on the main bet: what it adds to the main bet's return.

    Both sides of the difference leave the player's drawn cards in the shoe
    (`removal=False`): the bonus's worth, not the game's, is wanted here.
    """
    without = analyse(dataclasses.replace(rules, **overrides), fast.decks, removal=False)
    worth = fast.ev - without.ev
    return BetFigure(bet, None, worth, f"{CA}, with and without the bonus", None, None,
                     STRATEGY, "return per unit of main bet added by the bonus "
                     "(included in the main bet's figure)")


def banker_figures(rules: Rules) -> list[BetFigure]:
    """The banker game: a punter's return against a banker who draws to 17."""
    from houseedge.pontoon import BANKER_STANDS, analyse_banker_game

    game = analyse_banker_game(rules)
    return [BetFigure(
        "main (punter against the banker)", -game.ev, 1 + game.ev, CA, None, None,
        f"stick, twist or buy by total, card count and stake bought; the banker draws to "
        f"{BANKER_STANDS}",
        "a player banks, not the house: this is the banker's edge over a punter when the "
        "banker plays that rule; no first-stake raise, no split")]


def bet_figures(rules: Rules, main: Analysis | None = None) -> list[BetFigure]:
    """The exact and combinatorial figures of every bet of a casino profile."""
    main = main or analyse(rules)
    shoe = shoe_of(rules)
    out = [_edge("main", main.ev, CA, STRATEGY,
                 "no hole card: a dealer natural takes what the profile says"
                 if rules.hole_card == "none" else "")]
    if rules.co_bettor_split == "ask" and rules.max_boxes > 1:
        out.append(_edge("bet behind", main.ev, CA, STRATEGY,
                         "follows the seat's hand and every split and double"))
    if rules.insurance:
        out.append(_edge("insurance", float(exact.insurance(shoe)), EXACT))
    if rules.even_money:
        out.append(_edge("even money", float(exact.insurance(shoe, natural=True)), EXACT,
                         note="even money is insurance taken on a natural"))
    inputs = OddsInputs(
        rules, shoe.cards, shoe.decks,
        dealer_bust=lambda: off_the_top(shoe.counts(), rules.dealer_hits_soft_17)[BUST],
        third_card=lambda up: 1.0 if main.chart.get(("P7", int(up)), "S") in ("H", "D", "P")
        else 0.0)
    for spot in rules.side_bets:
        bet = SIDE_BETS[spot]
        value, method, note = bet.exact_return(inputs)
        out.append(_edge(bet.title, float(value), method,
                         STRATEGY if bet.depends_on_play else None, note))
    bonuses = (rules.triple_seven != "none" or rules.bonus_blackjack_pays != "none"
               or rules.sevens_prizes or rules.pontoon_bonuses)
    fast = analyse(rules, main.decks, removal=False) if bonuses else main
    if rules.triple_seven != "none":
        out.append(_bonus(rules, fast, f"triple seven {rules.triple_seven_pays}",
                          {"triple_seven": "none"}))
    if rules.bonus_blackjack_pays != "none":
        out.append(_bonus(rules, fast, f"bonus black jack {rules.bonus_blackjack_pays}",
                          {"bonus_blackjack_pays": "none"}))
    if rules.sevens_prizes:
        out.append(_bonus(rules, fast, "sevens prizes", {"sevens_prizes": False}))
    if rules.pontoon_bonuses:
        out.append(_bonus(rules, fast, "pontoon bonuses (5+ card 21, 6-7-8, 7-7-7, super)",
                          {"pontoon_bonuses": False}))
    return out
