"""Settlement arithmetic, each expected figure worked out by hand from RULES.md."""

from __future__ import annotations

import pytest

from table.payouts import pontoon_21_bonus, ratio, sevens_prize, win_amount
from table.sidebets import queens, sevens, three_card_wins
from tests.table.helpers import DEAL, bet, cards, do, last, play


@pytest.mark.parametrize(
    ("stake", "odds", "win"),
    [(25, "3:2", 37), (100, "3:2", 150), (15, "6:5", 18), (17, "6:5", 20), (30, "3:2", 45),
     (20, "5:2", 50), (7, "1:2", 3)],
)
def test_wins_round_down_to_a_whole_unit(stake: int, odds: str, win: int) -> None:
    assert win_amount(stake, ratio(odds)) == win


def test_a_natural_on_an_odd_stake_pays_3_2_rounded_down_and_says_so() -> None:
    tbl = play("casinos-austria", [bet(1, 25), DEAL, *cards("AS", "9C", "KH")])
    result = last(tbl)
    assert result["net"] == {"box1/main": 37}
    assert result["settlement"] == [{"player": "box1", "spot": "main", "box": 1, "hand": 0,
                                     "stake": 25, "payout": 62, "rule": "blackjack 3:2"}]


SEED_SPLIT = [bet(1, 10), DEAL, *cards("8S", "KD", "8H"), do(1, "split"), *cards("8C"),
              do(1, "split"), *cards("QS"), do(1, "stand"), *cards("7D", "KC", "3S"),
              do(1, "double"), *cards("9C", "AH")]


@pytest.mark.parametrize(
    # Three hands of 10: 18, busted, doubled to 20. The busted 10 is always lost; of the
    # 30 still on the table OBO takes nothing, BB+1 one stake, OBBO one per hand, ENHC all.
    ("takes", "net"), [("obo", -10), ("bb+1", -20), ("obbo", -30), ("enhc", -40)],
)
def test_the_seeds_split_example_under_each_dealer_blackjack_rule(takes: str, net: int) -> None:
    tbl = play("pontoon-sydney", SEED_SPLIT,
               {"max_split_hands": 3, "dealer_blackjack_takes": takes})
    assert last(tbl)["net"] == {"box1/main": net}


def test_insurance_is_half_the_stake_rounded_down_and_pays_2_1() -> None:
    tbl = play("casinos-austria", [bet(1, 25), DEAL, *cards("9S", "AH", "9D"),
                                   do(1, "insurance"), do(1, "stand"), *cards("KS")])
    # Insurance 12 wins 24; the 18 loses 25 to the blackjack.
    assert last(tbl)["net"] == {"box1/insurance": 24, "box1/main": -25}


def test_early_surrender_returns_half_and_carries_the_co_bettor() -> None:
    tbl = play("ru-casino", [bet(1, 100), bet(1, 50, player="ivan"), DEAL,
                             *cards("TS", "9C", "6H"), do(1, "surrender")])
    assert last(tbl)["net"] == {"box1/main": -50, "ivan/main": -25}


def test_a_dealer_bust_bet_pays_5_2() -> None:
    tbl = play("casinos-austria", [bet(1, 100), bet(1, 20, spot="dealer_bust"), DEAL,
                                   *cards("TS", "5C", "6H", "9D", "TD", "8H")])
    # The box busts at 25; the side bet keeps the dealer drawing: 5+10+8 = 23.
    assert last(tbl)["net"] == {"box1/dealer_bust": 50, "box1/main": -100}


def test_triple_seven_pays_3_2_at_once_and_no_dealer_card_is_needed() -> None:
    tbl = play("casinos-austria", [bet(1, 30), DEAL, *cards("7H", "8S", "7D", "7C")])
    result = last(tbl)
    assert result["status"] == "settled" and result["dealer"] == ["8S"]
    assert result["net"] == {"box1/main": 45}


def test_sydney_super_bonus_and_envy_bonus() -> None:
    tbl = play("pontoon-sydney", [bet(1, 10), bet(2, 20), DEAL,
                                  *cards("7H", "KS", "7C", "7H", "9S", "7H"), do(2, "stand"),
                                  *cards("JD")])
    # Suited 7-7-7 against a dealer 7 on a stake of 10: a fixed 1000. Box 2: 19 beats 17
    # (+20) and the envy bonus (+50).
    assert last(tbl)["net"] == {"box1/main": 1000, "box2/main": 70}


def test_british_banker_bust_pays_a_trick_double() -> None:
    tbl = play("pontoon-british", [bet(1, 10), DEAL, *cards("2S", "9S", "3H", "6H"),
                                   do(1, "twist"), *cards("4C"), do(1, "twist"), *cards("5D"),
                                   do(1, "twist"), *cards("2C"), *cards("KC")])
    # 2+3+4+5+2 = 16 in five cards is a trick; the banker 9+6+10 busts: paid double.
    assert last(tbl)["net"] == {"box1/main": 20}


@pytest.mark.parametrize(
    ("box_cards", "up", "odds"),
    [(["AS", "AS"], "AS", 300), (["JH", "JD"], "JH", 200), (["7S", "7H"], "7D", 50),
     (["2S", "KC"], "9S", 4), (["2S", "KH"], "9S", None)],
)
def test_three_card_wins_pays_the_highest_combination(box_cards: list[str], up: str,
                                                      odds: int | None) -> None:
    result = three_card_wins.pays([*box_cards, up])
    assert (result[0] if result else None) == odds


@pytest.mark.parametrize(
    ("box_cards", "up", "odds"),
    [(["QS", "QS"], "QS", 300), (["QS", "QD"], "QH", 50), (["QS", "QS"], "5H", 20),
     (["QD", "QH"], "5H", 10), (["QS", "4D"], "5H", 4), (["QD", "6C"], "5H", 2),
     (["KS", "8D"], "9C", None)],
)
def test_queens_trio_pays_the_highest_combination(box_cards: list[str], up: str,
                                                  odds: int | None) -> None:
    result = queens.pays([*box_cards, up])
    assert (result[0] if result else None) == odds


@pytest.mark.parametrize(
    ("box_cards", "odds"),
    [(["7S", "6H", "KD"], 5), (["7S", "7D", "5C"], 50), (["7H", "7D", "7C"], 500),
     (["7S", "7S", "7S"], 5000), (["4S", "7D", "7H"], None)],
)
def test_sevens_side_bet(box_cards: list[str], odds: int | None) -> None:
    result = sevens.pays(box_cards)
    assert (result[0] if result else None) == odds


def test_sevens_prizes_and_pontoon_bonuses() -> None:
    assert sevens_prize(["7H", "7H", "5C"]) is not None
    assert sevens_prize(["7H", "7D", "5C"]) is None
    assert sevens_prize(["7S", "7S", "7S"])[0] == 2  # type: ignore[index]
    assert pontoon_21_bonus(["6S", "7S", "8S"])[0] == 3  # type: ignore[index]
    assert pontoon_21_bonus(["6H", "7H", "8H"])[0] == 2  # type: ignore[index]
    assert pontoon_21_bonus(["6H", "7S", "8H"])[0] == ratio("3:2")  # type: ignore[index]
    assert pontoon_21_bonus(["2S", "2H", "2D", "3C", "3S", "4D", "5D"])[0] == 3  # type: ignore
    assert pontoon_21_bonus(["TS", "5H", "6C"]) is None


def test_british_options_royal_pontoon_treble_and_split_aces_only() -> None:
    royal = [bet(1, 10), DEAL, *cards("7S", "9S", "7H", "8H"), do(1, "twist"), *cards("7D"),
             do("dealer", "stand")]
    # Three 7s against the banker's 17: a royal pontoon is paid treble, else a plain 21.
    assert last(play("pontoon-british", royal, {"royal_pontoon": True}))["net"] == {
        "box1/main": 30}
    assert last(play("pontoon-british", royal))["net"] == {"box1/main": 10}
    eights = play("pontoon-british", [bet(1, 10), DEAL, *cards("8S", "9S", "8H", "8D"),
                                      do(1, "split")], {"split_ranks": "A"})
    assert "only A may be split" in last(eights)["refused"][0]["reason"]
