"""The phase machine: legality declared once in `transitions`, run from its own table."""

from __future__ import annotations

import logging

import pytest

from table.checks import Refused
from table.events import Bet, Card, Do
from table.flows import FLOWS
from table.machine import Table
from table.phases import PHASES, PhaseMachine
from table.profiles import load_profile


def test_the_phases_are_the_documented_ones_and_no_shortcut_exists() -> None:
    tbl = Table(load_profile("casinos-austria"))
    machine = tbl.phases.machine
    assert set(machine.states) == set(PHASES)
    assert not hasattr(tbl.phases, "to_playing")
    assert logging.getLogger("transitions").getEffectiveLevel() >= logging.WARNING


@pytest.mark.parametrize("profile", ["casinos-austria", "pontoon-british"])
def test_fire_accepts_exactly_what_transitions_declares(profile: str) -> None:
    phases = Table(load_profile(profile)).phases
    triggers = set(phases.machine.events)
    for phase in PHASES:
        declared = set(phases.machine.get_triggers(phase))
        assert {t for t in triggers if phases.legal(t, phase)} == declared, phase


def test_only_the_casino_game_has_an_insurance_phase_and_only_the_banker_raises() -> None:
    casino = Table(load_profile("casinos-austria")).phases
    banker = Table(load_profile("pontoon-british")).phases
    assert casino.legal("open_insurance", "dealing") and not banker.legal("open_insurance",
                                                                           "dealing")
    assert banker.legal("bet", "dealing") and not casino.legal("bet", "dealing")
    assert set(FLOWS) == {"casino", "banker"}


def test_conditions_before_and_after_run_in_order_and_a_refusal_changes_nothing() -> None:
    calls: list[str] = []
    machine = PhaseMachine(
        [{"trigger": "go", "source": "betting", "dest": "dealing",
          "conditions": [lambda n: n > 0], "before": [lambda n: calls.append(f"before {n}")],
          "after": [lambda n: calls.append(f"after {n}")]}],
        lambda trigger, phase, event: f"no {trigger} while {phase}")
    with pytest.raises(Refused, match="no go while betting"):
        machine.fire("go", 0)
    assert machine.state == "betting" and calls == []
    machine.fire("go", 2)
    assert machine.state == "dealing" and calls == ["before 2", "after 2"]
    with pytest.raises(Refused, match="no go while dealing"):
        machine.fire("go", 2)


def test_a_callback_named_by_string_is_refused_when_the_machine_is_built() -> None:
    with pytest.raises(ValueError, match="callables"):
        PhaseMachine([{"trigger": "go", "source": "betting", "dest": None,
                       "before": ["some_method"]}], lambda t, p, a: "no")


def test_each_phase_refuses_with_the_reason_the_players_read() -> None:
    tbl = Table(load_profile("casinos-austria"))
    assert tbl.apply(Do(1, "stand")).reason == "box 1 has no hand in play"
    assert tbl.apply(Do("dealer", "hit")).reason == "the dealer's only decision is stand, not hit"
    assert tbl.apply(Bet(1, 10)).accepted
    assert tbl.apply(Card("5S")).flags == ("EXTRA_CARD",)
    assert tbl.apply(Bet(1, 10)).reason == ("the round is halted on a misdeal: resolve it "
                                           "(void or accept) first")
