import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablectl.cli import main
from vision.calibrate import (
    CalibrationError,
    calibrate_image,
    default_template,
    layout_from_corners,
    marker_image,
)
from vision.layout import load_layout

# Where the four reference points of the unit-square template land in the picture:
# a camera looking down at an angle (the far edge is shorter).
TRUE_CORNERS = np.array([[300, 110], [980, 120], [1180, 650], [110, 640]], np.float32)
UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)


def _table_picture() -> np.ndarray:
    """An empty felt, unevenly lit, with the corner markers printed on it in perspective."""
    rng = np.random.default_rng(3)
    felt = np.zeros((720, 1280, 3), np.float32)
    felt[:] = (40, 110, 35)
    felt *= np.linspace(0.75, 1.15, 1280)[None, :, None]
    felt += rng.normal(0, 4, felt.shape)
    picture = np.clip(felt, 0, 255).astype(np.uint8)
    homography = cv2.getPerspectiveTransform(UNIT, TRUE_CORNERS)
    for marker_id, (u, v) in enumerate(UNIT):
        tile = cv2.cvtColor(marker_image(marker_id, 120), cv2.COLOR_GRAY2BGR)
        side = tile.shape[0]
        # The printed tile (with its white margin) is 0.09 x 0.12 of the template, centred
        # on the reference point.
        half_u, half_v = 0.045, 0.06
        template_quad = np.array([[u - half_u, v - half_v], [u + half_u, v - half_v],
                                  [u + half_u, v + half_v], [u - half_u, v + half_v]],
                                 np.float32)
        image_quad = cv2.perspectiveTransform(template_quad.reshape(-1, 1, 2), homography)
        tile_corners = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
        warp = cv2.getPerspectiveTransform(tile_corners, image_quad.reshape(4, 2))
        warped = cv2.warpPerspective(tile, warp, (1280, 720), flags=cv2.INTER_LINEAR)
        mask = cv2.warpPerspective(np.full((side, side), 255, np.uint8), warp, (1280, 720))
        picture[mask > 127] = warped[mask > 127]
    return picture


def _expected_areas(boxes: int) -> dict[str, np.ndarray]:
    homography = cv2.getPerspectiveTransform(UNIT, TRUE_CORNERS)
    return {name: cv2.perspectiveTransform(np.asarray(poly, np.float32).reshape(-1, 1, 2),
                                           homography).reshape(-1, 2)
            for name, poly in default_template(boxes).items()}


def test_markers_give_the_layout_in_picture_coordinates() -> None:
    layout = calibrate_image(_table_picture(), template=default_template(5))
    assert layout.image_size == (1280, 720)
    expected = _expected_areas(5)
    assert set(layout.areas) == {"dealer", "box1", "box2", "box3", "box4", "box5"}
    for name, polygon in layout.areas.items():
        assert np.abs(np.asarray(polygon) - expected[name]).max() < 2.0, name


def test_box_centres_fall_in_their_boxes() -> None:
    layout = calibrate_image(_table_picture(), template=default_template(7))
    for name, polygon in _expected_areas(7).items():
        centre = polygon.mean(axis=0)
        assert layout.area_of(float(centre[0]), float(centre[1])) == name


def test_missing_markers_are_named() -> None:
    picture = _table_picture()
    picture[:, 640:] = (40, 110, 35)  # wipe the right half: markers 1 and 2 are gone
    with pytest.raises(CalibrationError, match=r"\[1, 2\]"):
        calibrate_image(picture)


def test_user_corners_instead_of_markers() -> None:
    layout = layout_from_corners([tuple(p) for p in TRUE_CORNERS], (1280, 720),
                                 default_template(3))
    expected = _expected_areas(3)
    assert np.abs(np.asarray(layout.areas["box2"]) - expected["box2"]).max() < 1e-3


def test_corners_in_the_wrong_order_are_refused() -> None:
    crossed = [tuple(TRUE_CORNERS[i]) for i in (0, 2, 1, 3)]
    with pytest.raises(CalibrationError, match="top-left, top-right"):
        layout_from_corners(crossed, (1280, 720))


def test_calibrate_command_writes_the_layout_file(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    picture = tmp_path / "empty_table.png"
    cv2.imwrite(str(picture), _table_picture())
    out = tmp_path / "layout.json"
    assert main(["vision", "calibrate", str(picture), "--out", str(out), "--boxes", "6"]) == 0
    doc = json.loads(out.read_text())
    assert doc["format"] == "table-layout/1"
    assert len(load_layout(out).areas) == 7
    with pytest.raises(SystemExit):  # argparse refuses three corners
        main(["vision", "calibrate", str(picture), "--out", str(out), "--corners",
              "1,2", "3,4", "5,6"])


def test_calibrate_command_with_bad_corner_text(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    picture = tmp_path / "empty_table.png"
    cv2.imwrite(str(picture), _table_picture())
    code = main(["vision", "calibrate", str(picture), "--out", str(tmp_path / "l.json"),
                 "--corners", "1,2", "3;4", "5,6", "7,8"])
    assert code == 1
    assert "'3;4' is not X,Y" in capsys.readouterr().err
    assert not (tmp_path / "l.json").exists()
