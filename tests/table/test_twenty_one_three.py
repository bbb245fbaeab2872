"""21+3: the box's two cards and the dealer's first card as a three-card poker hand.

The counts and house edges are checked against the Wizard of Odds' analysis of
21+3 (wizardofodds.com/games/blackjack/side-bets/21plus3/, read in a copy at
https://www.jndiario.com/games/blackjack/side-bets/21plus3/): for six decks,
out of 5,013,320 three-card hands, 10,368 straight flushes, 26,312 three of a
kind (1,040 of them suited), 155,520 straights and 292,896 flushes (pair and
flush included); and, for the first version paying every hand 9 to 1, house
edges of 13.30% (1 deck), 7.26% (2), 4.24% (4), 3.24% (6) and 2.74% (8).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from table.cards import pack_cards
from table.profiles import ProfileError, load_profile
from table.sidebets import SIDE_BETS
from table.sidebets.odds import ordered_return
from table.sidebets.twenty_one_three import (
    FLUSH,
    PAYS,
    STRAIGHT,
    STRAIGHT_FLUSH,
    SUITED_TRIPS,
    THREE_OF_A_KIND,
    exact,
    hand_counts,
    hand_of,
)
from tests.table.helpers import DEAL, bet, cards, do, play

STANDARD = pack_cards("standard")


@pytest.mark.parametrize(("three", "hand"), [
    (["AS", "2S", "3S"], STRAIGHT_FLUSH),  # the ace low
    (["QD", "KD", "AD"], STRAIGHT_FLUSH),  # the ace high
    (["KC", "AD", "2H"], None),  # no straight round the corner
    (["7S", "7S", "7S"], SUITED_TRIPS),
    (["7S", "7H", "7S"], THREE_OF_A_KIND),
    (["4C", "6H", "5D"], STRAIGHT),
    (["2H", "9H", "KH"], FLUSH),
    (["2H", "2H", "KH"], FLUSH),  # a pair in one suit is a flush
    (["2H", "2D", "KH"], None),  # a pair pays nothing
    (["9S", "TS", "JS"], STRAIGHT_FLUSH),
])
def test_the_highest_hand_the_three_cards_make(three: list[str], hand: str | None) -> None:
    assert hand_of(three, PAYS) == hand


def test_six_deck_counts_are_the_published_ones() -> None:
    counts = hand_counts(STANDARD, 6)
    assert counts[STRAIGHT_FLUSH] == 10_368
    assert counts[SUITED_TRIPS] == 1_040
    assert counts[THREE_OF_A_KIND] + counts[SUITED_TRIPS] == 26_312
    assert counts[STRAIGHT] == 155_520
    assert counts[FLUSH] == 292_896
    assert sum(counts.values()) == 5_013_320


@pytest.mark.parametrize(("decks", "edge"), [(1, 0.1330), (2, 0.0726), (4, 0.0424),
                                             (6, 0.0324), (8, 0.0274)])
def test_the_nine_to_one_version_has_the_published_house_edge(decks: int, edge: float) -> None:
    nine = dict.fromkeys(PAYS, 9)
    assert float(-exact(STANDARD, decks, nine)) == pytest.approx(edge, abs=5e-5)


def test_the_counting_agrees_with_dealing_every_three_cards_in_order() -> None:
    def pay(three: list[str]) -> int | None:
        hand = hand_of(three, PAYS)
        return None if hand is None else PAYS[hand]
    assert ordered_return(STANDARD, 2, 3, pay) == exact(STANDARD, 2, PAYS)


def test_this_pay_table_on_six_decks() -> None:
    # 1,040 x 100 + 10,368 x 40 + 25,272 x 30 + 155,520 x 10 + 292,896 x 5 won,
    # the other 4,528,224 hands lost: a house edge of 4.62%.
    won = 1_040 * 100 + 10_368 * 40 + 25_272 * 30 + 155_520 * 10 + 292_896 * 5
    assert exact(STANDARD, 6, PAYS) == Fraction(won - 4_528_224, 5_013_320)
    assert float(-exact(STANDARD, 8, PAYS)) == pytest.approx(0.0370, abs=5e-5)


def test_tablectl_rtp_reads_its_exact_odds_from_the_registry() -> None:
    from houseedge.shoe import Shoe
    from table.sidebets import OddsInputs

    shoe = Shoe("standard", 6)
    rules = load_profile("casinos-austria", {"side_bets": ["21+3"]})
    value, method, _ = SIDE_BETS["21+3"].exact_return(
        OddsInputs(rules, shoe.cards, shoe.decks, lambda: 0.0, lambda up: 0.0))
    assert value == exact(STANDARD, 6, PAYS) and method == "exact combinatorics"


def test_a_straight_flush_is_paid_40_to_1_at_the_deal_the_main_bet_plays_on() -> None:
    rules = {"side_bets": ["21+3"]}
    events = [bet(1, 100), bet(1, 10, spot="21+3"), DEAL, *cards("7H", "8H", "9H")]
    tbl = play("casinos-austria", events, rules)
    result = tbl.current_result()
    assert result is not None and result["status"] == "open"
    assert result["settlement"] == [{"player": "box1", "spot": "21+3", "box": 1, "hand": None,
                                     "stake": 10, "payout": 410,
                                     "rule": "21+3 straight flush 40:1"}]
    # 16 stands against the dealer's 8 + 9 = 17: the main bet loses.
    for event in [do(1, "stand"), *cards("9S")]:
        assert tbl.apply(event).accepted
    assert tbl.results()[-1]["net"] == {"box1/21+3": 400, "box1/main": -100}


def test_nothing_loses_the_stake() -> None:
    tbl = play("casinos-austria", [bet(1, 100), bet(1, 10, spot="21+3"), DEAL,
                                   *cards("2S", "9C", "KD")], {"side_bets": ["21+3"]})
    result = tbl.current_result()
    assert result is not None and result["settlement"][0]["rule"] == "21+3 lost"
    assert result["settlement"][0]["payout"] == 0


def test_any_casino_profile_may_offer_it_and_the_banker_game_may_not() -> None:
    assert "21+3" in load_profile("st-moritz", {"side_bets": ["21+3"]}).side_bets
    with pytest.raises(ProfileError, match="21\\+3"):
        load_profile("pontoon-british", {"side_bets": ["21+3"]})
    tbl = play("casinos-austria", [bet(1, 100)])
    assert "not offered here" in (tbl.apply(bet(1, 10, spot="21+3")).reason or "")
