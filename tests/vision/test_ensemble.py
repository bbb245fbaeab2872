"""An ensemble: members' classifiers and verifiers read the same candidates (`vision.members`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hwsim.camera import designs as designs_module
from hwsim.camera import render as camera

from tests.vision.model_copies import copy_view_verifiers
from vision.combine import ensemble_mean
from vision.quantized import INT8_KEY
from vision.recognizer import MODEL_DIR, MODEL_FILE, NOT_INDEX, ModelError, Recognizer

INFO_NAME = MODEL_FILE.with_suffix(".json").name


def test_the_ensemble_reading_is_the_normalised_geometric_mean_of_its_members() -> None:
    first = np.array([[0.9, 0.1], [0.2, 0.8]])
    second = np.array([[0.5, 0.5], [0.0, 1.0]])
    mean = ensemble_mean([first, second])
    # sqrt(0.45) : sqrt(0.05) = 3 : 1; a class one member rules out stays ruled out.
    assert mean[0] == pytest.approx([0.75, 0.25])
    assert mean[1, 0] < 1e-5 and mean[1, 1] == pytest.approx(1.0)
    assert ensemble_mean([first]) is first


def _single_model(folder: Path) -> dict[str, Any]:
    """The shipped classifier, filter and verifiers copied to `folder`, without members."""
    info = json.loads((MODEL_DIR / INFO_NAME).read_text(encoding="utf-8"))
    for key in ("filter_model", "verifier_model", "proposer_model", "refiner_model"):
        shutil.copy(MODEL_DIR / info[key], folder / info[key])
    shutil.copy(MODEL_FILE, folder / MODEL_FILE.name)
    copy_view_verifiers(info, folder)
    info.pop("ensemble", None)
    # Members run their float files: so does the model they are compared with.
    info.pop(INT8_KEY, None)
    return info


def _with_member(folder: Path, info: dict[str, Any], name: str = "twin") -> Path:
    """`folder`'s own classifier and verifier again as member `name`."""
    member = folder / name
    member.mkdir()
    shutil.copy(folder / MODEL_FILE.name, member / "index_classifier.onnx")
    shutil.copy(folder / info["verifier_model"], member / "index_verifier.onnx")
    (member / "index_classifier.json").write_text(json.dumps(info), encoding="utf-8")
    (folder / INFO_NAME).write_text(json.dumps({**info, "ensemble": [name]}), encoding="utf-8")
    return member


def _scene() -> Any:
    design = designs_module.DESIGNS[str(designs_module.TUNING_DESIGNS[0])]
    spec = camera.SceneSpec(boxes={"box1": ["QS", "7H"], "box2": ["AC", "2D"]},
                            dealer=["8D"], card_width=120)
    return camera.render_scene(spec, design, 4)


def test_a_member_that_reads_alike_changes_no_read(tmp_path: Path) -> None:
    info = _single_model(tmp_path)
    (tmp_path / INFO_NAME).write_text(json.dumps(info), encoding="utf-8")
    image = _scene().image
    alone = Recognizer(tmp_path / MODEL_FILE.name).detect(image)
    _with_member(tmp_path, info)
    paired = Recognizer(tmp_path / MODEL_FILE.name)
    assert len(paired._members) == 1
    together = sorted(paired.detect(image), key=lambda d: d.card)
    alone = sorted(alone, key=lambda d: d.card)
    assert len(alone) == 5
    assert [(d.card, round(d.x), round(d.y)) for d in together] == [
        (d.card, round(d.x), round(d.y)) for d in alone]
    assert [d.confidence for d in together] == pytest.approx([d.confidence for d in alone])


def test_a_member_sure_there_is_no_index_leaves_no_card_read(tmp_path: Path) -> None:
    info = _single_model(tmp_path)
    _with_member(tmp_path, info)
    recognizer = Recognizer(tmp_path / MODEL_FILE.name)
    image = _scene().image
    assert recognizer.detect(image), "the two alike networks read the scene's cards"

    def never_an_index(features: np.ndarray) -> dict[str, np.ndarray]:
        rank = np.zeros((features.shape[0], NOT_INDEX + 1), np.float32)
        rank[:, NOT_INDEX] = 40.0
        return {"rank": rank, "suit": np.zeros((features.shape[0], 4), np.float32)}

    recognizer._members[0].classifier.run = never_an_index  # type: ignore[method-assign]
    assert recognizer.detect(image) == []


@pytest.mark.parametrize(("spoil", "message"), [
    (lambda member, info: (member / "index_verifier.onnx").unlink(), "index_verifier.onnx"),
    (lambda member, info: (member / "index_classifier.json").write_text(
        json.dumps({**info, "feature_size": 7})), "not trained on this code"),
    (lambda member, info: (member / "index_classifier.json").write_text("{"), "unreadable"),
])
def test_a_broken_member_is_named_in_a_clear_error(tmp_path: Path, spoil: Any,
                                                   message: str) -> None:
    info = _single_model(tmp_path)
    spoil(_with_member(tmp_path, info), info)
    with pytest.raises(ModelError, match=message) as caught:
        Recognizer(tmp_path / MODEL_FILE.name)
    assert "twin" in str(caught.value)


def test_an_ensemble_that_is_no_list_of_folders_is_refused(tmp_path: Path) -> None:
    info = _single_model(tmp_path)
    (tmp_path / INFO_NAME).write_text(json.dumps({**info, "ensemble": "twin"}),
                                      encoding="utf-8")
    with pytest.raises(ModelError, match="list of folder names"):
        Recognizer(tmp_path / MODEL_FILE.name)
