"""The benchmark scripts' modules, imported as their tests need them, and a read as the
benchmarks see one."""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def benchmark_module(name: str) -> ModuleType:
    """`benchmarks/<name>.py`, with `benchmarks/` put on the path first (the scripts
    import one another by their bare names)."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module(name)


@dataclass(frozen=True)
class Read:
    """A card read (or "??") at the index corner's rank-suit midpoint."""

    card: str
    x: float
    y: float
