"""Loading the virtual shoe: shuffled decks or a stacked list of cards."""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path

RANKS = "A23456789TJQK"
SUITS = "SHDC"


class CardListError(ValueError):
    """A stacked card list that cannot be loaded; the message says where and why."""


def parse_card(text: str) -> tuple[int, int]:
    """'AS', 'td', '10H' → (rank 1-13, suit 0-3) as ShoeLink numbers them."""
    code = text.strip().upper()
    if code.startswith("10"):
        code = "T" + code[2:]
    if len(code) != 2 or code[0] not in RANKS or code[1] not in SUITS:
        raise ValueError(
            f"{text!r} is not a card: write rank (A 2-9 T/10 J Q K) then suit (S H D C)"
        )
    return RANKS.index(code[0]) + 1, SUITS.index(code[1])


def normalise(text: str) -> str:
    rank, suit = parse_card(text)
    return RANKS[rank - 1] + SUITS[suit]


def shuffled_shoe(decks: int, seed: int | None = None) -> list[str]:
    """`decks` full 52-card packs shuffled together (reproducible with a seed)."""
    if decks < 1:
        raise ValueError(f"decks = {decks}: a shoe holds at least one deck")
    cards = [rank + suit for _ in range(decks) for suit in SUITS for rank in RANKS]
    random.Random(seed).shuffle(cards)
    return cards


def parse_card_list(text: str, source: str = "<text>") -> list[str]:
    """Cards separated by spaces, commas or new lines; `#` starts a comment."""
    cards: list[str] = []
    problems: list[str] = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        for word in line.split("#", 1)[0].replace(",", " ").split():
            try:
                cards.append(normalise(word))
            except ValueError as error:
                problems.append(f"{source}:{line_number}: {error}")
    if problems:
        raise CardListError("\n".join(problems))
    if not cards:
        raise CardListError(f"{source}: no cards in the file")
    return cards


def load_stacked(path: str | Path) -> list[str]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise CardListError(f"{path}: cannot read the card list: {error.strerror}") from error
    return parse_card_list(text, str(path))


def repeat_to(cards: Iterable[str], count: int) -> list[str]:
    """The first `count` cards of the given order repeated as often as needed."""
    pool = list(cards)
    if not pool:
        raise ValueError("no cards to repeat")
    return [pool[i % len(pool)] for i in range(count)]
