"""The count behind "a card counted where the shoe dealt fewer"
(`benchmarks/witness_extra_corners.py`), on reads laid out by hand."""

from __future__ import annotations

import importlib
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from vision.reads import _Read

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"

# Two boxes side by side: box1 left of x = 200, box2 right of it.
TWO_BOXES = {"format": "table-layout/1", "image_size": [400, 300],
             "areas": {"box1": [[0, 0], [200, 0], [200, 300], [0, 300]],
                       "box2": [[200, 0], [400, 0], [400, 300], [200, 300]]}}


def _module() -> ModuleType:
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module("witness_extra_corners")


def _corner(card: str, x: float, y: float, confidence: float = 0.9,
            down: tuple[float, float] = (0.0, 1.0)) -> _Read:
    return _Read(card, x, y, confidence, 10.0, down)


class FixedReads:
    def __init__(self, reads: list[_Read], unknown: list[_Read]) -> None:
        self.reads, self.unknown = reads, unknown

    def corner_reads(self, frame: np.ndarray) -> tuple[list[_Read], list[_Read]]:
        return self.reads, self.unknown


def test_two_unknown_corners_of_one_estimated_card_count_once() -> None:
    bench = _module()
    # Index scale 10, facing down: a corner's card centre is estimated 20 px right and
    # 25 px down of it. Corners 5 px apart: centres 5 px apart, under 1.5 scales.
    surer, weaker = _corner("??", 105.0, 100.0, 0.5), _corner("??", 100.0, 100.0, 0.3)
    far = _corner("??", 140.0, 100.0, 0.4)  # centres 35 px apart: another card
    assert bench.one_per_card([weaker, far, surer]) == [surer, far]


def test_where_an_unknown_lies_from_the_read_facing_the_other_way() -> None:
    bench = _module()
    read = _corner("QH", 100.0, 100.0)
    # Nearer, but facing the way the unknown faces: no candidate for its other corner.
    same_way = _corner("5C", 120.0, 110.0, down=(0.0, -1.0))
    unknown = _corner("??", 150.0, 180.0, down=(0.0, -1.0))
    # 50 px along the read's right (x), 80 px along its down (y), scale 10.
    assert (bench.where_from_reads(unknown, [same_way, read])
            == "from QH: a=5.0 b=8.0 dot=-1.00 d=9.4")
    assert bench.where_from_reads(unknown, [same_way]) == "no read faces the other way"


def test_a_place_with_more_cards_seen_than_dealt_is_counted_with_what_lies_there() -> None:
    bench = _module()
    from bench_vision import Scene

    # Cards go to boxes by their estimated centres (2 scales right, 2.5 down of a corner).
    # box1: the shoe dealt QH and 5C; the camera read both and sees one unknown card more,
    # on QH's other corner (turned round). box2: dealt 9S and 2D, read 9S, and an unknown
    # corner on no index: two cards counted, two dealt, no halt.
    truth: list[tuple[str, str, list[tuple[float, float]]]] = [
        ("QH", "box1", [(40.0, 40.0), (100.0, 160.0)]),
        ("5C", "box1", [(40.0, 200.0)]),
        ("9S", "box2", [(240.0, 40.0)]),
        ("2D", "box2", [(300.0, 200.0)]),
    ]
    scene = Scene("s#1", "d", np.zeros((300, 400, 3), np.uint8), 60.0, TWO_BOXES, truth, [])
    reads = [_corner("QH", 40.0, 40.0), _corner("5C", 40.0, 200.0),
             _corner("9S", 240.0, 40.0)]
    unknown = [_corner("??", 101.0, 160.0, 0.5, down=(0.0, -1.0)),
               _corner("??", 330.0, 120.0, 0.4)]
    places: Counter[str] = Counter()
    lines: list[str] = []
    bench.count_scene(FixedReads(reads, unknown), scene, places, lines)
    assert places == Counter({"places": 2, "more counted than dealt": 1,
                              "of them with an unknown corner": 1})
    assert len(lines) == 1
    assert "s#1 box1 (dealt 2): unknown corner on a corner of QH (read at its other corner)" \
        in lines[0]


def test_an_unknown_deck_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _module()
    with pytest.raises(SystemExit) as stopped:
        bench.main(["--decks", "no-such-deck"])
    assert stopped.value.code == 2
    assert "unknown card design 'no-such-deck'" in capsys.readouterr().err
