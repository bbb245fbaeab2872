"""The candidate stage's quicker arithmetic, checked against the plain whole-array forms."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.candidates import (
    _CROSS,
    INK_BLOCK_PX,
    MAX_RATIO,
    WIDE_INK_BLOCK_PX,
    Blobs,
    _ink_passes,
    _pairs_within,
    given_pairs,
    ink_masks,
    pair_blobs,
)
from vision.features import CROP_H, CROP_W, _ink_sum, crop_maps, cut_all, glance_crops, glance_of


def test_every_pair_within_reach_is_found_once() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(0, 200, 120).astype(np.float32)  # many equal x among them
    i, j = _pairs_within(x, 15.0)
    assert np.all(i < j)
    found = set(zip(i.tolist(), j.tolist(), strict=True))
    assert len(found) == i.size
    expected = {(a, b) for a in range(x.size) for b in range(a + 1, x.size)
                if abs(float(x[a]) - float(x[b])) <= 15.0}
    assert expected <= found


def test_a_tall_court_letter_pairs_with_a_pip_under_half_its_size() -> None:
    # A "Q" 29 px tall over a 10 px pip 20 px below it (2 sizes of the larger blob is
    # 58 px, 0.7 of it 20.3: so 25 px apart), as some faces print their court
    # letters; at 31 px the letter is 3.1 times the pip, over the bound of 3.0.
    for rank_px, paired in ((29.0, True), (31.0, False)):
        blobs = Blobs(np.array([[100.0, 100.0], [100.0, 125.0]], np.float32),
                      np.array([rank_px, 10.0], np.float32), np.zeros((2, 4), np.int32))
        pairs = pair_blobs(blobs)
        if paired:
            # Only the letter as the rank: the pip as the rank would be 0.34 of its pip.
            assert (pairs.forward.tolist(), pairs.backward.tolist()) == ([True], [False])
        else:
            assert len(pairs) == 0


def test_no_blobs_and_one_blob_make_no_pairs() -> None:
    for n in (0, 1):
        blobs = Blobs(np.zeros((n, 2), np.float32), np.full(n, 10, np.float32),
                      np.zeros((n, 4), np.int32))
        assert len(pair_blobs(blobs)) == 0
        assert _pairs_within(blobs.centres[:, 0], 20.0)[0].size == 0


def _dense_pairs(blobs: Blobs) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every blob against every other, as an n x n matrix."""
    delta = blobs.centres[None, :, :] - blobs.centres[:, None, :]
    distance = np.hypot(delta[..., 0], delta[..., 1])
    larger = np.maximum(blobs.sizes[:, None], blobs.sizes[None, :])
    ratio = blobs.sizes[:, None] / np.maximum(blobs.sizes[None, :], 1.0)
    near = (distance >= 0.7 * larger) & (distance <= 2.0 * larger)
    forward = near & (ratio >= 0.7) & (ratio <= MAX_RATIO)
    i, j = np.nonzero(np.triu(forward | forward.T, 1))
    return blobs.centres[i], blobs.centres[j], forward[i, j], forward.T[i, j]


def test_pairs_are_those_of_the_whole_matrix_in_its_order() -> None:
    rng = np.random.default_rng(7)
    n = 300
    centres = (rng.random((n, 2)) * [640, 360]).astype(np.float32)
    centres[:20, 0] = centres[20:40, 0]  # blobs one above the other
    blobs = Blobs(centres, rng.uniform(5, 40, n).astype(np.float32), np.zeros((n, 4), np.int32))
    pairs = pair_blobs(blobs)
    first, second, forward, backward = _dense_pairs(blobs)
    assert len(pairs) > 100
    for got, want in ((pairs.first, first), (pairs.second, second), (pairs.forward, forward),
                      (pairs.backward, backward)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_ink_passes_are_the_ink_masks_near_card_stock() -> None:
    rng = np.random.default_rng(11)
    darkest = cv2.GaussianBlur(rng.integers(0, 256, (120, 160), dtype=np.uint8), (5, 5), 0)
    cv2.putText(darkest, "8", (5, 60), cv2.FONT_HERSHEY_SIMPLEX, 1.5, 10, 3)
    near_card = np.zeros_like(darkest)
    near_card[:, :20] = 255  # the card's edge runs through the glyph
    loose, strict = ink_masks(darkest, INK_BLOCK_PX)
    wide, _ = ink_masks(darkest, WIDE_INK_BLOCK_PX)
    passes = _ink_passes(darkest, near_card)
    assert [thinned for _, thinned in passes] == [0, 0, 1]
    expected = [cv2.bitwise_and(loose, near_card), cv2.bitwise_and(wide, near_card),
                cv2.bitwise_and(cv2.erode(strict, _CROSS), near_card)]
    for (mask, _), want in zip(passes, expected, strict=True):
        assert np.count_nonzero(want) > 0
        np.testing.assert_array_equal(mask, want)


def test_the_ink_colour_sum_adds_the_cells_as_numpy_does() -> None:
    rng = np.random.default_rng(5)
    cells = (rng.random((50, 12, 8, 3)) * 255).astype(np.float32)
    ink = (rng.random((50, 12, 8)) < 0.4).astype(np.float32)
    want = (cells * ink[..., None]).sum(axis=(1, 2))
    got = _ink_sum(cells.reshape(50, -1, 3), ink.reshape(50, -1))
    np.testing.assert_array_equal(got, want)  # to the last bit


def test_grey_crops_of_some_pairs_are_those_of_all() -> None:
    rng = np.random.default_rng(2)
    crops = rng.integers(0, 256, (9, CROP_H, CROP_W, 3), dtype=np.uint8)
    features, grey = glance_crops(crops)
    glance = glance_of(crops)
    np.testing.assert_array_equal(glance.features, features)
    which = np.array([1, 4, 8])
    np.testing.assert_array_equal(glance.grey(which), grey[which])
    assert grey.dtype == np.float32 and grey.min() >= 0 and grey.max() <= 255


def test_each_crop_is_the_remap_of_its_own_maps() -> None:
    rng = np.random.default_rng(4)
    frame = rng.integers(0, 256, (90, 120, 3), dtype=np.uint8)
    first = (rng.random((5, 2)) * [120, 90]).astype(np.float32)
    second = first + rng.normal(0, 15, (5, 2)).astype(np.float32)
    crops = cut_all(frame, first, second)
    map_x, map_y = crop_maps(first, second)
    # The maps: midpoint + right * across + down * along over the crop grid, in float32.
    down = second - first
    right = np.stack([down[:, 1], -down[:, 0]], axis=1)
    middle = (first + second) / 2.0
    across = (np.arange(CROP_W, dtype=np.float32) - (CROP_W - 1) / 2) / CROP_W * np.float32(2.0)
    along = (np.arange(CROP_H, dtype=np.float32) - (CROP_H - 1) / 2) / CROP_H * np.float32(2.5)
    for axis, got in ((0, map_x), (1, map_y)):
        want = (middle[:, axis, None, None] + right[:, axis, None, None] * across[None, None, :]
                + down[:, axis, None, None] * along[None, :, None])
        np.testing.assert_array_equal(got, want.reshape(5, -1))
    for k in range(5):
        alone = cv2.remap(frame, map_x[k].reshape(CROP_H, CROP_W), map_y[k].reshape(CROP_H, CROP_W),
                          cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        np.testing.assert_array_equal(crops[k], alone)


def test_given_pairs_are_read_rank_first_and_must_match_in_number() -> None:
    ranks = np.array([[10.0, 20.0], [30.0, 40.0]])
    pips = np.array([[10.0, 32.0], [30.0, 52.0]])
    pairs = given_pairs(ranks, pips)
    index, reverse, rank_at, suit_at = pairs.ordered()
    np.testing.assert_array_equal(index, [0, 1])
    assert not reverse.any()
    np.testing.assert_array_equal(rank_at, ranks.astype(np.float32))
    np.testing.assert_array_equal(suit_at, pips.astype(np.float32))
    assert len(given_pairs(np.zeros((0, 2)), np.zeros((0, 2)))) == 0
    with pytest.raises(ValueError, match="2 rank centres for 3 suit centres"):
        given_pairs(ranks, np.zeros((3, 2)))
