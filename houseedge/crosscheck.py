"""The fast simulator against the table engine, on identical shoes.

Each recorded lane's shoe is dealt card by card into a `table.machine.Table`
with the same strategy's decisions; every round's cards used, every hand's
net and every side bet's net must agree with what the simulator booked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from houseedge.mainbet import Analysis
from houseedge.sim import STAKE, Record, Tables, new_shoes, shoe_codes
from houseedge.simulate import PENETRATION, play_shoes
from table.cards import CARD_POINTS
from table.events import Bet, Card, Deal, Do, Event
from table.machine import Table
from table.profiles import Rules

ACTIONS = {0: "stand", 1: "hit", 2: "double", 3: "split", 4: "surrender"}
SIDE_SPOTS = ("dealer_bust", "pair")


@dataclass
class CrossCheck:
    rounds: int = 0
    hands: int = 0
    differences: list[str] = field(default_factory=list)


def _value(card: str) -> int:
    return CARD_POINTS[card]


class _Player:
    """The strategy's decisions on the table's own view of the hand."""

    def __init__(self, rules: Rules, tables: Tables) -> None:
        self.rules = rules
        self.tables = tables

    def decide(self, cards: tuple[str, ...], split: bool, hands: int, up: int,
               doubled: bool = False) -> str:
        rules = self.rules
        values = [_value(c) for c in cards]
        if not split and len(cards) == 2 and not doubled:
            return ACTIONS[int(self.tables.first[values[0], values[1], up])]
        if split and len(cards) == 2 and values[0] == values[1] and hands < rules.max_split_hands \
                and (values[0] != 1 or rules.resplit_aces):
            return "split"
        hard = sum(values)
        das = not split or (rules.double_split_aces if values[0] == 1
                            else rules.double_after_split)
        may = das and (len(cards) == 2 or rules.double_cards == "any")
        mode = 2 if doubled else 0 if may else 1
        move = int(self.tables.later[hard, int(1 in values), min(len(cards), 7), mode, up])
        return ACTIONS[move]


def _maybe_rescue(table: Table, player: _Player, index: int, up: int) -> None:
    """The strategy's rescue, decided right after the double's card."""
    box = next(b for b in table.view().boxes if b.number == 1)
    hand = box.hands[index]
    if hand.status != "stood":
        return
    values = [_value(c) for c in hand.cards]
    move = int(player.tables.later[min(sum(values), 31), int(1 in values), min(len(values), 7),
                                   2, up])
    if move == 4:
        outcome = table.apply(Do(1, "rescue"))
        if not outcome.accepted:
            raise AssertionError(f"rescue refused on {hand.cards}: {outcome.reason}")


def _play_round(table: Table, rules: Rules, player: _Player, shoe: list[str],
                pos: int) -> tuple[int, dict[str, Any]]:
    """One round on box 1; returns the cards used and the round's result object."""
    events: list[Event] = [Bet(1, STAKE)]
    events += [Bet(1, STAKE, spot) for spot in SIDE_SPOTS if spot in rules.side_bets]
    events.append(Deal())
    for event in events:
        outcome = table.apply(event)
        if not outcome.accepted:
            raise AssertionError(f"refused {event}: {outcome.reason}")
    used = 0

    def card() -> None:
        nonlocal used
        outcome = table.apply(Card(shoe[pos + used]))
        used += 1
        if not outcome.accepted:
            raise AssertionError(f"card refused: {outcome.reason}")

    for _ in range(200):
        due = table.due()
        if due.halted:
            raise AssertionError(f"halted: {due.open_flags}")
        if due.phase in ("settled", "void"):
            break
        if due.phase == "insurance":
            table.apply(Do(1, "decline"))
            continue
        if due.phase == "playing":
            view = table.view()
            box = next(b for b in view.boxes if b.number == due.box)
            hand = box.hands[due.hand or 0]
            if len(hand.cards) < 2:
                card()
                continue
            up = _value(view.dealer[0])
            doubled = dict(hand.stakes).get("box1", STAKE) > STAKE
            move = player.decide(hand.cards, len(box.hands) > 1, len(box.hands), up, doubled)
            if move == "hit":
                card()
                continue
            outcome = table.apply(Do(1, move))
            if not outcome.accepted:
                raise AssertionError(f"{move} refused on {hand.cards}: {outcome.reason}")
            if move == "double":
                card()
                if rules.double_down_rescue:
                    _maybe_rescue(table, player, due.hand or 0, up)
            continue
        if due.card_expected:
            card()
        else:
            break
    result = table.current_result()
    assert result is not None
    return used, result


def cross_check(rules: Rules, analysis: Analysis, lanes: int, seed: int = 7,
                penetration: float = PENETRATION) -> CrossCheck:
    """Simulate `lanes` shoes, replay each through the table; list every difference."""
    rng = np.random.default_rng(seed)
    shoes = new_shoes(rules, lanes, rng)
    records = [Record() for _ in range(lanes)]
    play_shoes(rules, analysis, shoes, records, penetration)
    player = _Player(rules, Tables.of(analysis))
    out = CrossCheck()
    for lane, rec in enumerate(records):
        shoe = shoe_codes(shoes[lane])
        table = Table(rules, keep_rounds=1)
        pos = 0
        for number, (cards, hands, sides) in enumerate(zip(rec.cards, rec.hands, rec.sides,
                                                          strict=True)):
            where = f"lane {lane} round {number + 1} (cards {shoe[pos:pos + cards]})"
            try:
                used, result = _play_round(table, rules, player, shoe, pos)
            except AssertionError as exc:
                out.differences.append(f"{where}: {exc}")
                break
            out.rounds += 1
            engine_hands: dict[int, int] = {}
            for entry in result["settlement"]:
                if entry["spot"] == "main" and entry["hand"] is not None:
                    index = int(entry["hand"])
                    engine_hands[index] = (engine_hands.get(index, 0)
                                           + entry["payout"] - entry["stake"])
            mine = {i: v for i, v in enumerate(hands)}
            out.hands += len(mine)
            net = result["net"]
            engine_sides = {spot: net.get(f"box1/{spot}") for spot in sides}
            if used != cards or engine_hands != mine or engine_sides != sides:
                out.differences.append(
                    f"{where}: engine used {used} cards, hands {engine_hands}, sides "
                    f"{engine_sides}; simulator {cards}, {mine}, {sides}")
            pos += used
            if len(out.differences) > 20:
                return out
    return out
