"""What every side bet module provides, and what `tablectl rtp` hands it for its odds."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Literal, Protocol

from table.sidebets.odds import EXACT

if TYPE_CHECKING:
    from table.profiles import Rules

# When a side bet settles: "deal" once the box's first two cards and the dealer's first
# card are out; "end" with the dealer's finished hand.
Settles = Literal["deal", "end"]
# What a winning bet pays to one and the rule's name for the settlement line.
Win = tuple[Fraction, str]


@dataclass(frozen=True, slots=True)
class OddsInputs:
    """A freshly loaded shoe and what only the house-edge analysis knows.

    `cards` holds every card code once and `copies` how many of each the shoe has;
    `dealer_bust` is the chance the dealer busts off the top; `third_card(up)` the
    chance a box holding 7-7 takes a third card against a dealer card of value `up`
    (1-10, as text) under the strategy assumed.
    """

    rules: Rules
    cards: tuple[str, ...]
    copies: int
    dealer_bust: Callable[[], float]
    third_card: Callable[[str], float]

    @property
    def size(self) -> int:
        return len(self.cards) * self.copies


class SideBet(Protocol):
    """One side bet: when it is offered, when it settles, what it pays, its exact odds."""

    @property
    def spot(self) -> str:
        """The name profiles and bet events use."""

    @property
    def title(self) -> str:
        """The name in the house-edge report."""

    @property
    def games(self) -> tuple[str, ...]:
        """The games (`Rules.game`) that may offer it."""

    @property
    def settles(self) -> Settles: ...

    @property
    def depends_on_play(self) -> bool:
        """Its odds depend on how the box is played (the strategy `tablectl rtp` assumes)."""

    @property
    def needs_dealer_hand(self) -> bool:
        """The dealer plays out the whole hand while this bet is open."""

    def stake_problem(self, rules: Rules, total: int) -> str | None:
        """Why `total` (the bettor's stake on it after this bet) is refused, or None."""

    def judge(self, rules: Rules, box_cards: Sequence[str],
              dealer_cards: Sequence[str]) -> Win | None:
        """What it pays on these cards (None: it loses)."""

    def lost(self) -> str:
        """The settlement line's rule when it loses."""

    def exact_return(self, inputs: OddsInputs) -> tuple[Fraction | float, str, str]:
        """Expected net return per unit staked, the method, and a note (may be empty)."""


class DealtBet:
    """What most side bets share: offered by the casino game, any stake, settled at the
    deal on the first cards; a module sets its names and says what pays."""

    spot: str
    title: str
    games: tuple[str, ...] = ("casino",)
    settles: Settles = "deal"
    depends_on_play = False
    needs_dealer_hand = False

    def stake_problem(self, rules: Rules, total: int) -> str | None:
        return None

    def lost(self) -> str:
        return f"{self.spot} lost"


class ThreeCardBet(DealtBet):
    """A bet on the box's first two cards and the dealer's first card: a module
    names its pay table (`pay`) and its exact return on a fresh shoe (`odds`)."""

    pay: Callable[[Sequence[str]], Win | None]
    odds: Callable[[Sequence[str], int], Fraction]

    def judge(self, rules: Rules, box_cards: Sequence[str],
              dealer_cards: Sequence[str]) -> Win | None:
        return self.pay([box_cards[0], box_cards[1], dealer_cards[0]])

    def exact_return(self, inputs: OddsInputs) -> tuple[Fraction | float, str, str]:
        return self.odds(inputs.cards, inputs.copies), EXACT, ""
