"""Round flows: one per game, chosen once from the profile's `game`."""

from __future__ import annotations

from table.flows.banker import BankerFlow
from table.flows.base import RoundFlow
from table.flows.casino import CasinoFlow
from table.profiles import Rules

FLOWS: dict[str, type[RoundFlow]] = {"casino": CasinoFlow, "banker": BankerFlow}


def flow_for(rules: Rules, keep_rounds: int | None = None) -> RoundFlow:
    """The flow of the profile's game."""
    return FLOWS[rules.game](rules, keep_rounds)


__all__ = ["FLOWS", "BankerFlow", "CasinoFlow", "RoundFlow", "flow_for"]
