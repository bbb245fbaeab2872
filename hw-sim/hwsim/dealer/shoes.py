"""New shoes for the dealer: what goes in, and when."""

from __future__ import annotations

import hashlib

from hwsim.shoe.cards import shuffled_shoe
from table.cards import SPANISH, pack_cards
from table.profiles import Rules

# The most cards one box's hand is planned for (a generous bound, splits aside).
CARDS_PER_HAND = 5


def derived_seed(*parts: object) -> int:
    """A stable 64-bit seed from several parts (Python's hash() changes per process)."""
    text = ":".join(str(part) for part in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def seeded_shoe(rules: Rules, seed: int) -> list[str]:
    """A shuffled shoe of the profile's decks and kind (Spanish packs lose their 10s)."""
    cards = shuffled_shoe(rules.decks, seed=seed)
    if rules.shoe == SPANISH:
        cards = [card for card in cards if card[0] != "T"]
    return cards


def shoe_size(rules: Rules) -> int:
    return len(pack_cards(rules.shoe)) * rules.decks


def cards_for_a_round(boxes: int) -> int:
    """Enough cards for a round of `boxes` boxes and the dealer, splits aside."""
    return (boxes + 1) * CARDS_PER_HAND


def needs_new_shoe(rules: Rules, cards_left: int, boxes: int) -> bool:
    """The cut card: fewer than a quarter of the shoe left, or fewer than a round needs."""
    return cards_left < max(shoe_size(rules) // 4, cards_for_a_round(boxes))
