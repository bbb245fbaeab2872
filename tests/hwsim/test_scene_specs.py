"""The random scenes' JPEG range: the issue's 60-95 without changing anything else drawn."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hwsim.camera import dataset

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

SEEDS = range(400)


def _specs(qualities: tuple[int, int] | None = None) -> list[dataset.SceneSpec]:
    if qualities is None:
        return [dataset.random_spec(np.random.default_rng([3, i])) for i in SEEDS]
    return [dataset.random_spec(np.random.default_rng([3, i]), jpeg_qualities=qualities)
            for i in SEEDS]


def test_the_default_range_is_the_training_sets_50_to_95() -> None:
    qualities = [s.jpeg_quality for s in _specs() if s.jpeg_quality is not None]
    assert min(qualities) == 50 and max(qualities) == 95
    assert _specs() == _specs((50, 95))


def test_another_range_moves_only_the_jpeg_quality() -> None:
    default, issue = _specs(), _specs((60, 95))
    for before, after in zip(default, issue, strict=True):
        # Same boxes, cards, light, tilt, clutter: only the quality differs.
        assert replace(after, jpeg_quality=before.jpeg_quality) == before
        if before.jpeg_quality is None:
            assert after.jpeg_quality is None  # uncompressed scenes stay uncompressed
        else:
            assert after.jpeg_quality is not None
            assert 60 <= after.jpeg_quality <= 95
            # 50 -> 60 and 95 -> 95 along a line: no scene is compressed harder than before.
            assert after.jpeg_quality >= before.jpeg_quality
    lowest = min(q for s in issue if (q := s.jpeg_quality) is not None)
    highest = max(q for s in issue if (q := s.jpeg_quality) is not None)
    assert (lowest, highest) == (60, 95)


@pytest.mark.parametrize("qualities", [(0, 95), (60, 101), (90, 60)])
def test_a_range_outside_1_to_100_or_upside_down_is_refused(qualities: tuple[int, int]) -> None:
    with pytest.raises(ValueError, match="JPEG qualities"):
        dataset.random_spec(np.random.default_rng(1), jpeg_qualities=qualities)


def test_the_benchmark_takes_the_range_and_refuses_a_bad_one(
        capsys: pytest.CaptureFixture[str]) -> None:
    from real_decks_options import parse_options

    _, args = parse_options("test", ["--jpeg-qualities", "60", "95"])
    assert args.jpeg_qualities == (60, 95)
    _, args = parse_options("test", [])
    assert args.jpeg_qualities is None
    with pytest.raises(SystemExit):
        parse_options("test", ["--jpeg-qualities", "95", "60"])
    assert "the lower first" in capsys.readouterr().err
