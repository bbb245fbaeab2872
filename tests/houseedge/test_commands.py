"""`tablectl rtp` and `tablectl strategy`: output shapes and refusals."""

from __future__ import annotations

import json

import pytest

from tablectl.cli import main


def test_rtp_json_lists_every_bet_of_live_studio(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rtp", "live-studio", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["profile"] == "live-studio"
    bets = {bet["bet"]: bet for bet in doc["bets"]}
    assert set(bets) == {"main", "bet behind", "insurance", "even money", "pair"}
    assert bets["pair"]["house_edge"] == pytest.approx(43 / 415, abs=1e-9)
    assert bets["insurance"]["house_edge"] == pytest.approx(1 - 3 * 128 / 415, abs=1e-9)
    for bet in doc["bets"]:
        assert bet["rtp"] == pytest.approx(1 - bet["house_edge"])
        assert bet["stderr"] is None and bet["method"]


def test_rtp_option_changes_the_shoe(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rtp", "st-moritz", "--option", "decks=8", "--json"]) == 0
    bets = {b["bet"]: b for b in json.loads(capsys.readouterr().out)["bets"]}
    assert bets["insurance"]["house_edge"] == pytest.approx(1 - 3 * 128 / 415, abs=1e-9)


@pytest.mark.parametrize(("argv", "words"), [
    (["rtp", "no-such-profile"], ["no such profile", "casinos-austria"]),
    (["rtp", "live-studio", "--option", "colour=red"], ["'colour'", "unknown key"]),
    (["strategy", "live-studio", "--option", "blackjack_pays=7:5"],
     ["'blackjack_pays'", "'3:2', '6:5', '2:1'"]),
    (["rtp", "st-moritz", "--option", "bonus_blackjack_pays=5:1"],
     ["'bonus_blackjack_pays'", "6:5 tables only"]),
    (["strategy", "live-studio", "--option", "decks"], ["key=value"]),
])
def test_bad_input_names_the_key_and_what_is_allowed(
        argv: list[str], words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    for word in words:
        assert word in err


def test_strategy_chart_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["strategy", "live-studio", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["insurance"] == "never"
    # One split only, no double after split; early surrender only against 2-9.
    assert doc["two_cards"]["pairs"]["8-8"]["7"] == "P"
    assert doc["two_cards"]["hard"]["11"]["6"] == "D"
    assert "R" not in doc["two_cards"]["hard"]["16"]["T"]
    assert main(["strategy", "live-studio"]) == 0
    text = capsys.readouterr().out
    assert "pairs" in text and "A-A" in text and "surrender" in text


def test_each_game_a_profile_may_name_has_its_math() -> None:
    from houseedge.games import GAMES, BankerMath, CasinoMath, math_for
    from table.profiles import _CHOICES, load_profile

    assert set(GAMES) == set(_CHOICES["game"])
    assert isinstance(math_for(load_profile("st-moritz")), CasinoMath)
    assert isinstance(math_for(load_profile("pontoon-british")), BankerMath)
