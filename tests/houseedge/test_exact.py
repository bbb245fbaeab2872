"""Exact bets against figures worked out by hand from the rules."""

from __future__ import annotations

from fractions import Fraction
from math import comb, perm

import pytest

from houseedge import exact
from houseedge.dealer import BUST, after_up, off_the_top
from houseedge.shoe import Shoe, remove


def test_pair_11_to_1_on_eight_decks() -> None:
    # The second card matches the first's rank: 31 of the 415 cards left.
    p = Fraction(31, 415)
    assert exact.pair(Shoe("standard", 8), 11) == 12 * p - 1
    assert float(-exact.pair(Shoe("standard", 8), 11)) == pytest.approx(0.103614, abs=1e-6)


@pytest.mark.parametrize(("decks", "tens", "left", "edge"),
                         [(6, 96, 311, 0.073955), (8, 128, 415, 0.074699)])
def test_insurance_after_an_ace(decks: int, tens: int, left: int, edge: float) -> None:
    value = exact.insurance(Shoe("standard", decks))
    assert value == 3 * Fraction(tens, left) - 1
    assert float(-value) == pytest.approx(edge, abs=1e-6)


def test_even_money_is_insurance_on_a_natural() -> None:
    # Box A+T and dealer ace out of 6 decks: 95 tens among 309 cards.
    assert exact.insurance(Shoe("standard", 6), natural=True) == 3 * Fraction(95, 309) - 1


def test_three_card_wins_by_hand() -> None:
    n3 = perm(312, 3)
    spades_aces = perm(6, 3)
    red_jacks = perm(12, 3)
    kind = 13 * perm(24, 3) - spades_aces - red_jacks
    black = perm(156, 3) - 13 * perm(12, 3)  # black trios that are not of a kind
    value = Fraction(301 * spades_aces + 201 * red_jacks + 51 * kind + 5 * black, n3) - 1
    assert exact.three_card(Shoe("standard", 6), "3cw") == value


def test_queens_trio_by_hand() -> None:
    n = 312
    qs, q_other, rest = 6, 18, n - 24  # queens of spades, other queens, the rest
    ways = Fraction(0)
    for s in range(4):
        for o in range(4 - s):
            r = 3 - s - o
            count = comb(qs, s) * comb(q_other, o) * comb(rest, r)
            pays = (300 if s == 3 else 50 if s + o == 3 else 20 if s == 2 else
                    10 if s + o == 2 else 4 if s == 1 else 2 if o == 1 else -1)
            ways += count * (pays + 1 if pays > 0 else 0)
    assert exact.three_card(Shoe("standard", 6), "queens") == ways / comb(n, 3) - 1


def test_sevens_when_the_third_card_always_comes() -> None:
    n = 416
    p7 = Fraction(32, n)
    p77 = p7 * Fraction(31, n - 1)
    p777 = p77 * Fraction(30, n - 2)
    suited = p777 * Fraction(7 * 6, 31 * 30)
    value = (6 * (p7 - p77) + 51 * (p77 - p777) + 501 * (p777 - suited)
             + 5001 * suited) - 1
    assert exact.sevens_first_cards(Shoe("standard", 8), lambda up: 1.0) == value


def test_dealer_busts_off_the_top_of_six_decks_s17() -> None:
    dist = off_the_top(Shoe("standard", 6).counts(), hits_soft_17=False)
    assert dist[BUST] == pytest.approx(0.2819, abs=5e-5)
    assert sum(dist) == pytest.approx(1.0, abs=1e-12)


def test_dealer_ten_up_natural_chance_and_distribution_sum() -> None:
    counts = remove(Shoe("standard", 6).counts(), 10)
    p_natural, dist = after_up(10, counts, hits_soft_17=False)
    assert p_natural == pytest.approx(24 / 311)
    assert sum(dist) == pytest.approx(1.0)
    # A dealer 6 up busts far more often than a ten up.
    assert after_up(6, remove(Shoe("standard", 6).counts(), 6), False)[1][BUST] > dist[BUST] + 0.15
