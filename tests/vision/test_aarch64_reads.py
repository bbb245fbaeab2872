"""The comparison of the reads made on x86-64 and on aarch64 (`benchmarks/aarch64_reads.py`)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _module() -> ModuleType:
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module("aarch64_reads")


def _frame(onnx: list[list[object]], opencv: list[list[object]]) -> dict[str, object]:
    return {"onnxruntime": onnx, "opencv": opencv}


def test_reads_alike_pass_and_another_card_fails(capsys: pytest.CaptureFixture[str]) -> None:
    reads = _module()
    here = {"scene_000.png": _frame([["AS", 10.0, 20.0, 0.99]], [["AS", 10.0, 20.0, 0.98]]),
            "scene_001.png": _frame([["KH", 5.0, 6.0, 0.9]], [])}
    assert reads.compare(here, {k: dict(v) for k, v in here.items()}) is True
    assert "onnxruntime: 2 of 2 frames read the same cards" in capsys.readouterr().out

    # The same card with another confidence still reads the same cards; another card not.
    there = {"scene_000.png": _frame([["AS", 10.0, 20.0, 0.97]], [["AS", 10.0, 20.0, 0.98]]),
             "scene_001.png": _frame([["KH", 5.0, 6.0, 0.9]], [["QH", 5.0, 6.0, 0.7]])}
    assert reads.compare(here, there) is False
    out = capsys.readouterr().out
    assert "onnxruntime: 2 of 2 frames read the same cards on aarch64, 1 the same cards," in out
    assert "opencv: 1 of 2 frames read the same cards on aarch64, 1 the same" in out
    assert "scene_001.png: x86-64 []" in out
