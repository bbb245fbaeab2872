"""The card alphabet: how every package writes, reads and numbers a card.

A card is a two-letter code, rank then suit: `AS`, `TD`, `7C`. Ranks are
`A 2-9 T J Q K`, suits `S H D C`. People and scanners also write `10` for `T`
and lower case; `parse_card` accepts those and gives the code. ShoeLink numbers
a card (rank 1-13, suit 0-3) by its letter's place in `RANKS` and `SUITS`.
"""

from __future__ import annotations

RANKS = "A23456789TJQK"  # rank number = index + 1
SUITS = "SHDC"  # suit number = index
TEN = "T"
# One pack, suit by suit: AS 2S ... KS AH ... KC.
ALL_CARDS: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
SPELLING_HINT = "write rank A 2-9 T(or 10) J Q K then suit S H D C, e.g. 'AS', 'TD'"


class CardError(ValueError):
    """Not a card, or cards a shoe cannot hold; `problem` says what is wrong in a few words."""

    def __init__(self, message: str, problem: str = "") -> None:
        super().__init__(message)
        self.problem = problem or message


def _spellings() -> dict[str, str]:
    table: dict[str, str] = {}
    for rank in RANKS:
        ranks = [rank, rank.lower()] + (["10"] if rank == TEN else [])
        for suit in SUITS:
            for spelled_rank in ranks:
                for spelled_suit in (suit, suit.lower()):
                    table[spelled_rank + spelled_suit] = rank + suit
    return table


_CODE_OF_SPELLING = _spellings()  # one dict lookup per card on the hot path
_NUMBERS_OF_CODE = {
    rank + suit: (rank_index + 1, suit_index)
    for rank_index, rank in enumerate(RANKS)
    for suit_index, suit in enumerate(SUITS)
}


def parse_card(text: object) -> str:
    """The code of a card written `AS`, `as`, `10h`, `Td` (spaces around allowed).

    CardError otherwise, its `problem` naming the part that is wrong."""
    if isinstance(text, str):
        code = _CODE_OF_SPELLING.get(text.strip())
        if code is not None:
            return code
    raise CardError(f"unknown card {text!r}: {SPELLING_HINT}", _problem(text))


def _problem(text: object) -> str:
    if not isinstance(text, str):
        return f"a card is text, not {type(text).__name__}"
    spelled = text.strip().upper()
    if spelled.startswith("10"):
        spelled = TEN + spelled[2:]
    if len(spelled) != 2:
        return "expected a rank (A 2-9 10/T J Q K) and a suit (S H D C)"
    if spelled[0] not in RANKS:
        return f"unknown rank {spelled[0]!r}"
    return f"unknown suit {spelled[1]!r}"


def is_card_code(code: str) -> bool:
    """True for a code exactly as this alphabet writes it (`TD`, not `10d`)."""
    return code in _NUMBERS_OF_CODE


def card_code(rank_number: int, suit_number: int) -> str:
    """The code of ShoeLink's rank 1-13 and suit 0-3: (1, 0) → 'AS', (10, 2) → 'TD'."""
    if not 1 <= rank_number <= len(RANKS) or not 0 <= suit_number < len(SUITS):
        raise ValueError(f"rank {rank_number} must be 1-13 and suit {suit_number} 0-3")
    return RANKS[rank_number - 1] + SUITS[suit_number]


def card_numbers(text: str) -> tuple[int, int]:
    """ShoeLink's (rank 1-13, suit 0-3) of a card written any way `parse_card` reads."""
    return _NUMBERS_OF_CODE[parse_card(text)]


def rank_label(rank: str) -> str:
    """The rank as printed on a card: `T` is printed `10`."""
    return "10" if rank == TEN else rank
