"""Make a table layout from a picture of the empty table.

The layout's areas are drawn on a *template*: the table's playing surface as
the unit square, with four reference points at its corners,

    (0, 0) top-left   (1, 0) top-right   (1, 1) bottom-right   (0, 1) bottom-left

as the camera looks at the table with the dealer at the top. On the felt these
four points carry printed ArUco markers of the `DICT_4X4_50` dictionary, the
marker's centre on the point: id 0 top-left, id 1 top-right, id 2 bottom-right,
id 3 bottom-left (`marker_image()` draws one for printing). Without markers the
user gives the four points' pixel positions (`--corners`). A homography maps the
template into the picture; the mapped polygons are the layout.

The built-in template has a dealer area at the top centre and 3 to 7 boxes on
an arc at the bottom; `template_from_dict` reads a site's own template file
(`{"format": "table-template/1", "areas": {"box1": [[u, v], ...], ...}}`, unit
square coordinates).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.layout import Layout, LayoutError, layout_from_dict

ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_50
CORNER_MARKER_IDS = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left
TEMPLATE_CORNERS = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))
TEMPLATE_FORMAT = "table-template/1"

Template = Mapping[str, Sequence[tuple[float, float]]]


class CalibrationError(ValueError):
    """The picture or the corners given cannot make a layout; the message says why."""


def default_template(boxes: int = 7) -> dict[str, list[tuple[float, float]]]:
    """Dealer area at the top centre, `boxes` boxes on an arc, box1 at the dealer's left."""
    if not 1 <= boxes <= 7:
        raise CalibrationError(f"boxes is {boxes}: a table has 1 to 7 boxes")
    areas: dict[str, list[tuple[float, float]]] = {
        "dealer": [(0.3, 0.05), (0.7, 0.05), (0.7, 0.32), (0.3, 0.32)],
    }
    centre_u, centre_v, radius = 0.5, 0.0, 0.78
    spread = math.radians(110)
    half_width = min(0.075, 0.45 / boxes)
    for index in range(boxes):
        # box1 sits at the dealer's left, i.e. the right side of the image.
        fraction = 0.5 if boxes == 1 else index / (boxes - 1)
        angle = math.radians(90) - spread / 2 + spread * fraction
        u = centre_u + radius * math.cos(angle) * 0.62
        v = centre_v + radius * math.sin(angle)
        v = min(v, 0.86)
        areas[f"box{index + 1}"] = [
            (u - half_width, v - 0.12), (u + half_width, v - 0.12),
            (u + half_width, v + 0.12), (u - half_width, v + 0.12),
        ]
    return areas


def template_from_dict(doc: Any,
                       source: str = "<template>") -> dict[str, list[tuple[float, float]]]:
    """Validate a site's template document (areas in unit-square coordinates)."""
    if not isinstance(doc, Mapping) or doc.get("format") != TEMPLATE_FORMAT:
        raise CalibrationError(f"{source}: a template is a JSON object with "
                               f"\"format\": \"{TEMPLATE_FORMAT}\" and \"areas\"")
    # The layout validator checks the polygons; the size is a placeholder.
    layout = layout_from_dict({"format": "table-layout/1", "image_size": [1, 1],
                               "areas": doc.get("areas")}, source)
    return {name: list(poly) for name, poly in layout.areas.items()}


def find_corner_markers(image: np.ndarray) -> dict[int, tuple[float, float]]:
    """Centres of the corner markers found in the picture, by marker id."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY),
                                       cv2.aruco.DetectorParameters())
    corners, ids, _rejected = detector.detectMarkers(gray)
    found: dict[int, tuple[float, float]] = {}
    if ids is None:
        return found
    for marker_corners, marker_id in zip(corners, ids.ravel(), strict=True):
        if int(marker_id) in CORNER_MARKER_IDS:
            found[int(marker_id)] = _diagonal_crossing(marker_corners.reshape(4, 2))
    return found


def _diagonal_crossing(quad: np.ndarray) -> tuple[float, float]:
    """The marker's centre: where its diagonals cross (true under perspective, unlike a mean)."""
    p0, p1, p2, p3 = (quad[i].astype(np.float64) for i in range(4))
    d1, d2 = p2 - p0, p3 - p1
    denominator = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(denominator) < 1e-9:
        centre = quad.mean(axis=0)
        return float(centre[0]), float(centre[1])
    t = ((p1[0] - p0[0]) * d2[1] - (p1[1] - p0[1]) * d2[0]) / denominator
    crossing = p0 + t * d1
    return float(crossing[0]), float(crossing[1])


def layout_from_corners(corners: Sequence[tuple[float, float]], image_size: tuple[int, int],
                        template: Template | None = None) -> Layout:
    """Map the template into the picture, given the reference points' pixel positions."""
    if len(corners) != 4:
        raise CalibrationError(f"{len(corners)} corners given: give 4, top-left, top-right, "
                               "bottom-right, bottom-left")
    src = np.asarray(TEMPLATE_CORNERS, dtype=np.float32)
    dst = np.asarray(corners, dtype=np.float32)
    if abs(cv2.contourArea(dst)) < 100.0 or not cv2.isContourConvex(dst.reshape(-1, 1, 2)):
        raise CalibrationError("the 4 corners do not make a convex quadrilateral: give them in "
                               "the order top-left, top-right, bottom-right, bottom-left")
    homography = cv2.getPerspectiveTransform(src, dst)
    areas: dict[str, tuple[tuple[float, float], ...]] = {}
    for name, polygon in (template or default_template()).items():
        points = np.asarray(polygon, dtype=np.float32).reshape(-1, 1, 2)
        mapped = cv2.perspectiveTransform(points, homography).reshape(-1, 2)
        areas[name] = tuple((float(x), float(y)) for x, y in mapped)
    return Layout(image_size, areas)


def calibrate_image(image: np.ndarray, corners: Sequence[tuple[float, float]] | None = None,
                    template: Template | None = None) -> Layout:
    """The layout for this camera picture: from given corners, else from its ArUco markers."""
    height, width = image.shape[:2]
    if corners is None:
        found = find_corner_markers(image)
        missing = [m for m in CORNER_MARKER_IDS if m not in found]
        if missing:
            raise CalibrationError(
                f"corner markers {missing} not found (DICT_4X4_50, ids 0 top-left, 1 top-right, "
                "2 bottom-right, 3 bottom-left): check they are in view, flat and lit, or give "
                "the corners by hand with --corners")
        corners = [found[m] for m in CORNER_MARKER_IDS]
    return layout_from_corners(corners, (width, height), template)


def parse_corners(text: Sequence[str]) -> list[tuple[float, float]]:
    """`["x,y", ...]` from the command line, in pixels."""
    points: list[tuple[float, float]] = []
    for item in text:
        parts = item.split(",")
        try:
            if len(parts) != 2:
                raise ValueError
            points.append((float(parts[0]), float(parts[1])))
        except ValueError:
            raise CalibrationError(
                f"corner {item!r} is not X,Y in pixels (e.g. 120.5,80)") from None
    return points


def load_template(path: str | Path) -> dict[str, list[tuple[float, float]]]:
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise CalibrationError(f"{path}: cannot read the template ({exc})") from exc
    try:
        return template_from_dict(doc, str(path))
    except LayoutError as exc:
        raise CalibrationError(str(exc)) from exc


def marker_image(marker_id: int, side_px: int = 200) -> np.ndarray:
    """A printable corner marker (white quiet zone included)."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
    inner = cv2.aruco.generateImageMarker(dictionary, marker_id, side_px)
    border = side_px // 6
    return cv2.copyMakeBorder(inner, border, border, border, border, cv2.BORDER_CONSTANT,
                              value=255)
