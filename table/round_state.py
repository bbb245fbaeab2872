"""The mutable state of one round: boxes, hands, stakes and the settlement ledger."""

from __future__ import annotations

from dataclasses import dataclass, field

from table.hands import hand_value, hard_total


@dataclass(slots=True, eq=False)
class Hand:
    """One hand of a box; `stakes` holds every bettor's stake on it."""

    box: int
    cards: list[str]
    stakes: dict[str, int]
    originals: dict[str, int]
    from_split: bool = False
    split_ace: bool = False
    doubles: int = 0
    # Cards the hand must still receive before anyone may decide (after a split or a double).
    owed: int = 0
    done: bool = False
    # playing, stood, bust, natural, surrendered, late_surrender, rescued, paid
    status: str = "playing"
    decisions: int = 0
    autoplay: bool = False
    ace_as_one: bool = False
    twisted: bool = False
    # British pontoon: a card has been asked for (buy or twist).
    card_asked: bool = False
    buys: list[int] = field(default_factory=list)
    # Bettors whose stake on this hand is settled already (at once).
    settled: set[str] = field(default_factory=set)

    def total(self) -> int:
        if self.ace_as_one:
            return hard_total(self.cards)
        return hand_value(self.cards)[0]

    def is_soft(self) -> bool:
        return not self.ace_as_one and hand_value(self.cards)[1]

    def total_and_soft(self) -> tuple[int, bool]:
        """`total()` and `is_soft()` in one count."""
        if self.ace_as_one:
            return hard_total(self.cards), False
        return hand_value(self.cards)

    def open_players(self) -> list[str]:
        return [player for player in self.stakes if player not in self.settled]


@dataclass(slots=True, eq=False)
class Pending:
    """A co-bettor choice still open: follow or decline the owner's split or double."""

    kind: str
    hand: Hand
    players: set[str]


@dataclass(slots=True, eq=False)
class Box:
    number: int
    owner: str
    main: dict[str, int] = field(default_factory=dict)
    side: dict[tuple[str, str], int] = field(default_factory=dict)
    hands: list[Hand] = field(default_factory=list)
    dealt: list[str] = field(default_factory=list)
    insurance: dict[str, int] = field(default_factory=dict)
    insurance_answered: bool = False
    pending: list[Pending] = field(default_factory=list)
    # An immediate bonus ended the box's game.
    over: bool = False


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of the settlement: what a bettor staked on a spot and got back."""

    player: str
    spot: str
    box: int
    hand: int | None
    stake: int
    payout: int
    rule: str

    def to_json(self) -> dict[str, object]:
        return {
            "player": self.player, "spot": self.spot, "box": self.box, "hand": self.hand,
            "stake": self.stake, "payout": self.payout, "rule": self.rule,
        }


@dataclass(slots=True, eq=False)
class Halt:
    code: str
    card: str | None
    # The phase to go back to on `accept`.
    resume: str


@dataclass(slots=True, eq=False)
class Round:
    number: int
    boxes: dict[int, Box] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)
    dealer: list[str] = field(default_factory=list)
    burned: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    ledger: list[Entry] = field(default_factory=list)
    refused: list[dict[str, object]] = field(default_factory=list)
    deal_queue: list[int | str] = field(default_factory=list)
    deal_pos: int = 0
    halt: Halt | None = None
    status: str = "open"
    dealer_stood: bool = False
    next_banker: str | None = None

    def hand_index(self, hand: Hand) -> int:
        return self.boxes[hand.box].hands.index(hand)
