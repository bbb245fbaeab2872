"""What each of the dealer's buttons means in each phase of a round, read from
what a real table expects at that moment."""

from __future__ import annotations

from typing import Any

import pytest

from table.machine import Table
from table.profiles import load_profile
from table.views import Due
from tablectl.buttons import button_event

BUTTONS = ("stand", "double", "split", "surrender", "insurance", "void", "new_shoe")


def bet(box: int, amount: int) -> dict[str, Any]:
    return {"bet": {"box": box, "amount": amount}}


def do(box: int | str, action: str) -> dict[str, Any]:
    return {"do": {"box": box, "action": action}}


def cards(*codes: str) -> list[dict[str, Any]]:
    return [{"card": code} for code in codes]


DEAL: dict[str, Any] = {"deal": {}}

# Each moment: the events that lead there on a casinos-austria table.
MOMENTS: dict[str, list[dict[str, Any]]] = {
    "empty": [],
    "betting": [bet(2, 100), bet(4, 50)],
    "dealing": [bet(2, 100), bet(4, 50), DEAL, *cards("TS")],
    "insurance": [bet(2, 100), DEAL, *cards("TS", "AD", "9C")],
    # Box 2: T+9; box 4: 5+6. Dealer 6. Box 4 is up once box 2 stands.
    "playing": [bet(2, 100), bet(4, 50), DEAL, *cards("TS", "5H", "6D", "9C", "6S"),
                do(2, "stand")],
    "dealer": [bet(2, 100), DEAL, *cards("TS", "6D", "9C"), do(2, "stand")],
    "settled": [bet(2, 100), DEAL, *cards("TS", "6D", "9C"), do(2, "stand"),
                *cards("KD", "8C")],
    # A card before the deal: EXTRA_CARD halts the round.
    "halted": [bet(2, 100), *cards("5S")],
    "void": [bet(2, 100), *cards("5S"), {"resolve": "void"}],
}

# (moment, button) -> the event a press sends; None where it sends nothing.
NOTHING = None
EXPECTED: dict[tuple[str, str], dict[str, Any] | None] = {}
for _moment in MOMENTS:
    for _button in BUTTONS:
        EXPECTED[(_moment, _button)] = NOTHING
    EXPECTED[(_moment, "new_shoe")] = {"shoe": "loaded"}  # the table judges when
EXPECTED.update({
    ("betting", "stand"): {"deal": {}},
    ("playing", "stand"): do(4, "stand"),
    ("playing", "double"): do(4, "double"),
    ("playing", "split"): do(4, "split"),
    ("playing", "surrender"): do(4, "surrender"),
    ("dealer", "stand"): do("dealer", "stand"),
    ("halted", "void"): {"resolve": "void"},
})


def due_at(moment: str) -> Due:
    table = Table(load_profile("casinos-austria"))
    for event in MOMENTS[moment]:
        table.apply(event)
    return table.due()


def test_the_moments_are_the_phases_they_are_named_after() -> None:
    phases = {moment: due_at(moment).phase for moment in MOMENTS}
    assert phases == {"empty": "betting", "betting": "betting", "dealing": "dealing",
                      "insurance": "insurance", "playing": "playing", "dealer": "dealer",
                      "settled": "settled", "halted": "halted", "void": "void"}
    assert due_at("playing").box == 4
    assert due_at("dealer").dealer == "draw"


@pytest.mark.parametrize(("moment", "button"), sorted(EXPECTED))
def test_each_button_in_each_phase(moment: str, button: str) -> None:
    meaning = button_event(button, due_at(moment))
    assert meaning.event == EXPECTED[(moment, button)]
    if meaning.event is None:
        assert meaning.note.startswith(f"{button}:"), meaning.note


def test_the_notes_say_why_nothing_is_sent() -> None:
    assert "halted" in button_event("stand", due_at("halted")).note
    assert "no box is up" in button_event("double", due_at("dealer")).note
    assert "no misdeal is open" in button_event("void", due_at("playing")).note
    assert "betting terminal" in button_event("insurance", due_at("insurance")).note
    unknown = button_event("call_pit", due_at("playing"))
    assert unknown.event is None and "no meaning" in unknown.note


def test_a_halted_round_sends_no_decision_even_with_a_box_up() -> None:
    # Box 4 is up; the shoe reports an unreadable card, which halts the round.
    table = Table(load_profile("casinos-austria"))
    for event in MOMENTS["playing"]:
        table.apply(event)
    outcome = table.apply({"flag": "UNREADABLE_CARD"})
    assert outcome.flags == ("UNREADABLE_CARD",)
    due = table.due()
    for button in ("stand", "double", "split", "surrender"):
        assert button_event(button, due).event is None
    assert button_event("void", due).event == {"resolve": "void"}
