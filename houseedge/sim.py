"""Fast simulation of the main game, Dealer Bust and Pair on one box, vectorised with numpy.

Many shoes are played side by side ("lanes"), one box each, round after
round to the cut card, in the order the table deals: box, dealer, box, (hole
card), the box's play hand by hand (a split hand gets its second card when it
comes up), then the dealer only as far as an open bet needs. Decisions come
from the profile's strategy (`mainbet.Analysis`); amounts are whole units
on a stake of 10, rounded down like the table. `crosscheck` plays the same
shoes through the table engine and compares every round.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from foundation.cards import ALL_CARDS, RANKS, SUITS
from houseedge.mainbet import Analysis, category
from houseedge.strategy import up_name
from table.cards import pack_cards
from table.payouts import ratio, sevens_prize, win_amount
from table.profiles import Rules

STAKE = 10
Ints = npt.NDArray[np.int64]
S, H, D, P, R = 0, 1, 2, 3, 4
PLAYING, STOOD, BUST, SURRENDERED, NATURAL, PAID, RESCUED = 0, 1, 2, 3, 4, 5, 6
CODES = {"S": S, "H": H, "D": D, "P": P, "R": R}
VALUE = np.array([1 if c[0] == "A" else 10 if c[0] in "TJQK" else int(c[0]) for c in ALL_CARDS])
RANK = np.array([RANKS.index(c[0]) for c in ALL_CARDS])
SUIT = np.array([SUITS.index(c[1]) for c in ALL_CARDS])
AS, JS = ALL_CARDS.index("AS"), ALL_CARDS.index("JS")


# The games the fast simulator plays; the banker game has a simulator of its own.
SIMULATED_GAMES = frozenset({"casino"})


class Unsupported(ValueError):
    """A rule the fast simulator does not play (the analysis still covers it)."""


def check_supported(rules: Rules) -> None:
    refuse = {
        "game": rules.game not in SIMULATED_GAMES,
        "doubles_per_hand": rules.doubles_per_hand != 1,
        # The bonus suits of a third or fourth split hand would need the table's hand order.
        "pontoon_bonuses": rules.pontoon_bonuses and rules.max_split_hands > 2,
        "max_hand_cards": rules.max_hand_cards != 0,
    }
    bad = [key for key, on in refuse.items() if on]
    if bad:
        raise Unsupported(f"{rules.name}: the casino-game simulator does not play "
                          f"{', '.join(bad)} as this profile sets it")


@dataclass
class Tables:
    """The strategy as lookup arrays."""

    first: Ints  # [i, j, up] -> action
    later: Ints  # [hard, ace, cards, mode, up] -> S / H / D

    @classmethod
    def of(cls, analysis: Analysis) -> Tables:
        first = np.full((11, 11, 11), S, dtype=np.int64)
        for up in range(1, 11):
            for i in range(1, 11):
                for j in range(1, 11):
                    if {i, j} == {1, 10}:
                        continue
                    move = analysis.chart.get((category(min(i, j), max(i, j)), up))
                    if move is not None:
                        first[i, j, up] = CODES[move]
        later = np.full((32, 2, 8, 3, 11), S, dtype=np.int64)
        for up in range(1, 11):
            for (hard, ace, cards, mode), move in analysis.later[up].items():
                if move in CODES and hard < 32:
                    later[hard, int(ace), cards, mode, up] = CODES[move]
        return cls(first, later)


@dataclass
class Record:
    """Per round of each recorded lane: cards used, net per hand, net of each side bet."""

    cards: list[int] = field(default_factory=list)
    hands: list[list[int]] = field(default_factory=list)
    sides: list[dict[str, int]] = field(default_factory=list)


@dataclass
class SimOutcome:
    rounds: int
    main_sum: float
    main_sq: float
    side_sum: dict[str, float]
    side_sq: dict[str, float]
    records: list[Record] = field(default_factory=list)

    def mean(self, spot: str = "main") -> float:
        total = self.main_sum if spot == "main" else self.side_sum[spot]
        return total / self.rounds / STAKE

    def stderr(self, spot: str = "main") -> float:
        total = self.main_sum if spot == "main" else self.side_sum[spot]
        sq = self.main_sq if spot == "main" else self.side_sq[spot]
        mean = total / self.rounds
        var = sq / self.rounds - mean * mean
        return float(np.sqrt(max(var, 0.0) / self.rounds)) / STAKE


def new_shoes(rules: Rules, lanes: int, rng: np.random.Generator) -> Ints:
    base = np.array([ALL_CARDS.index(c) for c in pack_cards(rules.shoe)] * rules.decks)
    return rng.permuted(np.tile(base, (lanes, 1)), axis=1)


def tops_of_shoes(rules: Rules, lanes: int, rng: np.random.Generator, cards: int = 80) -> Ints:
    """The first `cards` cards of `lanes` freshly shuffled shoes (a partial Fisher-Yates)."""
    base = np.array([ALL_CARDS.index(c) for c in pack_cards(rules.shoe)] * rules.decks,
                    dtype=np.int16)
    shoes = np.tile(base, (lanes, 1))
    size = shoes.shape[1]
    rows = np.arange(lanes)
    for k in range(min(cards, size)):
        j = k + (rng.random(lanes) * (size - k)).astype(np.int64)
        picked = shoes[rows, j]
        shoes[rows, j] = shoes[:, k]
        shoes[:, k] = picked
    return shoes[:, :cards].astype(np.int64)


def shoe_codes(shoe: Ints) -> list[str]:
    return [ALL_CARDS[int(c)] for c in shoe]


__all__ = ["Tables", "SimOutcome", "Record", "new_shoes", "shoe_codes", "up_name", "ratio",
           "sevens_prize", "win_amount"]
