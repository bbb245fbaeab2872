"""The training script of the camera's networks (`tools/train_vision.py` and its modules)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

TOOLS = Path(__file__).resolve().parents[2] / "tools"


def _tool(name: str) -> ModuleType:
    if str(TOOLS) not in sys.path:
        sys.path.insert(0, str(TOOLS))
    return importlib.import_module(name)


def test_held_out_designs_are_refused() -> None:
    train_vision = _tool("train_vision")
    for design in ("aisleriot-orell", "triplex_serif", "held-out"):
        with pytest.raises(SystemExit, match="held-out designs are never trained on"):
            train_vision.main(["--designs", design])


def test_the_filter_lets_998_in_1000_indices_through_within_its_bounds() -> None:
    threshold = _tool("mlp_training").filter_threshold
    # 1000 index scores 0.0005, 0.0015, ... 0.9995: 0.2% of them (two) lie under 0.002,
    # below the floor of 0.03, so the floor holds.
    spread = (np.arange(1000) + 0.5) / 1000
    assert threshold(spread) == pytest.approx(0.03)
    # Scores from 0.05 up: the 0.2% quantile (0.05 + 0.002 * 0.9) is the threshold.
    assert threshold(0.05 + 0.9 * spread) == pytest.approx(0.05 + 0.9 * 0.002, abs=1e-3)
    # Every index scored high: never above 0.1.
    assert threshold(np.full(100, 0.9)) == pytest.approx(0.1)


def _placed(open_share: float) -> object:
    """A 100x140 card drawn as it is (identity homography) whose top-left index has its
    rank at (10, 12) and its suit at (10, 26); its left `open_share` of the index box
    (4-18 wide) is uncovered."""
    canvases = _tool("card_canvases")
    mask = np.ones((140, 100), np.uint8)
    mask[:, int(round(4 + 14 * open_share)):20] = 0
    glyphs = canvases.IndexGlyphs([(10.0, 12.0)], (10.0, 26.0), (4.0, 4.0, 18.0, 32.0))
    return canvases.Placed("QH", np.eye(3), mask, glyphs, (100, 140))


def test_candidate_pairs_are_labelled_from_the_index_glyphs() -> None:
    examples = _tool("training_examples")
    not_index = len("A23456789TJQK")
    # Rank then suit of the top-left index; the same reversed; a rank over a centre pip;
    # the bottom-right index (the top-left turned half round: rank at (90, 128)).
    first = np.array([[10.0, 12.0], [10.0, 26.0], [10.0, 12.0], [90.0, 128.0]])
    second = np.array([[10.0, 26.0], [10.0, 12.0], [50.0, 70.0], [90.0, 114.0]])
    rank, suit = examples.label_candidates(first, second, [_placed(1.0)])
    queen, hearts = "A23456789TJQK".index("Q"), "SHDC".index("H")
    assert rank.tolist() == [queen, not_index, not_index, queen]
    assert suit[[0, 3]].tolist() == [hearts, hearts]
    # Half the top-left index covered: neither required nor wrong, left out (-2). The
    # bottom-right corner is open, so it stays the queen.
    rank, _ = examples.label_candidates(first, second, [_placed(0.5)])
    assert rank.tolist() == [-2, not_index, not_index, queen]
    # Covered all but a tenth: "not an index".
    rank, _ = examples.label_candidates(first, second, [_placed(0.1)])
    assert rank[0] == not_index


def test_a_small_run_writes_networks_the_recognizer_loads_and_its_cache_gives_the_same(
        tmp_path: Path) -> None:
    from vision.recognizer import Recognizer

    train_vision = _tool("train_vision")
    cache = tmp_path / "examples.npz"
    args = ["--designs", "classic_duplex", "--samples", "8", "--scenes", "2", "--epochs", "1",
            "--verifier-epochs", "0", "--jobs", "1", "--cache", str(cache),
            "--agreement", "cards"]
    first = tmp_path / "a" / "index_classifier.onnx"
    assert train_vision.main([*args, "--out", str(first)]) == 0
    assert cache.exists()
    info = json.loads(first.with_suffix(".json").read_text(encoding="utf-8"))
    assert info["designs"] == ["classic_duplex"] and info["agreement"] == "cards"
    assert "verifier_model" not in info
    recognizer = Recognizer(first)
    assert recognizer.agreement == "cards" and recognizer.conflicts == "better"
    # From the cache, the same seed: the same files.
    second = tmp_path / "b" / "index_classifier.onnx"
    assert train_vision.main([*args, "--out", str(second)]) == 0
    for name in ("index_classifier.onnx", "index_filter.onnx"):
        assert (first.parent / name).read_bytes() == (second.parent / name).read_bytes()


def test_keeping_the_classifier_keeps_its_file_and_its_recorded_settings(
        tmp_path: Path) -> None:
    train_vision = _tool("train_vision")
    cache, out = tmp_path / "examples.npz", tmp_path / "index_classifier.onnx"
    args = ["--designs", "classic_duplex", "--samples", "8", "--scenes", "2",
            "--verifier-epochs", "0", "--jobs", "1", "--cache", str(cache), "--out", str(out)]
    assert train_vision.main([*args, "--epochs", "1"]) == 0
    trained = out.read_bytes()
    assert train_vision.main([*args, "--epochs", "7", "--keep-mlp"]) == 0
    assert out.read_bytes() == trained
    # The settings record how the kept classifier was trained, not this run's arguments.
    assert json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["epochs"] == 1
