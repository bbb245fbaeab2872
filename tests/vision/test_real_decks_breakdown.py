"""The real-deck benchmark's breakdown by card width and condition
(`benchmarks/real_decks_breakdown.py`, `vision_real_decks.py --by-size`)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _module(name: str) -> ModuleType:
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module(name)


@pytest.mark.parametrize(("width", "band"), [
    (85.0, "cards under 100 px"), (99.9, "cards under 100 px"),
    (100.0, "cards 100-119 px"), (119.9, "cards 100-119 px"),
    (120.0, "cards 120 px or wider"), (139.0, "cards 120 px or wider"),
])
def test_a_scene_falls_in_the_band_of_its_card_width(width: float, band: str) -> None:
    assert _module("real_decks_breakdown").size_band(width) == band


def test_a_negative_card_width_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        _module("real_decks_breakdown").size_band(-1.0)


def test_the_lines_give_each_band_its_own_rates() -> None:
    breakdown = _module("real_decks_breakdown")
    bench = _module("bench_vision")
    real = _module("vision_real_decks")
    small = real.DeckScore(bench.Score(scenes=2, truth_cards=12, truth_read=9, detections=10,
                                       matched=9, hands=4, hands_right=3))
    total = bench.Score(by_condition={"glare": [1, 5, 4, 0, 0]})
    lines = breakdown.breakdown_lines({"cards under 100 px": small}, total)
    under = next(line for line in lines if "cards under 100 px" in line)
    # 9 of 10 reads right, 9 of 12 cards read, 3 of 4 hands exactly right.
    assert under.split()[-5:] == ["2", "12", "90.00%", "75.00%", "75.00%"]
    assert not any("100-119" in line for line in lines)  # no scene of that band
    glare = next(line for line in lines if line.strip().startswith("glare"))
    assert glare.split()[-4:] == ["1", "5", "-", "80.00%"]  # no reads: no precision


class _NothingRead:
    def detect_all(self, image: np.ndarray, layout: Any) -> tuple[list[Any], list[Any]]:
        return [], []


def test_run_adds_each_scene_to_its_band() -> None:
    bench = _module("bench_vision")
    real = _module("vision_real_decks")
    layout = {"format": "table-layout/1", "image_size": [64, 48],
              "areas": {"box1": [[0, 0], [64, 0], [64, 48]]}}
    scenes = [bench.Scene(f"d#{i}", "d", np.zeros((48, 64, 3), np.uint8), width, layout,
                          [("AS", "box1", [(10.0, 10.0)])], [])
              for i, width in enumerate([90.0, 95.0, 130.0])]
    by_size: dict[str, Any] = {}
    per_deck = real.run(scenes, _NothingRead(), False, False, by_size)
    assert per_deck["d"].score.scenes == 3
    assert {band: d.score.scenes for band, d in by_size.items()} == {
        "cards under 100 px": 2, "cards 120 px or wider": 1}
    assert by_size["cards under 100 px"].score.truth_cards == 2
    assert by_size["cards under 100 px"].score.truth_read == 0
