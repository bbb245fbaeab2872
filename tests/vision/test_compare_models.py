"""The paired comparison of two sets of networks (`benchmarks/compare_models.py`)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from vision.recognizer import Recognizer

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _compare() -> ModuleType:
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module("compare_models")


@pytest.mark.parametrize(("first", "second", "chance"), [
    # 12 discordant corners split 2 : 10: 2 x (1 + 12 + 66) / 2^12.
    (2, 10, 2 * 79 / 4096),
    (6, 0, 2 / 64),
    (0, 5, 2 / 32),
    (5, 5, 1.0),  # an even split: no evidence either way (2 x 638/1024 capped at 1)
    (0, 0, 1.0),
])
def test_the_sign_test_gives_the_exact_binomial_chance(first: int, second: int,
                                                        chance: float) -> None:
    assert _compare().sign_test(first, second) == pytest.approx(chance)


def test_the_corners_one_set_reads_and_the_other_does_not_are_counted() -> None:
    compare = _compare()
    from bench_vision import rendered_scenes

    scenes = list(rendered_scenes(2, 5, ["classic_duplex"]))
    reading, blind = compare.read_scenes(scenes, [Recognizer(), Recognizer(min_confidence=1.01)])
    visible = sum(1 for scene in scenes for _, _, pts in scene.truth if pts)
    # The second set is never sure enough to read a card: it misses every corner.
    assert len(blind.missed) == visible and not blind.wrong
    assert reading.missed <= blind.missed
    assert len(blind.missed - reading.missed) == reading.score.truth_read > visible // 2


def test_held_out_decks_are_refused_in_one_line() -> None:
    done = subprocess.run([sys.executable, str(BENCHMARKS / "compare_models.py"), "shipped",
                           "shipped", "--decks", "kde-nicu-white"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "kde-nicu-white: held-out decks are read once a choice is made" in (
        done.stderr.splitlines()[-1])
