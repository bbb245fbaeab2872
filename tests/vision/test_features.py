"""Crops, features and the ONNX writer, checked against independent arithmetic."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.finder_pictures import BLURRED_PIP_CENTRE, blurred_rank_and_pip
from vision.candidates import WIDE_INK_BLOCK_PX, find_blobs, ink_masks, pair_blobs
from vision.features import (
    CROP_H,
    CROP_W,
    FEATURE_SIZE,
    cut_all,
    describe_crops,
    net_input,
    turn_features,
)
from vision.onnx_writer import ConvLayer, DenseLayer, cnn_to_onnx, mlp_to_onnx


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


def test_a_finer_cut_spans_the_same_part_of_the_frame() -> None:
    # A cut of twice the pixels each way covers the same extent: averaged down in twos it
    # is the coarse cut to within about two levels a pixel, where a coarse cut moved
    # by a pixel differs by twice that and one 5% larger by three times.
    picture, rank, suit = _index_picture()
    fine = cut_all(picture, rank[None], suit[None], (2 * CROP_H, 2 * CROP_W))[0]
    assert fine.shape == (2 * CROP_H, 2 * CROP_W, 3)
    halved = cv2.resize(fine, (CROP_W, CROP_H), interpolation=cv2.INTER_AREA).astype(int)

    def difference(first: np.ndarray, second: np.ndarray) -> float:
        return float(np.abs(halved - cut_all(picture, first[None], second[None])[0]).mean())

    middle = (rank + suit) / 2
    assert difference(rank, suit) < 3.0
    assert difference(rank + [1.0, 0.0], suit + [1.0, 0.0]) > 4.0
    assert difference(middle + (rank - middle) * 1.05, middle + (suit - middle) * 1.05) > 6.0
    assert net_input(fine[None]).shape == (1, 3, 2 * CROP_H, 2 * CROP_W)


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


def _conv_relu_pool(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """Plain loops: same-padded k x k convolution, ReLU, 2x2 max pool (floor), NCHW."""
    n, _c, h, w = x.shape
    k = weight.shape[2]
    padded = np.pad(x, ((0, 0), (0, 0), (k // 2, k // 2), (k // 2, k // 2)))
    out = np.zeros((n, weight.shape[0], h, w), np.float64)
    for dy in range(k):
        for dx in range(k):
            window = padded[:, :, dy:dy + h, dx:dx + w]
            out += np.einsum("nchw,oc->nohw", window, weight[:, :, dy, dx])
    out = np.maximum(out + bias[None, :, None, None], 0)
    h2, w2 = h // 2, w // 2
    return out[:, :, :2 * h2, :2 * w2].reshape(n, -1, h2, 2, w2, 2).max(axis=(3, 5))


def test_onnx_cnn_matches_plain_arithmetic() -> None:
    rng = np.random.default_rng(5)
    conv1 = ConvLayer(rng.normal(size=(4, 3, 3, 3)).astype(np.float32),
                      rng.normal(size=4).astype(np.float32))
    conv2 = ConvLayer(rng.normal(size=(5, 4, 3, 3)).astype(np.float32),
                      rng.normal(size=5).astype(np.float32))
    flat = 5 * (CROP_H // 4) * (CROP_W // 4)
    dense = DenseLayer(rng.normal(size=(flat, 6)).astype(np.float32) * 0.1,
                       rng.normal(size=6).astype(np.float32))
    head = DenseLayer(rng.normal(size=(6, 3)).astype(np.float32),
                      rng.normal(size=3).astype(np.float32))
    model = cnn_to_onnx([conv1, conv2], [dense], {"out": head}, (3, CROP_H, CROP_W))
    net = cv2.dnn.readNetFromONNX(np.frombuffer(model, np.uint8))
    x = rng.normal(size=(4, 3, CROP_H, CROP_W)).astype(np.float32)
    net.setInput(x)
    got = net.forward("out")
    hidden = _conv_relu_pool(_conv_relu_pool(x, conv1.weight, conv1.bias), conv2.weight,
                             conv2.bias)
    want = np.maximum(hidden.reshape(4, -1) @ dense.weight + dense.bias, 0) @ head.weight
    np.testing.assert_allclose(got, want + head.bias, rtol=1e-3, atol=1e-3)


def test_the_verifier_input_does_not_change_with_the_light() -> None:
    picture, rank, suit = _index_picture()
    crops = cut_all(picture, rank[None], suit[None])
    dim = (crops.astype(np.float32) * 0.55 + 10).astype(np.uint8)
    bright, shaded = net_input(crops), net_input(dim)
    assert bright.shape == (1, 3, CROP_H, CROP_W)
    # Paper is near the top of the range, ink near the bottom, in either light.
    assert bright.max() > 0.45 and bright.min() < -0.4
    np.testing.assert_allclose(bright, shaded, atol=0.06)


def test_a_rank_and_pip_blur_joined_are_found_apart() -> None:
    """A red bar over a red pip, joined by a pale pink smear (what motion blur leaves
    between them): the loose ink mask over the wide block sees one blob, the strict
    one two, and both glyphs come out as blobs of their own."""
    card = blurred_rank_and_pip()
    darkest = card.min(axis=2)
    loose, strict = ink_masks(darkest, WIDE_INK_BLOCK_PX)
    assert loose[121, 120] and not strict[121, 120]  # the smear is loose ink only
    joined = cv2.connectedComponentsWithStats(loose)[2][1:]
    assert any(w * h > 0 and 25 < max(w, h) <= 40 and y <= 104 and y + h >= 136
               for _x, y, w, h, _area in joined)  # one loose blob of glyph size holds both
    ys, xs = np.nonzero(darkest[90:125, 105:135] < 100)
    rank_centre = (float(xs.mean()) + 105, float(ys.mean()) + 90)
    centres = find_blobs(card).centres
    for x, y in (rank_centre, BLURRED_PIP_CENTRE):
        assert np.hypot(centres[:, 0] - x, centres[:, 1] - y).min() < 2.5, (x, y, centres)


def _near(centres: np.ndarray, x: float, y: float, within: float = 2.5) -> bool:
    return bool(centres.shape[0]) and float(np.hypot(centres[:, 0] - x,
                                                      centres[:, 1] - y).min()) < within


def test_glyphs_in_a_shadow_beside_bright_card_are_found() -> None:
    """A hand's shadow over the index, the rest of the card in full light: the
    shaded paper (0.54 of the lit paper) still counts as card stock, so the
    glyphs keep their white ring."""
    card = np.full((300, 300, 3), (40, 110, 40), np.uint8)
    cv2.rectangle(card, (40, 40), (260, 260), (250, 250, 250), -1)
    cv2.rectangle(card, (156, 120), (159, 140), (20, 20, 20), -1)  # the rank, an "L"
    cv2.rectangle(card, (156, 137), (168, 140), (20, 20, 20), -1)
    cv2.circle(card, (161, 156), 6, (20, 20, 20), -1)  # the pip
    shaded = card.astype(np.float32)
    shaded[:, 150:] *= 0.54
    frame = shaded.astype(np.uint8)
    centres = find_blobs(frame).centres
    assert _near(centres, 161.0, 156.0), centres
    ys, xs = np.nonzero(frame[110:145, 150:180].min(axis=2) < 60)
    assert _near(centres, float(xs.mean()) + 150, float(ys.mean()) + 110), centres


def test_a_glyph_touching_a_coloured_chip_is_found() -> None:
    """A black pip touching a blue chip that lies over the card's edge: the chip's
    colour is not card ink, so the pip is a blob of its own, and red and black
    print beside it still are."""
    card = np.full((300, 300, 3), (40, 110, 40), np.uint8)
    cv2.rectangle(card, (40, 40), (260, 260), (245, 245, 245), -1)
    for x, ink in ((118, (20, 20, 20)), (198, (40, 30, 205))):  # black, then red
        cv2.rectangle(card, (x, 100), (x + 3, 122), ink, -1)  # the rank, an "L"
        cv2.rectangle(card, (x, 119), (x + 12, 122), ink, -1)
        cv2.circle(card, (x + 5, 138), 7, ink, -1)  # its pip
    cv2.circle(card, (123, 168), 24, (170, 70, 30), -1, cv2.LINE_AA)  # the chip, touching
    darkest = card.min(axis=2)
    loose, _strict = ink_masks(darkest, WIDE_INK_BLOCK_PX)
    _count, labels = cv2.connectedComponents(loose)[:2]
    assert labels[138, 123] == labels[150, 123] != 0  # chip and pip: one wide-block blob
    centres = find_blobs(card).centres
    for x0 in (110, 190):
        ys, xs = np.nonzero(darkest[95:125, x0:x0 + 25] < 100)
        rank = (float(xs.mean()) + x0, float(ys.mean()) + 95)
        for x, y in (rank, (x0 + 13.0, 138.0)):
            assert _near(centres, x, y), (x, y, centres)


def test_a_frame_with_more_pairs_than_one_remap_can_take_is_cut_whole() -> None:
    from vision.features import CROP_H, REMAP_PAIRS, cut_all

    frame = np.zeros((200, 250, 3), np.uint8)
    frame[:, :, 2] = np.arange(250, dtype=np.uint8)[None, :]  # red grows left to right
    n = 2 * REMAP_PAIRS + 7
    assert n * CROP_H > 32767  # over cv2.remap's limit in one call
    xs = np.linspace(40, 210, n, dtype=np.float32)
    first = np.stack([xs, np.full(n, 90, np.float32)], axis=1)
    second = first + np.array([0.0, 20.0], np.float32)
    crops = cut_all(frame, first, second)
    assert crops.shape[0] == n
    # Each crop is centred on its own pair: the centre pixel's red is the pair's x.
    centre = crops[:, CROP_H // 2, crops.shape[2] // 2, 2].astype(float)
    assert np.abs(centre - np.round(xs)).max() <= 2.0
