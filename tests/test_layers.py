"""Which package may import which (docs/architecture.md), read from every
import statement of the source, the ones inside functions included."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "foundation": ROOT / "foundation",
    "table": ROOT / "table",
    "journal": ROOT / "journal",
    "firmware_bridge": ROOT / "firmware_bridge",
    "vision": ROOT / "vision",
    "houseedge": ROOT / "houseedge",
    "hwsim": ROOT / "hw-sim" / "hwsim",
    "tablectl": ROOT / "tablectl",
}
PROJECT = {path.parent.name for path in ROOT.glob("*/__init__.py")} | {"hwsim"}
EDGES = {"table", "firmware_bridge", "vision"}
FORBIDDEN = {
    "foundation": PROJECT - {"foundation"},
    **{edge: (EDGES - {edge}) | {"journal", "tablectl", "hwsim"} for edge in EDGES},
    "journal": PROJECT - {"journal", "table", "foundation"},
    "houseedge": {"journal", "firmware_bridge", "vision", "tablectl", "hwsim"},
    "hwsim": {"journal", "tablectl"},
    "tablectl": set(),
}


def imported_packages(source: Path) -> set[str]:
    tree = ast.parse(source.read_text(encoding="utf-8"), str(source))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_every_package_of_the_house_is_ruled() -> None:
    assert PROJECT - {"tests", "tools", "benchmarks"} <= set(FORBIDDEN), PROJECT


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_a_package_imports_nothing_it_may_not(package: str) -> None:
    wrong = [
        f"{source.relative_to(ROOT)} imports {name}"
        for source in sorted(PACKAGES[package].rglob("*.py"))
        for name in sorted(imported_packages(source) & FORBIDDEN[package])
    ]
    assert wrong == []


def test_the_foundation_imports_the_standard_library_only() -> None:
    outside = {
        name
        for source in PACKAGES["foundation"].rglob("*.py")
        for name in imported_packages(source)
    } - set(sys.stdlib_module_names) - {"__future__", "foundation"}
    assert outside == set()


def test_the_table_knows_nothing_of_sqlite() -> None:
    users = [str(source.relative_to(ROOT)) for source in sorted(PACKAGES["table"].rglob("*.py"))
             if "sqlite3" in imported_packages(source)]
    assert users == []


def test_only_the_replay_of_the_journal_imports_the_table() -> None:
    users = sorted(source.name for source in PACKAGES["journal"].rglob("*.py")
                   if "table" in imported_packages(source))
    assert users == ["replay.py"]
