"""The main game's combinatorial analysis against published anchors."""

from __future__ import annotations

import pytest

from houseedge.mainbet import Analysis, analyse
from table.profiles import load_profile

# 6 decks, S17, DAS, ENHC, resplit to 4 hands, no resplitting aces, 3:2, no bonuses.
PLAIN = {"triple_seven": "none"}


@pytest.fixture(scope="module")
def plain() -> Analysis:
    return analyse(load_profile("st-moritz", PLAIN), removal=False)


def test_six_deck_enhc_edge_in_the_published_band() -> None:
    # Every player card out of the shoe for the dealer's probabilities.
    exact = analyse(load_profile("st-moritz", PLAIN))
    assert 0.0051 <= exact.house_edge <= 0.0055


def test_leaving_drawn_cards_in_the_shoe_moves_little(plain: Analysis) -> None:
    assert 0.0051 <= plain.house_edge <= 0.0055


def test_six_to_five_adds_about_1_36_points(plain: Analysis) -> None:
    six_five = analyse(load_profile("st-moritz", {**PLAIN, "blackjack_pays": "6:5"}),
                       removal=False)
    assert six_five.house_edge - plain.house_edge == pytest.approx(0.0136, abs=0.0003)


def test_more_decks_cost_the_player(plain: Analysis) -> None:
    eight = analyse(load_profile("st-moritz", {**PLAIN, "decks": 8}), removal=False)
    assert 0.0002 < eight.house_edge - plain.house_edge < 0.0006


def test_enhc_strategy_differs_from_the_hole_card_game(plain: Analysis) -> None:
    # No hole card: 11 against a ten is hit and 8-8 against an ace is hit (the
    # doubled or split stakes would be lost to a dealer blackjack too).
    assert plain.chart[("H11", 10)] == "H"
    assert plain.chart[("P8", 1)] == "H"
    assert plain.chart[("H11", 6)] == "D"
    peek = analyse(load_profile("st-moritz", {**PLAIN, "hole_card": "peek"}), removal=False)
    assert peek.chart[("H11", 10)] == "D"
    assert peek.chart[("P8", 1)] == "P"
    # The hole card saves the player about a tenth of a point.
    assert 0.0008 < plain.house_edge - peek.house_edge < 0.0014


def test_textbook_decisions(plain: Analysis) -> None:
    assert [plain.chart[("H12", up)] for up in range(2, 11)] == list("HHSSSHHHH")
    assert [plain.chart[("H16", up)] for up in (6, 7, 10)] == ["S", "H", "H"]
    assert plain.chart[("P1", 6)] == "P" and plain.chart[("P10", 6)] == "S"
    assert plain.chart[("S18", 9)] == "H" and plain.chart[("S18", 7)] == "S"
