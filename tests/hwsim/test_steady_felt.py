"""The simulated felt keeps every hand where it was laid while other places change."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hwsim.camera.felt import Felt, FeltCamera


def _area_mask(layout: dict[str, object], name: str, shape: tuple[int, ...]) -> np.ndarray:
    areas = layout["areas"]
    assert isinstance(areas, dict)
    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(np.asarray(areas[name], np.float64)).astype(np.int32)], 1)
    return mask.astype(bool)


def _changed(before: np.ndarray, after: np.ndarray, where: np.ndarray) -> int:
    """Pixels of `where` that changed clearly (more than JPEG's and noise's wobble)."""
    diff = np.abs(before.astype(np.int16) - after.astype(np.int16)).max(axis=2)
    return int((diff[where] > 12).sum())


@pytest.mark.parametrize("other", ["box1", "box3", "dealer"])
def test_a_card_laid_elsewhere_does_not_move_a_lying_hand(other: str) -> None:
    felt = Felt({"box4": ["2D", "9C"], "box6": ["KH"]})
    camera = FeltCamera(felt, seed=2, card_width=85)
    before = camera.read()
    assert before is not None
    layout = camera.layout()
    felt.put(other, "2D")
    after = camera.read()
    assert after is not None
    for lying in ("box4", "box6"):
        assert _changed(before, after, _area_mask(layout, lying, before.shape)) == 0, lying
    # The new card is in the picture.
    assert _changed(before, after, _area_mask(layout, other, before.shape)) > 1000


def test_the_same_felt_gives_the_same_frame() -> None:
    cards = {"box2": ["AS", "7D"], "dealer": ["9C"]}
    first = FeltCamera(Felt(cards), seed=5).read()
    again = FeltCamera(Felt(cards), seed=5).read()
    assert first is not None and again is not None
    assert np.array_equal(first, again)
