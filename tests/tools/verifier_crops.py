"""What the tests of the verifier's training spoiling share: the tools' modules and the
verifier's input as they see it."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

TOOLS = Path(__file__).resolve().parents[2] / "tools"
HEIGHT, WIDTH = 36, 24
PAPER, INK = 0.5, -0.5  # the verifier's input: paper about 0.5, ink about -0.5


def tool(name: str) -> ModuleType:
    """A module of `tools/` (not a package: its folder goes on the import path)."""
    if str(TOOLS) not in sys.path:
        sys.path.insert(0, str(TOOLS))
    return importlib.import_module(name)
