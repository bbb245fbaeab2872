"""Shoe compositions and the shoe inventory."""

from __future__ import annotations

import pytest

from foundation.cards import CardError
from table.cards import ShoeInventory, pack_cards, shoe_composition


def test_a_standard_pack_has_52_cards_and_a_spanish_pack_48_without_tens() -> None:
    assert len(pack_cards("standard")) == 52
    spanish = pack_cards("spanish")
    assert len(spanish) == 48
    assert not [card for card in spanish if card[0] == "T"]
    assert {"JS", "QH", "KD"} <= set(spanish)


def test_six_decks_hold_312_cards_six_of_each() -> None:
    shoe = shoe_composition("standard", 6)
    assert sum(shoe.values()) == 312
    assert set(shoe.values()) == {6}
    assert sum(shoe_composition("spanish", 8).values()) == 384


def test_the_inventory_refuses_a_seventh_ace_of_spades_in_six_decks() -> None:
    inventory = ShoeInventory("standard", 6)
    for _ in range(6):
        assert inventory.can_hold("AS")
        inventory.take("AS")
    assert not inventory.can_hold("AS")
    with pytest.raises(CardError, match="IMPOSSIBLE_CARD"):
        inventory.take("AS")
    assert inventory.dealt == 6
    assert inventory.remaining == 306


def test_a_spanish_shoe_cannot_hold_a_ten() -> None:
    inventory = ShoeInventory("spanish", 8)
    assert not inventory.can_hold("TD")
    assert inventory.left("JD") == 8


def test_reload_and_put_back_restore_the_inventory() -> None:
    inventory = ShoeInventory("standard", 1)
    inventory.take("9S")
    assert not inventory.can_hold("9S")
    inventory.put_back(["9S"])
    assert inventory.can_hold("9S")
    with pytest.raises(CardError, match="cannot go back"):
        inventory.put_back(["9S"])
    inventory.take("9S")
    inventory.reload()
    assert inventory.can_hold("9S") and inventory.dealt == 0
