"""What the players stake: main bets in whole units of 10, now and then a side bet."""

from __future__ import annotations

import random
from typing import Any

from table.cards import TEN_VALUE_RANKS
from table.profiles import Rules
from table.views import BoxView

UNIT = 10
MAX_MAIN = 500
MAX_SIDE = 100
SIDE_BET_CHANCE = 0.2
RAISE_CHANCE = 0.15


def _round_up(amount: int, step: int) -> int:
    return -(-amount // step) * step


def main_stake(rules: Rules, rng: random.Random) -> int:
    """Mostly small stakes, a few large ones: 10-500 in steps of 10 within the table's limits."""
    low = max(UNIT, _round_up(rules.min_bet, UNIT))
    high = MAX_MAIN if not rules.max_box_total else min(MAX_MAIN, rules.max_box_total)
    high -= high % UNIT
    if high < low:
        return low  # a table whose limits leave no step of 10: the table will say so
    steps = (high - low) // UNIT
    pick = min(steps, int(rng.expovariate(1 / 6)))
    return low + pick * UNIT


def side_stake(rules: Rules, spot: str, rng: random.Random) -> int | None:
    """A stake for side bet `spot`, or None where no stake fits its limits."""
    if spot == "sevens":
        options = [amount for amount in range(rules.sevens_min, rules.sevens_max + 1)
                   if amount % rules.sevens_step == 0]
        return rng.choice(options) if options else None
    return UNIT * rng.randint(1, MAX_SIDE // UNIT)


def box_bets(rules: Rules, box: int, rng: random.Random) -> list[dict[str, Any]]:
    """The `bet` events of one box's owner: the main bet first, then any side bets."""
    events: list[dict[str, Any]] = [{"bet": {"box": box, "amount": main_stake(rules, rng)}}]
    for spot in rules.side_bets:
        if rng.random() < SIDE_BET_CHANCE:
            amount = side_stake(rules, spot, rng)
            if amount is not None:
                events.append({"bet": {"box": box, "amount": amount, "spot": spot}})
    return events


def raise_after_first_card(card: str, stake: int, rng: random.Random) -> int:
    """British pontoon: what a player adds after seeing the first card (0: nothing).
    An ace or a ten-value card invites a raise; other cards seldom do."""
    good = card[0] == "A" or card[0] in TEN_VALUE_RANKS
    if good or rng.random() < RAISE_CHANCE:
        return min(stake, MAX_MAIN - stake) if stake < MAX_MAIN else 0
    return 0


def main_bet(box: BoxView) -> int:
    """The box owner's main stake as the table shows it."""
    return sum(amount for player, spot, amount in box.bets
               if spot == "main" and player == box.owner)
