"""The card alphabet: spellings read, codes written, ShoeLink's numbers, and errors."""

from __future__ import annotations

import pytest

from foundation.cards import (
    ALL_CARDS,
    CardError,
    card_code,
    card_numbers,
    is_card_code,
    parse_card,
    rank_label,
)


@pytest.mark.parametrize(
    ("text", "card"),
    [("AS", "AS"), ("TD", "TD"), ("10H", "TH"), ("10h", "TH"), ("qd", "QD"), (" 7c ", "7C"),
     ("Ks", "KS"), (" th \r", "TH")],
)
def test_cards_parse_in_every_accepted_spelling(text: str, card: str) -> None:
    assert parse_card(text) == card


@pytest.mark.parametrize("text", ["1X", "11H", "AX", "", "A", "ASS", "0S", 7, None])
def test_a_bad_card_is_refused_with_the_notation(text: object) -> None:
    with pytest.raises(CardError, match="rank A 2-9 T"):
        parse_card(text)


@pytest.mark.parametrize(
    ("text", "problem"),
    [("1H", "unknown rank '1'"), ("XZ", "unknown rank 'X'"), ("ax", "unknown suit 'X'"),
     ("AS7", "expected a rank"), ("10", "expected a rank"), ("", "expected a rank"),
     (7, "a card is text, not int")],
)
def test_the_error_names_the_part_that_is_wrong(text: object, problem: str) -> None:
    with pytest.raises(CardError) as caught:
        parse_card(text)
    assert caught.value.problem.startswith(problem)


def test_one_pack_holds_each_of_the_52_cards_once_suit_by_suit() -> None:
    assert len(ALL_CARDS) == len(set(ALL_CARDS)) == 52
    assert ALL_CARDS[:3] == ("AS", "2S", "3S") and ALL_CARDS[-1] == "KC"
    assert all(is_card_code(card) for card in ALL_CARDS)


@pytest.mark.parametrize(
    ("numbers", "card"),  # PROTOCOL.md: rank 1 = A ... 13 = K; suit 0 = S, 1 = H, 2 = D, 3 = C
    [((1, 0), "AS"), ((10, 2), "TD"), ((13, 3), "KC"), ((7, 1), "7H"), ((12, 2), "QD")],
)
def test_shoelink_numbers_and_codes_go_both_ways(numbers: tuple[int, int], card: str) -> None:
    assert card_code(*numbers) == card
    assert card_numbers(card) == numbers


@pytest.mark.parametrize("numbers", [(0, 0), (14, 0), (1, 4), (1, -1)])
def test_numbers_outside_the_alphabet_are_refused(numbers: tuple[int, int]) -> None:
    with pytest.raises(ValueError, match="must be 1-13"):
        card_code(*numbers)


def test_codes_are_exact_and_labels_print_ten_as_10() -> None:
    assert not is_card_code("10H") and not is_card_code("as")
    assert card_numbers("10h") == (10, 1)
    assert rank_label("T") == "10" and rank_label("Q") == "Q"
