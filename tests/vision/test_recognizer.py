"""The recognizer on real rendered pictures (the renderer `hwsim.camera` is the test bench)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from vision.layout import layout_from_dict
from vision.recognizer import Recognizer

camera = pytest.importorskip("hwsim.camera.render")
designs_module = pytest.importorskip("hwsim.camera.designs")


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    return Recognizer()


def _design(index: int = 0) -> Any:
    name = designs_module.TUNING_DESIGNS[index]
    return designs_module.DESIGNS[name if isinstance(name, str) else name.name]


def _truth_points(scene: Any) -> list[tuple[str, str, np.ndarray]]:
    return [(t.card, t.box, np.asarray(p, float)) for t in scene.truth for p in t.index_points]


def _plain_scene(seed: int, **variations: Any) -> Any:
    spec = camera.SceneSpec(
        boxes={"box1": ["QS", "7H", "TD"], "box2": ["AC", "2D"], "box3": ["KH", "9S", "5C"]},
        dealer=["8D"], card_width=120, **variations)
    return camera.render_scene(spec, _design(), seed)


def test_reads_every_card_of_a_simple_scene(recognizer: Recognizer) -> None:
    scene = _plain_scene(1)
    detections = recognizer.detect(scene.image)
    visible = {t.card for t in scene.truth if t.index_points}
    assert {d.card for d in detections} == visible
    width = 120
    for det in detections:
        # Each read sits on one of that card's visible index corners (0.25 card widths).
        points = [p for card, _, p in _truth_points(scene) if card == det.card]
        assert min(math.dist((det.x, det.y), p) for p in points) <= 0.25 * width


def test_cards_are_named_by_box_with_the_layout(recognizer: Recognizer) -> None:
    scene = _plain_scene(2)
    layout = layout_from_dict(scene.layout)
    detections = recognizer.detect(scene.image, layout)
    truth_box = {t.card: t.box for t in scene.truth if t.index_points}
    assert {d.card: d.box for d in detections} == truth_box


def test_chips_and_face_down_cards_are_not_cards(recognizer: Recognizer) -> None:
    spec = camera.SceneSpec(boxes={"box1": [], "box2": [], "box3": []}, dealer=[],
                            card_width=110, chips=12, face_down=3)
    for seed in (3, 4):
        scene = camera.render_scene(spec, _design(), seed)
        assert recognizer.detect(scene.image) == []


def test_empty_felt_has_no_cards(recognizer: Recognizer) -> None:
    frame = np.zeros((720, 1280, 3), np.uint8)
    frame[:] = (40, 110, 35)
    assert recognizer.detect(frame) == []


def test_wrong_frame_type_is_refused(recognizer: Recognizer) -> None:
    with pytest.raises(ValueError, match="BGR uint8"):
        recognizer.detect(np.zeros((10, 10), np.uint8))
