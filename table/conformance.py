"""Conformance: run a scenario and compare each round's `expect` with the result."""

from __future__ import annotations

import json
from typing import Any

from table.scenario import run_scenario


def _show(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def check_scenario(doc: dict[str, Any]) -> list[str]:
    """One human-readable line per difference; an empty list means the scenario passes."""
    return compare_result(doc, run_scenario(doc))


def compare_result(doc: dict[str, Any], result: dict[str, Any]) -> list[str]:
    """The differences between each round's `expect` in `doc` and the result
    `run_scenario(doc)` gave; rounds without `expect` are not compared."""
    differences: list[str] = []
    for index, (played, expected_round) in enumerate(zip(result["rounds"], doc["rounds"],
                                                         strict=True)):
        expect = expected_round.get("expect")
        if isinstance(expect, dict):
            differences += compare_round(index + 1, played, expect)
    return differences


def compare_round(number: int, played: dict[str, Any], expect: dict[str, Any]) -> list[str]:
    """The differences between one round's result and the keys its `expect` holds."""
    differences: list[str] = []
    for key in sorted(expect):
        want = expect[key]
        got = played.get(key)
        if got != want:
            detail = ""
            if key == "net" and isinstance(want, dict) and isinstance(got, dict):
                parts = []
                for spot in sorted(set(want) | set(got)):
                    if want.get(spot) != got.get(spot):
                        parts.append(f"{spot}: expected {want.get(spot)}, got {got.get(spot)}")
                detail = " (" + "; ".join(parts) + ")"
            differences.append(
                f"round {number}: {key}: expected {_show(want)}, got {_show(got)}{detail}"
            )
    return differences
