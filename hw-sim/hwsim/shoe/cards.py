"""Loading the virtual shoe: shuffled decks or a stacked list of cards."""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path

from foundation.cards import ALL_CARDS, CardError, parse_card


class CardListError(ValueError):
    """A stacked card list that cannot be loaded; the message says where and why."""


def shuffled_shoe(decks: int, seed: int | None = None) -> list[str]:
    """`decks` full 52-card packs shuffled together (reproducible with a seed)."""
    if decks < 1:
        raise ValueError(f"decks = {decks}: a shoe holds at least one deck")
    cards = [card for _ in range(decks) for card in ALL_CARDS]
    random.Random(seed).shuffle(cards)
    return cards


def parse_card_list(text: str, source: str = "<text>") -> list[str]:
    """Cards separated by spaces, commas or new lines; `#` starts a comment."""
    cards: list[str] = []
    problems: list[str] = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        for word in line.split("#", 1)[0].replace(",", " ").split():
            try:
                cards.append(parse_card(word))
            except CardError as error:
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
