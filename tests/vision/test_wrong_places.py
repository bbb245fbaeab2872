"""Where the benchmarks' wrong reads lie: at another card's open index, at an index
only partly open, or where no index shows (`benchmarks/wrong_places.py`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from tests.vision.benchmark_modules import benchmark_module

LAYOUT = {"format": "table-layout/1", "image_size": [64, 48],
          "areas": {"box1": [[0, 0], [64, 0], [64, 48]]}}


@dataclass
class Detection:
    card: str
    x: float
    y: float
    box: str | None = "box1"
    confidence: float = 0.9


def test_each_wrong_read_is_placed_and_right_reads_are_not_counted() -> None:
    bench = benchmark_module("bench_vision")
    places = benchmark_module("wrong_places")
    # A 100 px card: reads within 25 px of an index count there.
    truth = [("AS", "box1", [(100.0, 100.0)]), ("KD", "box1", [(300.0, 100.0)]),
             ("9H", "box1", [])]  # 9H: no index open
    partial = [("9H", [(500.0, 100.0)])]
    scene = bench.Scene("d#1", "d", np.zeros((48, 64, 3), np.uint8), 100.0, LAYOUT, truth,
                        partial, {}, [])
    reads = [Detection("AS", 104.0, 100.0),  # right
             Detection("KS", 300.0, 120.0),  # KD misread: 20 px from its index
             Detection("JH", 510.0, 100.0),  # half of 9H taken for JH
             Detection("9H", 500.0, 110.0),  # 9H read at its partly open index: no count
             Detection("5C", 700.0, 300.0),  # 400 px from any index
             Detection("4D", 300.0, 130.0)]  # 30 px from KD's index: too far, nothing there
    score = bench.score_scene(scene, reads, 1.0)
    assert (score.matched, score.partial_reads, len(score.false_reads)) == (1, 1, 4)
    assert score.wrong_where == Counter({places.WRONG_AT_VISIBLE: 1,
                                         places.WRONG_AT_PARTIAL: 1,
                                         places.WRONG_AT_NOTHING: 2})
    total = bench.Score()
    total.add(score)
    total.add(score)
    assert total.wrong_where[places.WRONG_AT_NOTHING] == 4
    assert places.wrong_places_line(total.wrong_where) == (
        "2 at another card's open index, 2 at an index only partly open, "
        "4 where no index shows")
