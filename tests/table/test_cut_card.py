"""The cut card (RULES.md: "not a misdeal: the cut card came out; finish the
round, then a new shoe") and the option `stick_minimum` of British pontoon."""

from __future__ import annotations

from table.events import Card, ShoeStatus
from tests.table.helpers import DEAL, bet, cards, do, feed, last, play, table


def test_the_cut_card_mid_round_is_a_notice_and_the_round_plays_on() -> None:
    tbl = play("casinos-austria", [bet(1, 100), DEAL, *cards("TS"), {"shoe": "cut_card"}])
    assert not tbl.due().halted and tbl.due().card_for == "dealer"
    assert tbl.new_shoe_due
    # TS+9C = 19 against 7H+KS = 17: the round finishes as if nothing had happened.
    feed(tbl, [*cards("7H", "9C"), do(1, "stand"), *cards("KS")])
    result = last(tbl)
    assert result["status"] == "settled" and result["flags"] == []
    assert result["notices"] == ["CUT_CARD"]
    assert result["net"] == {"box1/main": 100}
    assert tbl.new_shoe_due  # until the new shoe is in


def test_a_new_shoe_between_rounds_fills_the_inventory() -> None:
    tbl = play("casinos-austria", [bet(1, 100), DEAL, *cards("TS"), {"shoe": "cut_card"},
                                   *cards("7H", "9C"), do(1, "stand"), *cards("KS")])
    assert tbl.new_shoe_due
    outcome = tbl.apply(ShoeStatus("loaded"))
    assert outcome.accepted and not outcome.flags
    assert not tbl.new_shoe_due
    assert tbl.inventory.left("TS") == 6  # one per deck, six decks: full again


def test_a_shoe_reloaded_mid_round_is_one_flag_for_the_pit() -> None:
    tbl = play("casinos-austria", [bet(1, 100), DEAL, *cards("TS", "7H")])
    outcome = tbl.apply(ShoeStatus("loaded"))
    assert outcome.accepted and outcome.flags == ("SHOE_RELOADED",)
    due = tbl.due()
    assert due.halted and due.open_flags == ("SHOE_RELOADED",)
    assert set(due.resolutions) == {"void", "accept"}  # casinos-austria allows both
    # Nothing more is dealt while it waits: a card now is refused, not a new flag.
    assert not tbl.apply(Card("9C")).accepted
    assert tbl.inventory.left("TS") == 6  # the new shoe is full
    # A second report of the same reload adds nothing for the pit to resolve.
    again = tbl.apply(ShoeStatus("loaded"))
    assert again.accepted and not again.flags and tbl.due().open_flags == ("SHOE_RELOADED",)


def test_the_pit_lets_the_round_go_on_from_the_new_shoe() -> None:
    tbl = play("casinos-austria", [bet(1, 100), DEAL, *cards("TS", "7H"),
                                   {"shoe": "loaded"}, {"resolve": "accept"}])
    assert not tbl.due().halted and tbl.due().card_for == 1
    # TS+9C = 19 against 7H+KS = 17: the round settles as usual, the flag on its record.
    feed(tbl, [*cards("9C"), do(1, "stand"), *cards("KS")])
    result = last(tbl)
    assert result["status"] == "settled" and result["flags"] == ["SHOE_RELOADED"]
    assert result["net"] == {"box1/main": 100}


def test_the_pit_voids_the_round_and_every_bet_goes_back() -> None:
    tbl = play("casinos-austria", [bet(1, 100), DEAL, *cards("TS", "7H"),
                                   {"shoe": "loaded"}, {"resolve": "void"}])
    result = last(tbl)
    assert result["status"] == "void" and result["net"] == {"box1/main": 0}


def test_a_void_only_profile_offers_only_void() -> None:
    # live-studio (seed 002): any system or human error cancels the round.
    tbl = play("live-studio", [bet(1, 100), DEAL, *cards("TS")])
    assert tbl.apply(ShoeStatus("loaded")).flags == ("SHOE_RELOADED",)
    assert tuple(tbl.due().resolutions) == ("void",)
    assert not tbl.apply({"resolve": "accept"}).accepted


def test_a_cut_card_between_rounds_asks_for_a_new_shoe_without_a_notice() -> None:
    tbl = play("casinos-austria", [bet(1, 100), DEAL, *cards("TS", "7H", "9C"), do(1, "stand"),
                                   *cards("KS")])
    assert tbl.apply(ShoeStatus("cut_card")).accepted
    assert tbl.new_shoe_due
    assert "notices" not in last(tbl)  # the settled round is not touched


def test_the_cut_card_reported_as_a_flag_does_not_halt() -> None:
    tbl = play("casinos-austria", [bet(1, 100), DEAL, *cards("TS")])
    outcome = tbl.apply({"flag": "CUT_CARD"})
    assert outcome.accepted and not tbl.due().halted and tbl.new_shoe_due
    assert tbl.apply(Card("7H")).accepted


def test_stick_minimum_16_refuses_a_stick_on_15() -> None:
    events = [bet(1, 10), DEAL, *cards("9S", "KD", "6H", "7C")]
    # 9+6 = 15: the default minimum (15) lets the player stick; with 16 it must buy or twist.
    assert feed(table("pontoon-british"), [*events, do(1, "stand")])[-1].accepted
    strict = table("pontoon-british", {"stick_minimum": 16})
    outcome = feed(strict, [*events, do(1, "stand")])[-1]
    assert not outcome.accepted
    assert "sticking needs 16 or more; the hand has 15" in (outcome.reason or "")
    # Twist a 2: 17, then the stick stands; banker KD+7C = 17 stands, the banker wins ties.
    feed(strict, [do(1, "twist"), *cards("2D"), do(1, "stand"), do("dealer", "stand")])
    assert last(strict)["net"] == {"box1/main": -10}
