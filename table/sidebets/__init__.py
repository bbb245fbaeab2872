"""Side bets as a registry: each bet is one module of this package holding a `BET`.

A module says when its bet is offered (`games`), when it settles (`settles`:
"deal", once the box's two cards and the dealer's first card are out, or
"end", with the dealer's finished hand), what it pays (`judge`) and its exact
return for `tablectl rtp` (`exact_return`). Profiles name the bets they offer
in `side_bets`; nothing else in the code names a side bet. A new bet is a new
module here, found when the package is imported.
"""

from __future__ import annotations

import importlib
import pkgutil

from table.sidebets.base import OddsInputs, SideBet

__all__ = ["OddsInputs", "SIDE_BETS", "SideBet", "side_bet"]


def _discover() -> dict[str, SideBet]:
    found: dict[str, SideBet] = {}
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name):
        if module.name in ("base", "odds"):
            continue
        bet = getattr(importlib.import_module(f"{__name__}.{module.name}"), "BET", None)
        if bet is None:
            continue
        if bet.spot in found or bet.spot in ("main", "insurance"):
            raise RuntimeError(f"side bet {bet.spot!r} is defined twice")
        found[bet.spot] = bet
    return found


# Every side bet by its spot name (the name profiles and events use).
SIDE_BETS: dict[str, SideBet] = _discover()


def side_bet(spot: str) -> SideBet:
    return SIDE_BETS[spot]
