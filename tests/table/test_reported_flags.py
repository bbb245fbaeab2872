"""Flags another part of the system reports (shoe, camera) halt the round with their code."""

from __future__ import annotations

import pytest

from table.events import REPORTED_FLAGS, Flag, ScenarioError, parse_event
from tests.table.helpers import DEAL, bet, cards, do, feed, last, table

HALTING = [code for code in REPORTED_FLAGS if code != "CUT_CARD"]


def test_the_camera_may_report_a_misplaced_card() -> None:
    assert "CARD_OUT_OF_ORDER" in REPORTED_FLAGS
    assert "CARD_TO_EMPTY_BOX" in REPORTED_FLAGS
    assert parse_event({"flag": "CARD_OUT_OF_ORDER"}, 1) == Flag("CARD_OUT_OF_ORDER")
    with pytest.raises(ScenarioError, match="flag must be one of"):
        parse_event({"flag": "EXTRA_CARD"}, 1)  # the table raises that one itself


@pytest.mark.parametrize("code", HALTING)
def test_a_reported_flag_halts_the_round_and_accept_resumes_it(code: str) -> None:
    tbl = table("casinos-austria")
    feed(tbl, [bet(1, 100), bet(2, 100), DEAL, *cards("9S", "TC", "6C", "7D", "8H")])
    outcome = tbl.apply({"flag": code})
    assert outcome.accepted and outcome.flags == (code,)
    due = tbl.due()
    assert due.halted and due.open_flags == (code,)
    assert not tbl.apply({"card": "5S"}).accepted  # nothing goes on until the pit decides
    assert tbl.apply({"resolve": "accept"}).accepted
    assert tbl.due().phase == "playing" and tbl.due().box == 1
    feed(tbl, [do(1, "stand"), do(2, "stand"), *cards("KH", "5D")])
    result = last(tbl)
    assert result["status"] == "settled"
    assert result["flags"] == [code]
    assert result["net"] == {"box1/main": -100, "box2/main": -100}


def test_void_after_a_reported_misplaced_card_returns_every_bet() -> None:
    tbl = table("casinos-austria")
    feed(tbl, [bet(1, 100), bet(2, 50), DEAL, *cards("9S", "TC", "6C", "7D", "8H")])
    tbl.apply({"flag": "CARD_TO_EMPTY_BOX"})
    assert tbl.apply({"resolve": "void"}).accepted
    result = last(tbl)
    assert result["status"] == "void"
    assert result["flags"] == ["CARD_TO_EMPTY_BOX"]
    assert result["net"] == {"box1/main": 0, "box2/main": 0}


def test_a_reported_flag_outside_a_round_is_refused() -> None:
    tbl = table("casinos-austria")
    outcome = tbl.apply({"flag": "CARD_OUT_OF_ORDER"})
    assert not outcome.accepted and "outside a round" in (outcome.reason or "")
