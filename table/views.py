"""What the table tells the outside world: outcomes, what is due, and frozen snapshots."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Outcome:
    """The answer to one event."""

    accepted: bool
    reason: str | None = None
    flags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Due:
    """What the table expects now."""

    phase: str
    round: int
    # The box and hand that is up (None outside play).
    box: int | None
    hand: int | None
    # Legal decisions for the active hand, as scenario action names.
    actions: tuple[str, ...]
    # "draw" or "stand" while the dealer (or banker) completes the hand, else None.
    dealer: str | None
    halted: bool
    open_flags: tuple[str, ...]
    card_expected: bool
    # Where the next card goes: a box number, "dealer", or None.
    card_for: int | str | None
    # Resolutions allowed while halted.
    resolutions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HandView:
    index: int
    cards: tuple[str, ...]
    total: int
    soft: bool
    stakes: tuple[tuple[str, int], ...]
    status: str
    result: str | None


@dataclass(frozen=True, slots=True)
class BoxView:
    number: int
    owner: str
    bets: tuple[tuple[str, str, int], ...]
    hands: tuple[HandView, ...]
    active: bool


@dataclass(frozen=True, slots=True)
class TableView:
    round: int
    phase: str
    boxes: tuple[BoxView, ...]
    dealer: tuple[str, ...]
    dealer_total: int
    dealer_soft: bool
    flags: tuple[str, ...]
    halted: bool
    banker: str
