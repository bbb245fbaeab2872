"""The table layout: named polygons (boxes and the dealer area) in image pixels.

File format (`table-layout/1`, JSON)::

    {"format": "table-layout/1", "image_size": [1280, 720],
     "areas": {"box1": [[x, y], ...], ..., "dealer": [[x, y], ...]}}
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import cv2
import numpy as np

LAYOUT_FORMAT = "table-layout/1"


class LayoutError(ValueError):
    """A layout file or document that cannot be used; the message says how to fix it."""


@dataclass(frozen=True)
class Layout:
    """Named areas of the camera image; `area_of` answers which one holds a point."""

    image_size: tuple[int, int]
    areas: Mapping[str, tuple[tuple[float, float], ...]]

    @cached_property
    def _contours(self) -> tuple[tuple[str, np.ndarray], ...]:
        """The areas as OpenCV contours, made once: a frame asks for every card."""
        return tuple((name, np.asarray(polygon, dtype=np.float32).reshape(-1, 1, 2))
                     for name, polygon in self.areas.items())

    def placed(self, x: float, y: float, reach: float = 0.0) -> tuple[str | None, float]:
        """`area_of` with the depth: how far inside its area the point is (negative: outside)."""
        best: str | None = None
        best_depth = -math.inf
        for name, contour in self._contours:
            depth = cv2.pointPolygonTest(contour, (float(x), float(y)), True)
            if depth >= -reach and depth > best_depth:
                best, best_depth = name, depth
        return best, best_depth

    def area_of(self, x: float, y: float, reach: float = 0.0) -> str | None:
        """The name of the area that contains (x, y), or None.

        Where areas overlap, the one whose edge is farthest from the point wins.
        With `reach` > 0 a point outside every area but within `reach` pixels of
        one belongs to the nearest (a card pushed just over a box line).
        """
        return self.placed(x, y, reach)[0]

    def scaled_to(self, width: int, height: int) -> Layout:
        """The same layout for a frame of another size (a camera set to another resolution)."""
        sx = width / self.image_size[0]
        sy = height / self.image_size[1]
        areas = {name: tuple((px * sx, py * sy) for px, py in poly)
                 for name, poly in self.areas.items()}
        return Layout((width, height), areas)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": LAYOUT_FORMAT,
            "image_size": [self.image_size[0], self.image_size[1]],
            "areas": {name: [[round(px, 1), round(py, 1)] for px, py in poly]
                      for name, poly in self.areas.items()},
        }


def layout_from_dict(doc: Any, source: str = "<layout>") -> Layout:
    """Validate a parsed layout document; LayoutError lists every problem."""
    problems: list[str] = []
    if not isinstance(doc, Mapping):
        raise LayoutError(f"{source}: a layout is a JSON object with format, image_size "
                          "and areas; make one with `tablectl vision calibrate`")
    if doc.get("format") != LAYOUT_FORMAT:
        problems.append(f"format is {doc.get('format')!r}, expected {LAYOUT_FORMAT!r}")
    size = doc.get("image_size")
    image_size = (0, 0)
    if (isinstance(size, list) and len(size) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)):
        image_size = (size[0], size[1])
    else:
        problems.append(f"image_size is {size!r}, expected [width, height] in pixels")
    raw_areas = doc.get("areas")
    areas: dict[str, tuple[tuple[float, float], ...]] = {}
    if not isinstance(raw_areas, Mapping) or not raw_areas:
        problems.append("areas is missing or empty: expected {\"box1\": [[x, y], ...], ...}")
    else:
        for name, polygon in raw_areas.items():
            points = _polygon(polygon)
            if points is None:
                problems.append(f"area {name!r} is not a list of at least 3 [x, y] points")
            else:
                areas[str(name)] = points
    unknown = sorted(set(doc) - {"format", "image_size", "areas"})
    if unknown:
        problems.append(f"unknown keys {unknown}: allowed are format, image_size, areas")
    if problems:
        raise LayoutError(f"{source}: " + "; ".join(problems))
    return Layout(image_size, areas)


def _polygon(value: Any) -> tuple[tuple[float, float], ...] | None:
    if not isinstance(value, list) or len(value) < 3:
        return None
    points: list[tuple[float, float]] = []
    for point in value:
        if (not isinstance(point, list | tuple) or len(point) != 2
                or not all(isinstance(v, int | float) and not isinstance(v, bool)
                           and math.isfinite(v) for v in point)):
            return None
        points.append((float(point[0]), float(point[1])))
    return tuple(points)


def load_layout(path: str | Path) -> Layout:
    """Read and validate a layout file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LayoutError(f"{path}: cannot read the layout file ({exc.strerror}); "
                          "make one with `tablectl vision calibrate`") from exc
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LayoutError(f"{path}: not valid JSON at line {exc.lineno} column {exc.colno}: "
                          f"{exc.msg}") from exc
    return layout_from_dict(doc, str(path))


def save_layout(layout: Layout, path: str | Path) -> None:
    """Write the layout file (atomically: a half-written layout is never left behind)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(layout.to_dict(), indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
