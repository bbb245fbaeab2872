"""Dealer Bust: pays `dealer_bust_pays` (profile key) when the dealer's hand busts."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from table.hands import hard_total
from table.payouts import ratio
from table.sidebets.base import OddsInputs, Settles, Win
from table.sidebets.odds import EXACT

if TYPE_CHECKING:
    from table.profiles import Rules


class DealerBust:
    spot = "dealer_bust"
    title = "dealer bust"
    games = ("casino",)
    settles: Settles = "end"
    depends_on_play = False
    needs_dealer_hand = True

    def stake_problem(self, rules: Rules, total: int) -> str | None:
        return None

    def judge(self, rules: Rules, box_cards: Sequence[str],
              dealer_cards: Sequence[str]) -> Win | None:
        if hard_total(dealer_cards) > 21:
            return ratio(rules.dealer_bust_pays), f"dealer bust {rules.dealer_bust_pays}"
        return None

    def lost(self) -> str:
        return "dealer bust lost"

    def exact_return(self, inputs: OddsInputs) -> tuple[Fraction | float, str, str]:
        p_bust = inputs.dealer_bust()
        odds = float(ratio(inputs.rules.dealer_bust_pays))
        return (p_bust * odds - (1 - p_bust), f"{EXACT} (dealer's cards off the top)",
                "the boxes' draws move it slightly: see the simulation")


BET = DealerBust()
