"""Crops, features and the ONNX writer, checked against independent arithmetic."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.candidates import find_blobs, pair_blobs
from vision.features import FEATURE_SIZE, cut_all, describe_crops, turn_features
from vision.onnx_writer import DenseLayer, mlp_to_onnx


def _index_picture() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A white card corner on felt with a rank "L" over a round pip, turned 30 degrees."""
    card = np.full((400, 400, 3), (40, 110, 40), np.uint8)
    cv2.rectangle(card, (100, 100), (300, 330), (245, 245, 245), -1)
    cv2.putText(card, "L", (122, 150), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (20, 20, 20), 2,
                cv2.LINE_AA)
    cv2.circle(card, (132, 172), 8, (20, 20, 20), -1, cv2.LINE_AA)
    turn = cv2.getRotationMatrix2D((200, 200), 30, 1.0)
    picture = cv2.warpAffine(card, turn, (400, 400), borderValue=(40, 110, 40))
    rank = turn @ np.array([132.0, 139.0, 1.0])
    suit = turn @ np.array([132.0, 172.0, 1.0])
    return picture, rank.astype(np.float32), suit.astype(np.float32)


def test_the_crop_comes_out_upright_and_unmirrored() -> None:
    picture, rank, suit = _index_picture()
    crop = cut_all(picture, rank[None], suit[None])[0]
    dark = crop.min(axis=2) < 100
    half = crop.shape[0] // 2
    upper, lower = dark[:half], dark[half:]
    assert upper.sum() > 0 and lower.sum() > 0  # the L above, the pip below
    glyph_rows = np.flatnonzero(upper.any(axis=1))
    # An upright L: its widest row is its foot, the lowest row of the glyph...
    assert int(np.argmax(upper.sum(axis=1))) >= glyph_rows.max() - 2
    # ...and its upright stroke stands at the left of the foot (not mirrored).
    top = upper[glyph_rows.min()]
    foot = upper[glyph_rows.max()]
    assert np.flatnonzero(top).mean() < np.flatnonzero(foot).mean()


def test_reversed_pair_features_are_the_turned_features() -> None:
    picture, rank, suit = _index_picture()
    forward = describe_crops(cut_all(picture, rank[None], suit[None]))
    backward = describe_crops(cut_all(picture, suit[None], rank[None]))
    assert forward.shape == (1, FEATURE_SIZE)
    np.testing.assert_allclose(turn_features(forward), backward, atol=1e-4)
    assert np.abs(forward - backward).max() > 0.1  # and they do differ


def test_the_rank_and_pip_are_found_as_a_pair() -> None:
    picture, rank, suit = _index_picture()
    pairs = pair_blobs(find_blobs(picture))
    _index, _reverse, rank_at, suit_at = pairs.ordered()
    distance = np.hypot(*(rank_at - rank).T) + np.hypot(*(suit_at - suit).T)
    assert distance.min() < 6.0


def test_turning_nothing() -> None:
    assert turn_features(np.zeros((0, FEATURE_SIZE), np.float32)).shape == (0, FEATURE_SIZE)


@pytest.mark.parametrize("hidden", [1, 16])
def test_onnx_mlp_matches_numpy(hidden: int) -> None:
    rng = np.random.default_rng(hidden)
    w1 = rng.normal(size=(12, hidden)).astype(np.float32)
    b1 = rng.normal(size=hidden).astype(np.float32)
    wa = rng.normal(size=(hidden, 5)).astype(np.float32)
    ba = rng.normal(size=5).astype(np.float32)
    wb = rng.normal(size=(hidden, 3)).astype(np.float32)
    bb = rng.normal(size=3).astype(np.float32)
    model = mlp_to_onnx([DenseLayer(w1, b1)], {"a": DenseLayer(wa, ba), "b": DenseLayer(wb, bb)})
    net = cv2.dnn.readNetFromONNX(np.frombuffer(model, np.uint8))
    x = rng.normal(size=(7, 12)).astype(np.float32)
    net.setInput(x)
    out_a, out_b = net.forward(["a", "b"])
    hidden_out = np.maximum(x @ w1 + b1, 0)
    np.testing.assert_allclose(out_a, hidden_out @ wa + ba, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out_b, hidden_out @ wb + bb, rtol=1e-4, atol=1e-4)
