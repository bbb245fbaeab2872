"""The real-deck benchmark's breakdown by card width, index size and condition
(`benchmarks/real_decks_breakdown.py`, `vision_real_decks.py --by-size`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.vision.benchmark_modules import Read, benchmark_module

LAYOUT = {"format": "table-layout/1", "image_size": [64, 48],
          "areas": {"box1": [[0, 0], [64, 0], [64, 48]]}}


@pytest.mark.parametrize(("width", "band"), [
    (85.0, "cards under 100 px"), (99.9, "cards under 100 px"),
    (100.0, "cards 100-119 px"), (119.9, "cards 100-119 px"),
    (120.0, "cards 120 px or wider"), (139.0, "cards 120 px or wider"),
])
def test_a_scene_falls_in_the_band_of_its_card_width(width: float, band: str) -> None:
    assert benchmark_module("real_decks_breakdown").size_band(width) == band


def test_a_negative_size_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        benchmark_module("real_decks_breakdown").size_band(-1.0)


def _scene(width: float, truth: list[Any], glyphs: list[Any]) -> Any:
    bench = benchmark_module("bench_vision")
    return bench.Scene("d#1", "d", np.zeros((48, 64, 3), np.uint8), width, LAYOUT, truth, [],
                       {}, glyphs)


def test_each_card_is_sized_by_its_own_index_and_read_only_by_its_code_nearby() -> None:
    breakdown = benchmark_module("real_decks_breakdown")
    truth = [("AS", "box1", [(100.0, 100.0), (300.0, 400.0)]),  # two corners open
             ("KD", "box1", [(500.0, 100.0)]),
             ("7C", "box1", [(700.0, 100.0)])]
    glyphs = [[((100.0, 95.0), (100.0, 105.0)), ((300.0, 395.0), (300.0, 415.0))],
              [((500.0, 88.0), (500.0, 112.0))],
              [((700.0, 94.0), (700.0, 106.0))]]
    # Match radius: 0.25 of a 100 px card. AS read at its second corner; KD read 30 px
    # off (too far); 7C read as 7H (another card).
    reads = [Read("AS", 310.0, 400.0), Read("KD", 530.0, 100.0), Read("7H", 700.0, 100.0)]
    sized = breakdown.cards_by_index_size(_scene(100.0, truth, glyphs), reads)
    # AS: the mean of its corners' rank-to-pip distances, (10 + 20) / 2.
    assert sized == [(15.0, True), (24.0, False), (12.0, False)]
    assert [breakdown.band_of(s, breakdown.INDEX_BANDS) for s, _ in sized] == [
        "indices 14-17 px", "indices 24 px or more", "indices under 14 px"]


def test_the_lines_give_each_band_its_own_rates() -> None:
    breakdown = benchmark_module("real_decks_breakdown")
    bench = benchmark_module("bench_vision")
    real = benchmark_module("vision_real_decks")
    small = real.DeckScore(bench.Score(scenes=2, truth_cards=12, truth_read=9, detections=10,
                                       matched=9, hands=4, hands_right=3))
    gathered = breakdown.Breakdown({"cards under 100 px": small},
                                   {"indices 18-23 px": [8, 6]})
    total = bench.Score(by_condition={"glare": [1, 5, 4, 0, 0]})
    lines = gathered.lines(total)
    under = next(line for line in lines if "cards under 100 px" in line)
    # 9 of 10 reads right, 9 of 12 cards read, 3 of 4 hands exactly right.
    assert under.split()[-5:] == ["2", "12", "90.00%", "75.00%", "75.00%"]
    assert not any("100-119" in line for line in lines)  # no scene of that band
    index = next(line for line in lines if "indices 18-23 px" in line)
    assert index.split()[-2:] == ["8", "75.00%"]
    glare = next(line for line in lines if line.strip().startswith("glare"))
    assert glare.split()[-4:] == ["1", "5", "-", "80.00%"]  # no reads: no precision


class _NothingRead:
    def detect_all(self, image: np.ndarray, layout: Any) -> tuple[list[Any], list[Any]]:
        return [], []


def test_run_counts_each_scene_in_its_bands() -> None:
    real = benchmark_module("vision_real_decks")
    breakdown = benchmark_module("real_decks_breakdown")
    scenes = [_scene(width, [("AS", "box1", [(10.0, 10.0)])], [[((10.0, 5.0), (10.0, 21.0))]])
              for width in [90.0, 95.0, 130.0]]
    gathered = breakdown.Breakdown()
    per_deck = real.run(scenes, _NothingRead(), False, False, gathered)
    assert per_deck["d"].score.scenes == 3
    assert {band: d.score.scenes for band, d in gathered.by_width.items()} == {
        "cards under 100 px": 2, "cards 120 px or wider": 1}
    assert gathered.by_width["cards under 100 px"].score.truth_cards == 2
    assert gathered.by_index == {"indices 14-17 px": [3, 0]}  # 16 px indices, none read
