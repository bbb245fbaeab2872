"""What a press of one of the dealer's buttons means at this moment of the round.

A pure function of the button's name and what the table expects (`Due`), so
the panel driver stays ignorant of blackjack and this is testable alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from table.views import Due

BOX_DECISIONS = ("double", "split", "surrender")


@dataclass(frozen=True)
class ButtonMeaning:
    """The event a press sends, or why it sends none."""

    event: dict[str, Any] | None
    note: str = ""


def button_event(name: str, due: Due) -> ButtonMeaning:
    if name == "stand":
        return _stand(due)
    if name in BOX_DECISIONS:
        if due.phase == "playing" and not due.halted and due.box is not None:
            return ButtonMeaning({"do": {"box": due.box, "action": name}})
        return ButtonMeaning(None, f"{name}: no box is up")
    if name == "void":
        if due.halted:
            return ButtonMeaning({"resolve": "void"})
        return ButtonMeaning(None, "void: no misdeal is open (a pit terminal voids a round)")
    if name == "new_shoe":
        return ButtonMeaning({"shoe": "loaded"})
    if name == "insurance":
        return ButtonMeaning(None, "insurance: each player answers at the betting terminal")
    return ButtonMeaning(None, f"{name}: this button has no meaning at the table")


def _stand(due: Due) -> ButtonMeaning:
    """Stand / next: stand the box that is up, the dealer's stand, or close the bets."""
    if due.halted:
        return ButtonMeaning(None, "stand: the round is halted; the pit resolves it first")
    if due.phase == "playing" and due.box is not None:
        return ButtonMeaning({"do": {"box": due.box, "action": "stand"}})
    if due.phase == "dealer":  # against the draw rule too: the table flags it
        return ButtonMeaning({"do": {"box": "dealer", "action": "stand"}})
    if due.phase == "betting" and due.round > 0:
        return ButtonMeaning({"deal": {}})
    return ButtonMeaning(None, f"stand: nothing to stand on ({due.phase})")
