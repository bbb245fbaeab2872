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
from vision.features import CROP_SIZE, CropSize, cut_all, net_input
from vision.networks import Network, model_id, softmax
from vision.quantized import INT8_KEY, int8_name
from vision.recognizer import (
    MODEL_DIR,
    MODEL_INFO,
    NOT_INDEX,
    Recognizer,
    candidate_features,
)

pytest.importorskip("onnxruntime")

SHIPPED = json.loads(MODEL_INFO.read_text(encoding="utf-8"))
OWN = SHIPPED["verifier_model"]  # the recognizer's own verifier, the first to look


def test_the_shipped_settings_name_an_int8_copy_of_every_verifier() -> None:
    named = [SHIPPED["verifier_model"], *(v[2] for v in SHIPPED["second_views"] if len(v) == 3)]
    # One copy each, named alone (the 7-bit ones are no faster where they are needed).
    assert SHIPPED[INT8_KEY] == {name: int8_name(name) for name in named}
    assert int8_name("index_verifier.onnx") == "index_verifier_int8.onnx"
    assert int8_name("index_verifier.onnx", 7) == "index_verifier_int8w7.onnx"
    for name, copy in SHIPPED[INT8_KEY].items():
        # An int8 copy holds a quarter of the float file's weight bytes, and some more.
        assert (MODEL_DIR / copy).stat().st_size < 0.4 * (MODEL_DIR / name).stat().st_size


def _run_as_written(path: Path, crops: np.ndarray) -> dict[str, np.ndarray]:
    """A QDQ file's arithmetic worked in float: onnxruntime with the graph unoptimized
    runs every QuantizeLinear and DequantizeLinear as written, on any CPU."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = onnxruntime.InferenceSession(str(path), options,
                                           providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, {session.get_inputs()[0].name: crops}),
                    strict=True))


def _moved(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> float:
    return max(float(np.abs(softmax(a[head]) - softmax(b[head])).max())
               for head in ("rank", "suit"))


def _cpu_runs_exactly(copy: str) -> bool:
    """Whether this CPU's int8 run of `copy` reads the drawn designs' crops as the copy's
    own arithmetic does (x86-64 with AVX2 but no VNNI saturates its 8-bit sums)."""
    crops = _verifier_crops()
    as_run = Network(MODEL_DIR / copy, "onnxruntime").run(crops)
    return _moved(as_run, _run_as_written(MODEL_DIR / copy, crops)) <= 0.1


def test_onnxruntime_runs_the_int8_copies_where_this_cpu_runs_them_exactly() -> None:
    on_onnxruntime = Recognizer(runtime="onnxruntime")
    exact = _cpu_runs_exactly(int8_name(OWN))
    running = int8_name(OWN) if exact else OWN
    assert on_onnxruntime.verifier_id == model_id(MODEL_DIR / running)
    assert running in on_onnxruntime.verifier_files
    refused = on_onnxruntime.int8_refused
    assert any(line.startswith(int8_name(OWN) + ":") and line.endswith(f"{OWN} runs instead")
               for line in refused) != exact
    on_opencv = Recognizer(runtime="opencv")
    assert on_opencv.verifier_id == model_id(MODEL_DIR / OWN)
    # An enrolled deck fits the file that runs, so the two runtimes tell their decks apart
    # where they run different files.
    assert (on_onnxruntime.verifier_id != on_opencv.verifier_id) == exact


def test_without_the_setting_onnxruntime_runs_the_float_files(tmp_path: Path) -> None:
    path = model_copy(tmp_path)
    info = dict(SHIPPED)
    del info[INT8_KEY]
    path.with_suffix(".json").write_text(json.dumps(info), encoding="utf-8")
    recognizer = Recognizer(path, runtime="onnxruntime")
    assert recognizer.verifier_id == model_id(MODEL_DIR / OWN)


def _crop_size(name: str) -> CropSize:
    """The crop a shipped verifier reads (`view_crops` in the settings, else the own)."""
    height, width = SHIPPED.get("view_crops", {}).get(name, CROP_SIZE)
    return height, width


@functools.cache
def _verifier_crops(size: CropSize = CROP_SIZE) -> np.ndarray:
    """What the verifiers are given in scenes of the simulator's drawn designs: the pairs
    the classifier gives some chance of being an index, cut `size` (height, width)."""
    recognizer = Recognizer(runtime="opencv")
    batches = []
    for k, name in enumerate(designs_module.TUNING_DESIGNS):
        spec = camera.SceneSpec(boxes={"box1": ["QS", "7H", "TD"], "box2": ["AC", "2D", "9S"],
                                       "box3": ["KH", "5C"]},
                                dealer=["8D", "3S"], card_width=110, hand_rotation=15 * k)
        scene = camera.render_scene(spec, designs_module.DESIGNS[str(name)], 10 + k)
        features, rank_at, suit_at, _ = candidate_features(scene.image,
                                                           recognizer.looks_like_index)
        rank_p, _ = recognizer.classify(features)
        looked = rank_p[:, NOT_INDEX] < recognizer.verify_below
        batches.append(net_input(cut_all(scene.image, rank_at[looked], suit_at[looked],
                                         size)))
    return np.concatenate(batches)


@pytest.mark.parametrize(("name", "copy"), sorted(SHIPPED[INT8_KEY].items()))
def test_an_int8_copy_reads_crops_as_its_float_file_does(name: str, copy: str) -> None:
    crops = _verifier_crops(_crop_size(name))
    assert crops.shape[0] >= 100
    float_net = Network(MODEL_DIR / name, "onnxruntime")
    # The copy's own arithmetic, as a CPU that runs it exactly computes it.
    exact, quantized = float_net.run(crops), _run_as_written(MODEL_DIR / copy, crops)
    for head in ("rank", "suit"):
        assert np.array_equal(exact[head].argmax(axis=1), quantized[head].argmax(axis=1))
        # On these crops the copies move no probability by more than 0.075 (a suit, on a
        # pair of a rank up to 3 times its pip's size); the two float verifiers, trained
        # apart, differ by up to 0.97 on the same crops.
        moved = np.abs(softmax(exact[head]) - softmax(quantized[head])).max()
        assert moved <= 0.1, f"{head}: a probability moved by {moved:.3f}"
    # Not the same file under another name: the arithmetic differs a little.
    assert not np.allclose(exact["rank"], quantized["rank"], atol=1e-4)


@pytest.mark.parametrize(("setting", "message"), [
    (["index_verifier_int8.onnx"], "must map network files to their int8 copies"),
    ({"index_verifier.onnx": 8}, "must map network files to their int8 copies"),
    ({"index_verifier.onnx": []}, "must map network files to their int8 copies"),
    ({"index_verifier.onnx": ["index_verifier_int8.onnx", 7]},
     "must map network files to their int8 copies"),
    ({"index_verifier.onnx": ["index_verifier_int8.onnx", "gone_int8w7.onnx"]},
     "gone_int8w7.onnx .named in int8_verifiers. not found"),
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


def test_the_verifiers_that_run_read_crops_as_the_float_files_do() -> None:
    """Whatever this CPU does with int8, the files the recognizer runs read the drawn
    designs' crops within 0.1 of the float files (the copies' quantization allowance)."""
    recognizer = Recognizer(runtime="onnxruntime")
    for name, running in ((OWN, recognizer.verifier_path),
                          *((n, net.path) for n, net in recognizer._view_verifiers.items())):
        crops = _verifier_crops(_crop_size(name))
        float_run = Network(MODEL_DIR / name, "onnxruntime").run(crops)
        assert _moved(float_run, Network(running, "onnxruntime").run(crops)) <= 0.1, running


def test_a_file_run_exactly_is_kept_and_the_probe_crops_look_like_corners() -> None:
    from vision.quantized import exact_copies, int8_drift, probe_crops

    # A float file "as a copy": optimized or not, onnxruntime computes the same numbers.
    assert int8_drift(MODEL_DIR / OWN) < 1e-3
    assert exact_copies({OWN: [OWN]}, MODEL_DIR) == ({OWN: OWN}, [])
    # The probe is 39 drawn corners the float verifier reads as indices, mostly surely.
    probe = probe_crops()
    assert probe.shape == (39, 3, 36, 24)
    rank_p = softmax(Network(MODEL_DIR / OWN, "onnxruntime").run(probe)["rank"])
    assert float(np.mean(rank_p.max(axis=1) > 0.6)) > 0.5



def test_a_verifier_of_a_finer_cut_is_checked_on_probe_crops_of_its_size(
        tmp_path: Path) -> None:
    from tests.vision.model_copies import write_fine_verifier
    from vision.quantized import int8_drift, probe_crops

    fine = tmp_path / "fine.onnx"
    write_fine_verifier(fine)
    assert probe_crops((72, 48)).shape == (39, 3, 72, 48)
    # Fed crops of its own size, a float file's two runs agree.
    assert int8_drift(fine) < 1e-3


def test_a_copy_this_cpu_does_not_run_exactly_is_passed_over_for_the_next(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vision import quantized

    drifts = {"a_int8.onnx": 0.9, "a_int8w7.onnx": 0.01, "b_int8.onnx": 0.5,
              "b_int8w7.onnx": 0.4}
    monkeypatch.setattr(quantized, "int8_drift", lambda path: drifts[path.name])
    kept, refused = quantized.exact_copies(
        {"a.onnx": ["a_int8.onnx", "a_int8w7.onnx"], "b.onnx": ["b_int8.onnx", "b_int8w7.onnx"]},
        tmp_path)
    assert kept == {"a.onnx": "a_int8w7.onnx"}
    assert refused == [
        "a_int8.onnx: this CPU's int8 arithmetic moves its probabilities by up to 0.90 "
        "(its int8 sums are not exact); a_int8w7.onnx is tried",
        "b_int8.onnx: this CPU's int8 arithmetic moves its probabilities by up to 0.50 "
        "(its int8 sums are not exact); b_int8w7.onnx is tried",
        "b_int8w7.onnx: this CPU's int8 arithmetic moves its probabilities by up to 0.40 "
        "(its int8 sums are not exact); b.onnx runs instead"]


def test_the_check_is_worked_out_again_only_for_a_changed_file(tmp_path: Path) -> None:
    import os

    from vision.quantized import _drift_of, int8_drift

    copy = tmp_path / "copy_int8.onnx"
    copy.write_bytes((MODEL_DIR / int8_name(OWN)).read_bytes())
    before = _drift_of.cache_info().misses
    first = int8_drift(copy)
    assert int8_drift(copy) == first
    assert _drift_of.cache_info().misses == before + 1
    # The float file written in its place (and stamped later): worked out anew, and a
    # float file's "int8 run" is its own arithmetic, so nothing moves.
    copy.write_bytes((MODEL_DIR / OWN).read_bytes())
    stamp = copy.stat().st_mtime_ns + 10**9
    os.utime(copy, ns=(stamp, stamp))
    assert int8_drift(copy) < 1e-3
    assert _drift_of.cache_info().misses == before + 2
