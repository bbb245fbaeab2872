"""The recognizer's networks give the same numbers on OpenCV's dnn module and onnxruntime."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from vision.networks import Network
from vision.proposer import CHANNELS, STRIDE, network_input
from vision.recognizer import MODEL_DIR, MODEL_INFO, Recognizer


def _models() -> list[tuple[str, tuple[int, ...]]]:
    info = json.loads(MODEL_INFO.read_text(encoding="utf-8"))
    members = [(f"{member}/{name}", shape) for member in info.get("ensemble", [])
               for name, shape in (("index_classifier.onnx", (info["feature_size"],)),
                                   ("index_verifier.onnx", (3, 36, 24)))]
    return [(info["filter_model"], (99,)), ("index_classifier.onnx", (info["feature_size"],)),
            (info["verifier_model"], (3, 36, 24)), *members]


@pytest.mark.parametrize(("name", "shape"), _models())
def test_both_runtimes_agree(name: str, shape: tuple[int, ...]) -> None:
    batch = np.random.default_rng(1).normal(0, 0.5, (17, *shape)).astype(np.float32)
    opencv = Network(MODEL_DIR / name, "opencv")
    ort = Network(MODEL_DIR / name, "onnxruntime")
    assert (opencv.runtime, ort.runtime) == ("opencv", "onnxruntime")
    a, b = opencv.run(batch), ort.run(batch)
    assert set(a) == set(b) and a
    for key in a:
        assert a[key].shape[0] == 17
        np.testing.assert_allclose(a[key], b[key], rtol=1e-3, atol=1e-3)


def test_both_runtimes_agree_on_the_proposer() -> None:
    # A whole frame's input (the proposer sees frames, not batches of crops).
    frame = np.random.default_rng(2).integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    name = json.loads(MODEL_INFO.read_text(encoding="utf-8"))["proposer_model"]
    a, b = (Network(MODEL_DIR / name, runtime).run(network_input(frame))
            for runtime in ("opencv", "onnxruntime"))
    (key, cells), = a.items()
    assert cells.shape == (1, CHANNELS, 720 // STRIDE, 1280 // STRIDE)
    np.testing.assert_allclose(cells, b[key], rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("count", [1, 7])
def test_both_runtimes_agree_on_the_refiner(count: int) -> None:
    from vision.refiner import SIZE
    from vision.refiner import network_input as refiner_input

    windows = np.random.default_rng(count).integers(0, 256, (count, SIZE, SIZE, 3),
                                                    dtype=np.uint8)
    name = json.loads(MODEL_INFO.read_text(encoding="utf-8"))["refiner_model"]
    a, b = (Network(MODEL_DIR / name, runtime).run(refiner_input(windows))
            for runtime in ("opencv", "onnxruntime"))
    (key, places), = a.items()
    assert places.shape == (count, 4)  # rank (u, v), pip (u, v) for each window
    np.testing.assert_allclose(places, b[key], rtol=1e-3, atol=1e-3)


def test_without_onnxruntime_auto_falls_back_and_forced_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if not installed
    name = "index_classifier.onnx"
    assert Network(MODEL_DIR / name, "auto").runtime == "opencv"
    with pytest.raises(ValueError, match="pip install"):
        Network(MODEL_DIR / name, "onnxruntime")
    with pytest.raises(ValueError, match="unknown network runtime"):
        Network(MODEL_DIR / name, "tensorflow")
    assert Recognizer(runtime="opencv").detect(np.full((120, 160, 3), 40, np.uint8)) == []
