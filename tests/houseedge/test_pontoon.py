"""British pontoon: the punter against a banker who draws to 17."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from houseedge.crosspontoon import cross_check_banker_game
from houseedge.pontoon import PontoonAnalysis, PontoonPlay, analyse_banker_game, banker_after
from houseedge.shoe import Shoe
from houseedge.simpontoon import simulate_banker_game
from table.profiles import load_profile
from tablectl.cli import main


def test_banker_pontoon_chance_on_one_pack() -> None:
    # Ace then ten-value or the other way round: 2 x 4 x 16 of 52 x 51 orders.
    p_pontoon, dist = banker_after(Shoe("standard", 1).counts())
    assert p_pontoon == pytest.approx(float(Fraction(2 * 4 * 16, 52 * 51)))
    assert sum(dist) == pytest.approx(1.0)


def test_settlement_against_a_banker_hand() -> None:
    rules = load_profile("pontoon-british")
    banker_bust = (0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0)
    banker_trick = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
    banker_20 = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
    probs = (1 / 13,) * 9 + (4 / 13,)
    on_bust = PontoonPlay(rules, probs, banker_bust)
    assert on_bust.settle(18, False, 3, 2) == 2          # a standing hand is paid
    assert on_bust.settle(13, False, 5, 1) == 2          # a five-card trick double
    assert on_bust.settle(23, False, 3, 1) == -1         # the punter busts first
    on_trick = PontoonPlay(rules, probs, banker_trick)
    assert on_trick.settle(21, False, 3, 1) == -1        # a banker's trick beats 21
    assert on_trick.settle(12, False, 5, 1) == -1        # and a punter's trick
    on_20 = PontoonPlay(rules, probs, banker_20)
    assert on_20.settle(20, False, 2, 1) == -1           # the banker wins ties
    assert on_20.settle(11, True, 3, 1) == 1             # soft 21 in three cards beats 20


@pytest.fixture(scope="module")
def game() -> PontoonAnalysis:
    return analyse_banker_game(load_profile("pontoon-british"))


def test_simulator_and_engine_agree_pack_by_pack(game: PontoonAnalysis) -> None:
    check = cross_check_banker_game(load_profile("pontoon-british"), game, 600, seed=4)
    assert check.differences == [] and check.rounds == 600


def test_simulated_return_within_its_95_percent_interval(game: PontoonAnalysis) -> None:
    out = simulate_banker_game(load_profile("pontoon-british"), game, 1_000_000, seed=8)
    assert abs(out.mean() - game.ev) < 1.96 * out.stderr()


def test_strategy_sticks_only_from_fifteen_and_buys_low_hands(game: PontoonAnalysis) -> None:
    assert game.chart[("H20", 0)] == "S"
    assert game.chart[("H14", 0)] != "S"
    assert game.chart[("H9", 0)] in ("B", "B2")
    with_16 = analyse_banker_game(load_profile("pontoon-british", {"stick_minimum": 16}))
    assert with_16.chart[("H15", 0)] != "S"


def test_rtp_and_strategy_commands_for_the_banker_game(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rtp", "pontoon-british", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (bet,) = doc["bets"]
    assert bet["rtp"] == pytest.approx(1 - bet["house_edge"])
    assert "banker" in bet["note"]
    assert main(["strategy", "pontoon-british"]) == 0
    assert "stick" in capsys.readouterr().out
