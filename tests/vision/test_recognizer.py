"""The recognizer on real rendered pictures (the renderer `hwsim.camera` is the test bench)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hwsim.camera import designs as designs_module
from hwsim.camera import render as camera

from vision.layout import layout_from_dict
from vision.recognizer import Recognizer


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


def _read(card: str, x: float, y: float, down: tuple[float, float] = (0.0, 1.0),
          scale: float = 15.0) -> Any:
    from vision.recognizer import _Read

    return _Read(card, x, y, 0.9, scale, down)


# Two boxes side by side: box1 left of x = 200, box2 right of it.
_TWO_BOXES = layout_from_dict({"format": "table-layout/1", "image_size": [400, 300],
                               "areas": {"box1": [[0, 0], [200, 0], [200, 300], [0, 300]],
                                         "box2": [[200, 0], [400, 0], [400, 300],
                                                  [200, 300]]}})


def test_a_card_goes_by_its_centre_not_by_its_index_corner() -> None:
    from vision.recognizer import boxes_of

    # A card turned half round (its far corner read): the index lies in box2 at x = 215,
    # the card reaches left and up from it into box1 (centre about 2 scales left).
    far_corner = _read("9C", 215.0, 150.0, down=(0.0, -1.0))
    # An upright card whose index is in box1 near the line: its body lies in box2.
    upright = _read("5D", 190.0, 150.0, down=(0.0, 1.0))
    assert boxes_of([far_corner, upright], _TWO_BOXES) == ["box1", "box2"]


def test_a_card_on_a_box_line_goes_with_its_hand() -> None:
    from vision.recognizer import boxes_of

    # A hand fanned rightwards in box1; its last card's centre is just over the line
    # (x = 203), within reach of the card before it (x = 170), which lies firmly in box1.
    hand = [_read("8S", 100.0, 100.0), _read("8H", 135.0, 100.0), _read("9C", 173.0, 100.0)]
    assert boxes_of(hand, _TWO_BOXES) == ["box1", "box1", "box1"]
    # The same card alone is decided by its centre.
    assert boxes_of([hand[2]], _TWO_BOXES) == ["box2"]


def test_a_missing_verifier_file_is_reported(tmp_path: Any) -> None:
    import json
    import shutil

    from vision.recognizer import MODEL_DIR, MODEL_FILE, ModelError

    info = json.loads(MODEL_FILE.with_suffix(".json").read_text(encoding="utf-8"))
    shutil.copy(MODEL_FILE, tmp_path / MODEL_FILE.name)
    if info.get("filter_model"):
        shutil.copy(MODEL_DIR / info["filter_model"], tmp_path / info["filter_model"])
    info["verifier_model"] = "no_such_verifier.onnx"
    info.pop("int8_verifiers", None)  # a model without int8 copies
    (tmp_path / MODEL_FILE.with_suffix(".json").name).write_text(json.dumps(info))
    with pytest.raises(ModelError, match="no_such_verifier.onnx"):
        Recognizer(tmp_path / MODEL_FILE.name)


def test_a_missing_proposer_file_is_reported_and_can_be_left_off(tmp_path: Any) -> None:
    import json

    from tests.vision.model_copies import model_copy
    from vision.recognizer import ModelError

    model = model_copy(tmp_path, proposer_model="no_such_proposer.onnx")
    with pytest.raises(ModelError, match="no_such_proposer.onnx .*train_index_proposer"):
        Recognizer(model)
    assert Recognizer(model, proposer=False).proposer is None
    for bad in (0.0, 1.5, "high", True):
        model = model_copy(tmp_path, proposer_threshold=bad)
        with pytest.raises(ModelError, match="proposer_threshold .* between 0 and 1"):
            Recognizer(model)
    for bad in (2.0, 80, "small", False):
        model = model_copy(tmp_path, proposer_threshold=0.2, proposer_zoom_below=bad)
        with pytest.raises(ModelError, match="proposer_zoom_below .* 5 to 60 frame pixels"):
            Recognizer(model)
    model = model_copy(tmp_path, proposer_zoom_below=18)
    assert Recognizer(model).proposer.zoom_below == 18.0  # type: ignore[union-attr]
    info = json.loads(model.with_suffix(".json").read_text(encoding="utf-8"))
    info.pop("proposer_model")
    model.with_suffix(".json").write_text(json.dumps(info))
    assert Recognizer(model).proposer is None  # settings naming none: the finder alone


def test_the_shipped_settings_refine_and_a_missing_refiner_is_reported(tmp_path: Any) -> None:
    from tests.vision.model_copies import model_copy
    from vision.recognizer import ModelError

    shipped = Recognizer()
    assert shipped.proposer is not None and shipped.proposer.refiner is not None
    assert shipped.refine_unsure
    assert shipped.second_chance_confidence > shipped.min_confidence
    model = model_copy(tmp_path, refiner_model="no_such_refiner.onnx")
    with pytest.raises(ModelError, match="no_such_refiner.onnx .*train_index_refiner"):
        Recognizer(model)
    assert Recognizer(model, proposer=False).proposer is None  # the way to run without it
    model = model_copy(tmp_path, second_chance_confidence=2)
    with pytest.raises(ModelError, match="second_chance_confidence 2 is not a probability"):
        Recognizer(model)


@pytest.mark.parametrize("design_name", designs_module.TUNING_DESIGNS)
def test_both_corners_of_a_lone_card_make_one_read(recognizer: Recognizer,
                                                   design_name: str) -> None:
    # A card alone shows both index corners; the tracker would take a second read as a
    # second card. Designs differ in how far apart the corners lie in index scales
    # (5 to 9.5 at the printed size, more where blur shrinks the measured scale).
    spec = camera.SceneSpec(boxes={"box1": ["TH"], "box2": ["QS"], "box3": ["7D"]},
                            dealer=["KC"], card_width=100, hand_rotation=20, felt_print=False)
    for seed in (1, 2):
        scene = camera.render_scene(spec, designs_module.DESIGNS[design_name], seed)
        both = {t.card for t in scene.truth if len(t.index_points) == 2}
        reads = [d.card for d in recognizer.detect(scene.image) if d.card in both]
        assert sorted(reads) == sorted(both), (design_name, seed)


def test_an_unsure_corner_is_reported_once_and_never_beside_its_own_read_card() -> None:
    from vision.reads import unknown_reads

    read = _read("QH", 100.0, 100.0)
    # The same index read again by another blob pair, unsure: not a second card.
    same_index = _read("??", 104.0, 102.0)
    # The card's other corner (turned half round, about 7 index scales away, its
    # estimated centre on the read card's): the card is known already.
    other_corner = _read("??", 100.0 + 4.0 * 15.0, 100.0 + 5.0 * 15.0, down=(0.0, -1.0))
    # A corner of another card, far away, read unsurely twice: one unknown.
    stranger = [_read("??", 300.0, 100.0), _read("??", 302.0, 101.0)]
    kept = unknown_reads([same_index, other_corner, *stranger], [read])
    assert [(r.x, r.y) for r in kept] == [(300.0, 100.0)]
