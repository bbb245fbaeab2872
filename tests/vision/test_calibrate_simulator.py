"""`tablectl vision calibrate` and the simulated table number the boxes alike.

RULES: box 1 is dealt first, at the dealer's left. With the dealer at the top of
the picture, facing the players, that is the right of the picture. The simulated
felt's frames (`hwsim.camera.table_frames`) are taken straight from above, the
frame being the table's playing surface, so calibrating one of them with the
frame's corners as the reference points must give boxes that lie over the
simulator's boxes of the same name.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from hwsim.camera.table_frames import TABLE_BOXES, render_table_frame

from tablectl.cli import main

SIZE = (1280, 720)


def _mask(polygon: list[list[float]]) -> np.ndarray:
    mask = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    cv2.fillPoly(mask, [np.round(np.asarray(polygon, np.float64)).astype(np.int32)], 1)
    return mask


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, object],
                                                                    dict[str, object]]:
    """(the simulator's layout, the layout calibrate made of the simulator's frame)."""
    folder = tmp_path_factory.mktemp("calibrate-sim")
    image, simulator_layout = render_table_frame({}, frame_size=SIZE)
    picture = folder / "empty_felt.png"
    cv2.imwrite(str(picture), image)
    out = folder / "layout.json"
    w, h = SIZE
    code = main(["vision", "calibrate", str(picture), "--out", str(out), "--boxes", "7",
                 "--corners", "0,0", f"{w},0", f"{w},{h}", f"0,{h}"])
    assert code == 0
    return simulator_layout, json.loads(Path(out).read_text(encoding="utf-8"))


def test_each_calibrated_box_lies_over_the_simulators_box_of_its_name(
        calibrated: tuple[dict[str, object], dict[str, object]]) -> None:
    simulator, made = calibrated
    sim_areas = simulator["areas"]
    made_areas = made["areas"]
    assert isinstance(sim_areas, dict) and isinstance(made_areas, dict)
    sim_masks = {name: _mask(sim_areas[name]) for name in TABLE_BOXES}
    for name in TABLE_BOXES:
        box = _mask(made_areas[name])
        overlap = {other: int((box & mask).sum()) for other, mask in sim_masks.items()}
        best = max(overlap, key=lambda other: overlap[other])
        assert best == name, f"calibrate's {name} lies over the simulator's {best}: {overlap}"
        # Most of calibrate's box is inside the simulator's box of its name.
        assert overlap[name] > 0.6 * int(box.sum()), (name, overlap[name], int(box.sum()))


def test_box1_is_at_the_dealers_left_the_right_of_the_picture(
        calibrated: tuple[dict[str, object], dict[str, object]]) -> None:
    for layout in calibrated:
        areas = layout["areas"]
        assert isinstance(areas, dict)
        centres = [float(np.asarray(areas[name], np.float64)[:, 0].mean())
                   for name in TABLE_BOXES]
        # Dealt right to left in the picture: box1 rightmost, box7 leftmost.
        assert centres == sorted(centres, reverse=True), centres
        assert centres[0] > SIZE[0] / 2 > centres[-1]
