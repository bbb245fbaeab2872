"""Locating and reading the scenario files the case tests run over."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
PROJECT_CASES = Path(__file__).resolve().parent / "data"
SHARED_CASES = REPO_ROOT.parent / "shared" / "conformance" / "cases"


def scenario_paths(folder: Path) -> list[Path]:
    """Every scenario file of a folder, in name order (empty when the folder is absent)."""
    if not folder.is_dir():
        return []
    return sorted(folder.glob("*.json"))


def load_scenario(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as handle:
        doc = json.load(handle)
    if not isinstance(doc, dict):
        raise ValueError(f"{path.name}: a scenario must be a JSON object, got {type(doc).__name__}")
    return doc
