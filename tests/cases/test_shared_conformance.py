"""The shared conformance cases every implementation of the table must pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cases.scenario_files import SHARED_CASES, load_scenario, scenario_paths

PATHS = scenario_paths(SHARED_CASES)


@pytest.mark.skipif(
    not SHARED_CASES.is_dir(),
    reason="the shared conformance cases (../shared/conformance/cases beside the repository) "
    "are not present in this checkout",
)
def test_shared_cases_are_present() -> None:
    assert PATHS, f"{SHARED_CASES} holds no scenario files"


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_shared_case(path: Path) -> None:
    from table.conformance import check_scenario

    differences = check_scenario(load_scenario(path))
    assert differences == [], f"{path.name}:\n" + "\n".join(differences)
