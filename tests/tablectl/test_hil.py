"""Every conformance case through the whole stack: cards out of the virtual
shoe on a pty, events through the local API, lamps read back from mock pins,
results from the table and the journal."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tablectl.cli import main
from tests.cases.scenario_files import PROJECT_CASES, SHARED_CASES, load_scenario, scenario_paths
from tests.conftest import HilPlayer

SHARED = scenario_paths(SHARED_CASES)
PROJECT = scenario_paths(PROJECT_CASES)


@pytest.mark.parametrize("path", SHARED, ids=[p.stem for p in SHARED])
def test_a_shared_case_passes_through_the_stack(path: Path, hil: HilPlayer) -> None:
    result = hil(load_scenario(path))
    assert result.passed, "\n".join(result.problems())


@pytest.mark.parametrize("path", PROJECT, ids=[p.stem for p in PROJECT])
def test_a_project_case_passes_through_the_stack(path: Path, hil: HilPlayer) -> None:
    result = hil(load_scenario(path))
    assert result.passed, "\n".join(result.problems())


def _two_rounds() -> dict[str, Any]:
    # Worked out from the rules: box 1 stands on 19 against the dealer's 6-K-8 bust: +100;
    # then box 1 stands on 17 against the dealer's 20: -100.
    return {
        "format": "table-scenario/1", "name": "two rounds", "profile": "casinos-austria",
        "rounds": [
            {"events": [{"bet": {"box": 1, "amount": 100}}, {"deal": {}}, {"card": "TS"},
                        {"card": "6D"}, {"card": "9C"}, {"do": {"box": 1, "action": "stand"}},
                        {"card": "KD"}, {"card": "8C"}],
             "expect": {"status": "settled", "net": {"box1/main": 100},
                        "dealer": ["6D", "KD", "8C"]}},
            {"events": [{"bet": {"box": 1, "amount": 100}}, {"deal": {}}, {"card": "TH"},
                        {"card": "KC"}, {"card": "7S"}, {"do": {"box": 1, "action": "stand"}},
                        {"card": "QH"}],
             "expect": {"status": "settled", "net": {"box1/main": -100},
                        "dealer": ["KC", "QH"]}},
        ],
    }


def test_rounds_are_journaled_and_lamps_show_each_result(hil: HilPlayer) -> None:
    result = hil(_two_rounds())
    assert result.passed, "\n".join(result.problems())
    assert [r["net"] for r in result.rounds] == [{"box1/main": 100}, {"box1/main": -100}]


def test_a_wrong_expectation_is_reported(hil: HilPlayer) -> None:
    doc = _two_rounds()
    doc["rounds"][0]["expect"]["net"] = {"box1/main": 150}
    result = hil(doc)
    assert not result.passed
    assert result.differences == [
        "round 1: net: expected {\"box1/main\": 150}, got {\"box1/main\": 100} "
        "(box1/main: expected 150, got 100)"
    ]


def test_lamps_that_do_not_follow_the_table_are_reported(
    hil: HilPlayer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from firmware_bridge.panel import LampPicture

    # A panel stuck dark: the harness must see it from the pins.
    monkeypatch.setattr("tablectl.daemon.lamp_picture", lambda *a, **k: LampPicture())
    result = hil(copy.deepcopy(_two_rounds()))
    assert result.differences == []
    assert any("was not blinking" in p for p in result.lamp_problems)
    assert any("the draw lamp is off" in p for p in result.lamp_problems)
    assert any("nets +100 but its lamp shows off" in p for p in result.lamp_problems)


def test_the_command_plays_files_and_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_two_rounds()), encoding="utf-8")
    bad_doc = _two_rounds()
    bad_doc["rounds"][1]["expect"]["dealer"] = ["KC"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_doc), encoding="utf-8")
    assert main(["hil", str(good)]) == 0
    assert main(["hil", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"pass {good}" in out and f"FAIL {bad}" in out
    assert 'round 2: dealer: expected ["KC"], got ["KC", "QH"]' in out
    assert "1 of 2 passed through the whole stack" in out
