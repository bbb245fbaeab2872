"""Hand values worked out from the rules: aces, soft totals, naturals, tricks, pairs."""

from __future__ import annotations

import pytest

from table.hands import hand_value, hard_total, is_bust, is_five_card_trick, is_natural, is_pair


@pytest.mark.parametrize(
    ("cards", "total", "soft"),
    [
        (["AS", "6D"], 17, True),
        (["AS", "6D", "9C"], 16, False),
        (["AS", "AH"], 12, True),
        (["AS", "AH", "9C"], 21, True),
        (["AS", "AH", "AD", "AC", "7S"], 21, True),
        (["KS", "QH"], 20, False),
        (["TS", "5H", "7C"], 22, False),
        (["5S", "6H"], 11, False),
    ],
)
def test_hand_values(cards: list[str], total: int, soft: bool) -> None:
    assert hand_value(cards) == (total, soft)


def test_hard_total_counts_every_ace_as_one() -> None:
    assert hard_total(["AH", "8C", "2S"]) == 11
    assert is_bust(["TS", "5H", "7C"])
    assert not is_bust(["AS", "AH", "KD", "9C"])


@pytest.mark.parametrize(
    ("cards", "natural"),
    [(["AS", "KD"], True), (["JC", "AH"], True), (["AS", "TD"], True), (["AS", "9D"], False),
     (["AS", "5D", "5C"], False), (["KS", "QD"], False)],
)
def test_natural_is_an_ace_and_a_ten_value_card_in_two_cards(cards: list[str],
                                                             natural: bool) -> None:
    assert is_natural(cards) is natural


def test_five_card_trick_is_five_cards_at_most_21() -> None:
    assert is_five_card_trick(["2S", "3D", "4S", "5S", "AH"])
    assert not is_five_card_trick(["2S", "3D", "4S", "5S", "KH"])
    assert not is_five_card_trick(["2S", "3D", "4S", "5S"])


def test_pairs_by_value_and_by_rank() -> None:
    assert is_pair(["JS", "QH"], by_rank=False)
    assert not is_pair(["JS", "QH"], by_rank=True)
    assert is_pair(["8S", "8D"], by_rank=True)
    assert not is_pair(["8S", "8D", "8C"], by_rank=False)
