"""The camera's view of the table plane: tilt (a homography), lens barrel distortion,
and the layout it sees."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from hwsim.camera.plane import apply, rot, shift
from hwsim.camera.table_geometry import TableGeometry

LAYOUT_FORMAT = "table-layout/1"


def camera_homography(rng: np.random.Generator, size: tuple[int, int], margin: int,
                      tilt: float) -> np.ndarray:
    """Homography from canvas pixels to frame pixels for a camera tilted by `tilt`."""
    w, h = size
    top = tilt * rng.uniform(0.03, 0.12) * w
    bottom = tilt * rng.uniform(0.0, 0.03) * w
    src = np.array([[-top, -tilt * rng.uniform(0, 0.05) * h],
                    [w + top, -tilt * rng.uniform(0, 0.05) * h],
                    [w - bottom, h + tilt * rng.uniform(0, 0.03) * h],
                    [bottom, h + tilt * rng.uniform(0, 0.03) * h]], np.float64)
    src += rng.uniform(-1, 1, (4, 2)) * tilt * 0.015 * w
    turn = rot(tilt * rng.uniform(-3, 3))
    src = apply(shift(w / 2, h / 2) @ turn @ shift(-w / 2, -h / 2), src) + margin
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    return cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)).astype(
        np.float64)


@dataclass(frozen=True)
class CameraView:
    """Where the camera maps table-plane (canvas) pixels in the frame.

    `homography` takes canvas pixels to an ideal pinhole frame; `barrel` bends
    that frame as a wide lens does (radial distortion with coefficient `barrel`
    over the half diagonal, scaled so the corners stay the frame's corners).
    """

    homography: np.ndarray
    size: tuple[int, int]
    barrel: float = 0.0

    def _centre_and_radius(self) -> tuple[np.ndarray, float]:
        w, h = self.size
        return np.array([w / 2, h / 2]), float(np.hypot(w / 2, h / 2))

    def bent_to_ideal(self, pts: np.ndarray) -> np.ndarray:
        """Lens model: the ideal point a frame pixel shows."""
        c, radius = self._centre_and_radius()
        u = (pts - c) / radius
        r2 = (u ** 2).sum(axis=-1, keepdims=True)
        return c + radius * u * (1 + self.barrel * r2) / (1 + self.barrel)

    def ideal_to_bent(self, pts: np.ndarray) -> np.ndarray:
        """The frame pixel that shows an ideal point (the lens model inverted)."""
        if self.barrel == 0:
            return pts
        c, radius = self._centre_and_radius()
        u = (pts - c) / radius
        r_ideal = np.sqrt((u ** 2).sum(axis=-1, keepdims=True))
        r = r_ideal.copy()
        for _ in range(12):  # a contraction for the small coefficients used
            r = r_ideal * (1 + self.barrel) / (1 + self.barrel * r ** 2)
        scale = np.where(r_ideal > 0, r / np.maximum(r_ideal, 1e-12), 1.0)
        return c + radius * u * scale

    def project(self, canvas_pts: np.ndarray) -> np.ndarray:
        """Canvas points (n x 2) to frame pixels."""
        return self.ideal_to_bent(apply(self.homography, canvas_pts))

    def picture(self, canvas: np.ndarray) -> np.ndarray:
        """The frame the camera takes of the canvas."""
        w, h = self.size
        ideal = cv2.warpPerspective(canvas, self.homography, (w, h), flags=cv2.INTER_LINEAR)
        if self.barrel == 0:
            return np.asarray(ideal)
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
        src = self.bent_to_ideal(np.dstack([xs, ys]))
        return np.asarray(cv2.remap(ideal, src[:, :, 0].astype(np.float32),
                                    src[:, :, 1].astype(np.float32), cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE))


def _densify(poly: np.ndarray, step: float) -> np.ndarray:
    """The polygon with extra points every `step` pixels along its edges (so they can bend)."""
    out: list[np.ndarray] = []
    for i in range(len(poly)):
        a, b = poly[i], poly[(i + 1) % len(poly)]
        n = max(1, int(np.ceil(np.hypot(*(b - a)) / step)))
        out.extend(a + (b - a) * t for t in np.arange(n) / n)
    return np.asarray(out, np.float64).reshape(-1, 2)


def clip_to_rect(poly: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    """Sutherland-Hodgman clip of a polygon to an axis-aligned rectangle."""
    pts = [tuple(p) for p in poly]
    for axis, bound, keep_above in ((0, x0, True), (0, x1, False), (1, y0, True),
                                    (1, y1, False)):
        out: list[tuple[float, float]] = []
        for i, cur in enumerate(pts):
            prev = pts[i - 1]
            cur_in = (cur[axis] >= bound) if keep_above else (cur[axis] <= bound)
            prev_in = (prev[axis] >= bound) if keep_above else (prev[axis] <= bound)
            if cur_in != prev_in:
                t = (bound - prev[axis]) / (cur[axis] - prev[axis])
                out.append((prev[0] + t * (cur[0] - prev[0]), prev[1] + t * (cur[1] - prev[1])))
            if cur_in:
                out.append(cur)
        pts = out
        if not pts:
            break
    return np.asarray(pts, np.float64).reshape(-1, 2)


def layout_seen(geometry: TableGeometry, names: Sequence[str], view: CameraView,
                margin: int) -> dict[str, Any]:
    """The boxes and dealer area as the camera sees them (polygons in frame pixels)."""
    w, h = geometry.size
    areas: dict[str, list[list[float]]] = {}
    polygons = {name: geometry.box_polygon(len(names), k) for k, name in enumerate(names)}
    polygons["dealer"] = geometry.dealer_polygon()
    for name, poly in polygons.items():
        # Only the table plane the canvas holds maps sensibly through the camera.
        plane = clip_to_rect(np.asarray(poly, np.float64), -margin, -margin, w + margin,
                             h + margin)
        img = clip_to_rect(apply(view.homography, plane + margin), 0, 0, w, h)
        if view.barrel and len(img):
            # Straight edges bend through the lens: follow them point by point.
            img = clip_to_rect(view.ideal_to_bent(_densify(img, 12.0)), 0, 0, w, h)
        areas[name] = [[round(float(x), 1), round(float(y), 1)] for x, y in img]
    return {"format": LAYOUT_FORMAT, "image_size": [w, h], "areas": areas}


def in_frame_fraction(quad: np.ndarray, size: tuple[int, int]) -> float:
    w, h = size
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    area = cv2.contourArea(quad.astype(np.float32))
    if area <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(quad.astype(np.float32), frame)
    return float(inter) / area
