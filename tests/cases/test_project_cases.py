"""The project's own conformance cases, worked out by hand from RULES.md, run
through the engine's scenario checker."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cases.scenario_files import PROJECT_CASES, load_scenario, scenario_paths

PATHS = scenario_paths(PROJECT_CASES)
PROFILES = {
    "casinos-austria", "st-moritz", "st-moritz-65", "live-studio",
    "pontoon-sydney", "pontoon-british", "pontoon-online", "ru-casino",
}


def test_there_are_enough_cases_over_every_profile() -> None:
    assert len(PATHS) >= 60
    profiles = {load_scenario(p)["profile"] for p in PATHS}
    assert PROFILES <= profiles, f"profiles without a case: {sorted(PROFILES - profiles)}"


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_project_case(path: Path) -> None:
    from table.conformance import check_scenario

    differences = check_scenario(load_scenario(path))
    assert differences == [], f"{path.name}:\n" + "\n".join(differences)
