"""The verifiers' int8 copies: run where onnxruntime runs the networks, read as the float
files do, and named correctly in the settings or refused with a clear message."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pytest
from hwsim.camera import designs as designs_module
from hwsim.camera import render as camera

from tests.vision.model_copies import model_copy
from vision.features import net_input
from vision.networks import Network, model_id
from vision.quantized import INT8_KEY, int8_name
from vision.recognizer import (
    MODEL_DIR,
    MODEL_INFO,
    NOT_INDEX,
    Recognizer,
    _softmax,
    candidate_features,
)

pytest.importorskip("onnxruntime")

SHIPPED = json.loads(MODEL_INFO.read_text(encoding="utf-8"))
OWN = SHIPPED["verifier_model"]  # the recognizer's own verifier, the first to look


def test_the_shipped_settings_name_an_int8_copy_of_every_verifier() -> None:
    named = [SHIPPED["verifier_model"], *(v[2] for v in SHIPPED["second_views"] if len(v) == 3)]
    assert SHIPPED[INT8_KEY] == {name: int8_name(name) for name in named}
    assert int8_name("index_verifier.onnx") == "index_verifier_int8.onnx"
    float_size = (MODEL_DIR / "index_verifier.onnx").stat().st_size
    for copy in SHIPPED[INT8_KEY].values():
        # An int8 copy holds a quarter of the float file's weight bytes, and some more.
        assert (MODEL_DIR / copy).stat().st_size < 0.4 * float_size


def test_onnxruntime_runs_the_int8_copies_and_opencv_the_float_files() -> None:
    on_onnxruntime = Recognizer(runtime="onnxruntime")
    assert on_onnxruntime.verifier_id == model_id(MODEL_DIR / int8_name(OWN))
    on_opencv = Recognizer(runtime="opencv")
    assert on_opencv.verifier_id == model_id(MODEL_DIR / OWN)
    # An enrolled deck fits the file that runs, so the two runtimes tell their decks apart.
    assert on_onnxruntime.verifier_id != on_opencv.verifier_id


def test_without_the_setting_onnxruntime_runs_the_float_files(tmp_path: Path) -> None:
    path = model_copy(tmp_path)
    info = dict(SHIPPED)
    del info[INT8_KEY]
    path.with_suffix(".json").write_text(json.dumps(info), encoding="utf-8")
    recognizer = Recognizer(path, runtime="onnxruntime")
    assert recognizer.verifier_id == model_id(MODEL_DIR / OWN)


@functools.cache
def _verifier_crops() -> np.ndarray:
    """What the verifiers are given in scenes of the simulator's drawn designs: the pairs
    the classifier gives some chance of being an index."""
    recognizer = Recognizer(runtime="opencv")
    batches = []
    for k, name in enumerate(designs_module.TUNING_DESIGNS):
        spec = camera.SceneSpec(boxes={"box1": ["QS", "7H", "TD"], "box2": ["AC", "2D", "9S"],
                                       "box3": ["KH", "5C"]},
                                dealer=["8D", "3S"], card_width=110, hand_rotation=15 * k)
        scene = camera.render_scene(spec, designs_module.DESIGNS[str(name)], 10 + k)
        features, _, _, crops = candidate_features(scene.image, recognizer.looks_like_index)
        rank_p, _ = recognizer.classify(features)
        batches.append(net_input(crops[rank_p[:, NOT_INDEX] < recognizer.verify_below]))
    return np.concatenate(batches)


@pytest.mark.parametrize("name", sorted(SHIPPED[INT8_KEY]))
def test_an_int8_copy_reads_crops_as_its_float_file_does(name: str) -> None:
    crops = _verifier_crops()
    assert crops.shape[0] >= 100
    float_net = Network(MODEL_DIR / name, "onnxruntime")
    int8_net = Network(MODEL_DIR / SHIPPED[INT8_KEY][name], "onnxruntime")
    exact, quantized = float_net.run(crops), int8_net.run(crops)
    for head in ("rank", "suit"):
        assert np.array_equal(exact[head].argmax(axis=1), quantized[head].argmax(axis=1))
        # On these crops the copies move no probability by more than 0.075 (a suit, on a
        # pair of a rank up to 3 times its pip's size); the two float verifiers, trained
        # apart, differ by up to 0.97 on the same crops.
        moved = np.abs(_softmax(exact[head]) - _softmax(quantized[head])).max()
        assert moved <= 0.1, f"{head}: a probability moved by {moved:.3f}"
    # Not the same file under another name: the arithmetic differs a little.
    assert not np.allclose(exact["rank"], quantized["rank"], atol=1e-4)


@pytest.mark.parametrize(("setting", "message"), [
    (["index_verifier_int8.onnx"], "must map network files to their int8 copies"),
    ({"index_verifier.onnx": 8}, "must map network files to their int8 copies"),
    ({"index_verifier.onnx": "gone_int8.onnx"},
     "gone_int8.onnx .named in int8_verifiers. not found: make it with"),
])
def test_a_bad_int8_setting_is_refused_naming_it(tmp_path: Path, setting: object,
                                                  message: str) -> None:
    from vision.recognizer import ModelError

    path = model_copy(tmp_path, **{INT8_KEY: setting})
    with pytest.raises(ModelError, match=message):
        Recognizer(path, runtime="onnxruntime")
    # OpenCV runs the float files and never reads the setting.
    assert Recognizer(path, runtime="opencv").verifier_id == model_id(MODEL_DIR / OWN)
