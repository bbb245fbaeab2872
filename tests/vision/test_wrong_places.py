"""Where the benchmarks' wrong reads lie: at another card's open index, at an index
only partly open, or where no index shows (`benchmarks/wrong_places.py`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

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


def test_a_card_read_at_its_own_hidden_index_counts_neither_way() -> None:
    bench = benchmark_module("bench_vision")
    # 8C's index at (100, 100) is open; 3H's at (300, 100) is hidden under a chip (its rank
    # in sight); QS's hidden index at (110, 100) lies beside 8C's open one.
    truth = [("8C", "box1", [(100.0, 100.0)]), ("3H", "box1", []), ("QS", "box1", [])]
    hidden = [("3H", [(300.0, 100.0)]), ("QS", [(110.0, 100.0)])]
    scene = bench.Scene("d#2", "d", np.zeros((48, 64, 3), np.uint8), 100.0, LAYOUT, truth,
                        [], {}, [], hidden)
    reads = [Detection("8C", 100.0, 104.0),  # right
             Detection("3H", 305.0, 100.0),  # 3H at its own hidden index: no count
             Detection("QS", 112.0, 100.0)]  # at 8C's open index: a misread of it
    score = bench.score_scene(scene, reads, 1.0)
    assert (score.matched, score.detections, score.hidden_reads) == (1, 2, 1)
    assert score.false_reads == ["d#2: read QS at (112, 100) in box1, conf 0.90"]
    # Another card read at the hidden index is wrong.
    score = bench.score_scene(scene, [Detection("3D", 305.0, 100.0)], 1.0)
    assert (score.detections, score.hidden_reads, len(score.false_reads)) == (1, 0, 1)
    # A hand is the cards with an index in sight: the hidden 3H read there leaves box1
    # right (8C alone, once QS is not read).
    score = bench.score_scene(scene, reads[:2], 1.0)
    assert (score.hands, score.hands_right) == (1, 1)


def test_each_wrong_read_gets_a_picture_named_by_where_it_lies(tmp_path: Path) -> None:
    bench = benchmark_module("bench_vision")
    places = benchmark_module("wrong_places")
    image = np.zeros((720, 1280, 3), np.uint8)
    image[90:110, 290:310] = 255  # a white patch at KD's index
    truth = [("KD", "box1", [(300.0, 100.0)])]
    scene = bench.Scene("d#3", "d", image, 100.0, LAYOUT, truth, [], {}, [])
    score = bench.score_scene(scene, [Detection("KS", 300.0, 100.0),
                                      Detection("5C", 5.0, 700.0)], 1.0)
    written = places.write_crops(scene, score, 25.0, tmp_path / "crops")
    assert sorted(p.name for p in written) == ["d_3_5C_no-index_5_700.png",
                                               "d_3_KS_open_300_100.png"]
    open_crop = cv2.imread(str(tmp_path / "crops" / "d_3_KS_open_300_100.png"))
    # 70 px each side of the read, drawn twice as large: the patch (frame 290-310, crop
    # 60-80) at 120-160, the read's yellow dot at its middle (140, 140).
    assert open_crop.shape == (280, 280, 3)
    assert open_crop[122:132, 122:132].min() == 255
    assert open_crop[100:118, 100:118].max() == 0
    assert open_crop[140, 140].tolist() == [0, 255, 255]
    # At the frame's corner the picture is cut by the frame: 75 px left, 90 px high.
    edge = cv2.imread(str(tmp_path / "crops" / "d_3_5C_no-index_5_700.png"))
    assert edge.shape == (2 * 90, 2 * 75, 3)


def test_pictures_that_cannot_be_written_stop_but_the_scores_go_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    bench = benchmark_module("bench_vision")
    real_decks = benchmark_module("vision_real_decks")
    truth = [("KD", "box1", [(300.0, 100.0)])]
    scenes = [bench.Scene(f"d#{k}", "d", np.zeros((720, 1280, 3), np.uint8), 100.0, LAYOUT,
                          truth, [], {}, []) for k in (1, 2)]

    class MisreadsKD:
        def detect_all(self, image: np.ndarray, layout: object) -> tuple[list[Any], list[Any]]:
            return [Detection("KS", 300.0, 100.0)], []

    monkeypatch.setattr(cv2, "imwrite", lambda *args: False)  # a full disk
    per_deck = real_decks.run(scenes, MisreadsKD(), with_candidates=False,
                              crops=tmp_path / "crops")
    assert per_deck["d"].score.scenes == 2 and len(per_deck["d"].score.false_reads) == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 1 and "no more pictures written" in errors[0]
