"""Every shipped profile plays many rounds from a shuffled shoe, driven only by `due()`."""

from __future__ import annotations

import random

import pytest

from table.cards import pack_cards
from table.events import Bet, Card, Deal, Do, Event, ShoeStatus
from table.machine import Table
from table.profiles import list_profiles, load_profile


def _play_rounds(profile: str, rounds: int, seed: int) -> Table:
    rules = load_profile(profile)
    rng = random.Random(seed)
    table = Table(rules)
    boxes = min(rules.max_boxes, 3)
    shoe: list[str] = []

    def feed(event: Event) -> None:
        outcome = table.apply(event)
        assert outcome.accepted, (event, outcome.reason, table.due())

    for _ in range(rounds):
        if rules.inventory_per_round or len(shoe) < 60:
            shoe = list(pack_cards(rules.shoe)) * rules.decks
            rng.shuffle(shoe)
            if not rules.inventory_per_round:
                feed(ShoeStatus("loaded"))
        for box in range(1, boxes + 1):
            feed(Bet(box, 20))
        feed(Deal())
        for _step in range(100):
            due = table.due()
            assert not due.halted, due
            if due.phase == "settled":
                break
            if due.phase == "insurance":
                for box in range(1, boxes + 1):
                    if table.due().phase == "insurance":
                        feed(Do(box, "decline"))
                continue
            if due.phase == "playing":
                assert due.box is not None
                view = next(b for b in table.view().boxes if b.number == due.box)
                total = view.hands[due.hand or 0].total
                if due.card_expected:
                    feed(Card(shoe.pop()))
                elif "twist" in due.actions and total < 16:
                    feed(Do(due.box, "twist"))
                elif "stand" in due.actions and (total >= 16 or "twist" not in due.actions):
                    feed(Do(due.box, "stand"))
                else:
                    feed(Do(due.box, "twist"))
                continue
            if due.phase == "dealer" and due.dealer is None:
                # The banker plays at will: draw below 16, then stand.
                if table.view().dealer_total < 16:
                    feed(Card(shoe.pop()))
                else:
                    feed(Do("dealer", "stand"))
                continue
            assert due.card_expected, due
            feed(Card(shoe.pop()))
        assert table.due().phase == "settled"
    return table


@pytest.mark.parametrize("profile", list_profiles())
def test_every_profile_settles_every_round(profile: str) -> None:
    table = _play_rounds(profile, 60, seed=7)
    results = table.results()
    assert len(results) == 60
    for result in results:
        assert result["status"] == "settled" and result["flags"] == []
        staked = {key: 0 for key in result["net"]}
        for line in result["settlement"]:
            staked[f"{line['player']}/{line['spot']}"] += line["stake"]
        # Nobody loses more than was staked, except where a banker's trick collects 2x.
        for key, net in result["net"].items():
            assert net >= -2 * max(staked[key], 20), (key, net, result)
