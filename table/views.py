"""What the table tells the outside world: outcomes, what is due, and frozen snapshots."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any


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


def to_json(value: Due | TableView) -> dict[str, Any]:
    """A `Due` or `TableView` as plain JSON values (tuples become lists)."""
    return asdict(value)


def due_from_json(data: Mapping[str, Any]) -> Due:
    """The inverse of `to_json` for a `Due` (e.g. read back from the local API)."""
    fields = dict(data)
    for key in ("actions", "open_flags", "resolutions"):
        fields[key] = tuple(fields.get(key, ()))
    return Due(**fields)


def view_from_json(data: Mapping[str, Any]) -> TableView:
    """The inverse of `to_json` for a `TableView`."""
    boxes = tuple(
        BoxView(
            box["number"], box["owner"], tuple(tuple(bet) for bet in box["bets"]),
            tuple(
                HandView(
                    hand["index"], tuple(hand["cards"]), hand["total"], hand["soft"],
                    tuple(tuple(stake) for stake in hand["stakes"]), hand["status"],
                    hand["result"],
                )
                for hand in box["hands"]
            ),
            box["active"],
        )
        for box in data["boxes"]
    )
    return TableView(
        data["round"], data["phase"], boxes, tuple(data["dealer"]), data["dealer_total"],
        data["dealer_soft"], tuple(data["flags"]), data["halted"], data["banker"],
    )
