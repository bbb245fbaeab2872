"""The virtual dealer deals real rounds: every profile, determinism, dealer mistakes
and the pit."""

from __future__ import annotations

from collections import Counter

import pytest

from table.hands import hand_value
from table.machine import Table
from table.profiles import list_profiles
from tests.hwsim.dealer_runs import check_bets_settled, check_chip_flow, is_subsequence, make_run

EXPECTED_ACTIONS = {
    "casinos-austria": {"stand", "double", "split", "decline"},
    "st-moritz": {"stand", "double", "split", "decline"},
    "st-moritz-65": {"stand", "double", "split", "decline"},
    "live-studio": {"stand", "double", "split", "decline", "surrender", "timeout"},
    "ru-casino": {"stand", "double", "split", "decline", "surrender"},
    "pontoon-sydney": {"stand", "double", "split", "surrender", "rescue"},
    "pontoon-online": {"stand", "double", "split"},
    "pontoon-british": {"stand", "buy", "twist", "split"},
}


def test_every_shipped_profile_has_its_expectations() -> None:
    assert set(EXPECTED_ACTIONS) == set(list_profiles())


@pytest.mark.parametrize("profile", list_profiles())
def test_every_profile_plays_two_hundred_rounds(profile: str) -> None:
    run = make_run(profile)
    numbers = run.dealer.play(200)
    rules = run.rules
    results = run.results()
    assert numbers == list(range(1, 201))
    assert [r["round"] for r in results] == numbers
    assert run.dealer.stats.refused == 0 and run.dealer.stats.mistakes == 0

    # The cards came out of each shoe in order, from its top, shoe after shoe.
    per_shoe: list[list[str]] = [[]]
    for _, event in run.link.log:
        if "card" in event:
            per_shoe[-1].append(event["card"])
        elif event.get("shoe") == "loaded":
            per_shoe.append([])
    assert len(per_shoe) == len(run.shoes.made) > 1
    for cards, shoe in zip(per_shoe, run.shoes.made, strict=True):
        assert cards and cards == shoe[:len(cards)]
    assert sum(map(len, per_shoe)) == run.dealer.stats.cards_drawn

    for result in results:
        number = result["round"]
        assert result["status"] == "settled", result
        assert result["flags"] == [] and result["refused"] == [] and result["burned"] == []
        check_chip_flow(result)
        check_bets_settled(result, run.link.of_round(number, "bet"))
        # Every card drawn in the round is on a hand or the dealer's, in the order drawn.
        cards = run.link.of_round(number, "card")
        hands = [hand["cards"] for hand in result["hands"]]
        assert Counter(cards) == Counter(result["dealer"]) + Counter(
            card for hand in hands for card in hand)
        for hand in hands + [result["dealer"]]:
            assert is_subsequence(hand, cards)
        # The deal: a card to each box, one to the dealer, then the boxes' second cards.
        boxes = sorted({hand["box"] for hand in result["hands"]})
        first_cards = [next(h for h in result["hands"] if h["box"] == box)["cards"][0]
                       for box in boxes if not any(
                           h["box"] == box and h["hand"] > 0 for h in result["hands"])]
        if len(first_cards) == len(boxes):
            assert cards[:len(boxes)] == first_cards
        assert cards[len(boxes)] == result["dealer"][0]

    actions = Counter(do["action"] for do in run.sent("do"))
    assert EXPECTED_ACTIONS[profile] <= set(actions), actions
    spots = {bet.get("spot", "main") for bet in run.sent("bet")}
    assert spots == {"main", *rules.side_bets}
    for bet in run.sent("bet"):
        if bet.get("spot") == "sevens":
            assert rules.sevens_min <= bet["amount"] <= rules.sevens_max
            assert bet["amount"] % rules.sevens_step == 0
        assert bet["amount"] % 10 == 0 and 10 <= bet["amount"] <= 500

    # What the table stored replays to the same results on a fresh table.
    replay = Table(rules)
    for event in run.link.events:
        replay.apply(event)
    assert replay.results() == results


def test_boxes_are_the_first_boxes_and_never_more_than_the_table_has() -> None:
    run = make_run("st-moritz", boxes=7)  # a 5-box table
    run.dealer.play(5)
    assert {bet["box"] for bet in run.sent("bet")} == {1, 2, 3, 4, 5}
    run = make_run("casinos-austria", boxes=2)
    run.dealer.play(5)
    assert {bet["box"] for bet in run.sent("bet")} == {1, 2}


def test_insurance_is_declined_for_every_box_against_an_ace() -> None:
    run = make_run("casinos-austria", seed=3)
    run.dealer.play(120)
    aces = [r for r in run.results() if r["dealer"][0][0] == "A"]
    assert len(aces) >= 3
    for result in run.results():
        declines = [do["box"] for do in run.link.of_round(result["round"], "do")
                    if do["action"] == "decline"]
        assert declines == (list(range(1, 8)) if result in aces else []), result["round"]
        assert not any(line["spot"] == "insurance" for line in result["settlement"])


def test_british_pontoon_banker_box_never_bets_and_players_raise() -> None:
    run = make_run("pontoon-british", seed=4)
    run.dealer.play(150)
    banker = "dealer"
    banks_moved = raises = 0
    for result in run.results():
        number = result["round"]
        events = [event for r, event in run.link.log if r == number]
        deal = next(i for i, event in enumerate(events) if "deal" in event)
        boxes = {event["bet"]["box"] for event in events if "bet" in event}
        assert banker == "dealer" or int(banker[3:]) not in boxes
        assert len(boxes) == (7 if banker == "dealer" else 6)
        raises += sum(1 for event in events[deal:] if "bet" in event)
        banks_moved += result["next_banker"] != banker
        banker = result["next_banker"]
        for hand in result["hands"]:
            assert len(hand["cards"]) <= 5
            if hand["status"] == "stood" and len(hand["cards"]) < 5:
                assert hand["total"] >= run.rules.stick_minimum  # no stick below the line
    assert banks_moved > 0 and raises > 0
    assert run.shoe.loads == 149  # one pack, shuffled for every round


def test_same_seed_same_rounds_other_seed_other_rounds() -> None:
    first = make_run("live-studio", seed=21)
    second = make_run("live-studio", seed=21)
    other = make_run("live-studio", seed=22)
    for run in (first, second, other):
        run.dealer.play(60)
    assert first.results() == second.results()
    assert first.link.events == second.link.events
    assert first.results() != other.results()



def test_dealer_mistakes_are_flagged_and_the_pit_ends_every_round() -> None:
    run = make_run("casinos-austria", seed=5, mistake_rate=0.2)
    run.dealer.play(150)
    results = run.results()
    flags = Counter(flag for r in results for flag in r["flags"])
    assert flags["DEALER_STOOD_ON_DRAW"] >= 5 and flags["DEALER_DREW_ON_STAND"] >= 5
    assert run.dealer.stats.mistakes == sum(flags.values())
    resolves = run.sent("resolve")
    assert resolves == ["accept"] * sum(flags.values())
    for result in results:
        assert result["status"] == "settled" and result["refused"] == []
        check_chip_flow(result)
        drew = result["flags"].count("DEALER_DREW_ON_STAND")
        assert len(result["burned"]) == drew
        if "DEALER_STOOD_ON_DRAW" in result["flags"]:
            # Overruled: the dealer drew on to a complete hand.
            total = hand_value(result["dealer"])[0]
            assert total >= 17 or len(result["dealer"]) == 2, result


def test_live_studio_voids_a_round_with_a_dealer_mistake() -> None:
    run = make_run("live-studio", seed=5, mistake_rate=0.2)
    run.dealer.play(100)
    results = run.results()
    void = [r for r in results if r["status"] == "void"]
    assert void and all(r["flags"] for r in void)
    assert set(run.sent("resolve")) == {"void"}
    for result in results:
        assert result["refused"] == []
        check_chip_flow(result)
        assert (result["status"] == "void") == bool(result["flags"])
