"""Where the boxes and the dealer area are on the felt, in table-plane pixels.

The table is a half-moon seen from above the dealer: the dealer stands at the
top edge, the player boxes are wedges of a ring around a point above the
frame. Box 1 is dealt first, at the dealer's left: facing the players, the
dealer's left is the right of the picture, so the boxes are numbered right to
left in the image (as `vision.calibrate` numbers them). The dealer area is the
inside of the ring.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Point = tuple[float, float]


@dataclass(frozen=True)
class TableGeometry:
    """The ring the boxes lie on, for a frame of `size` (width, height)."""

    size: tuple[int, int]
    centre: Point
    inner: float
    outer: float
    first_angle: float  # degrees, measured from +x towards +y (image down)
    last_angle: float

    @classmethod
    def for_frame(cls, size: tuple[int, int]) -> TableGeometry:
        w, h = size
        return cls(size, (w / 2, -0.36 * h), 0.78 * h, 1.9 * h, 42.0, 138.0)

    def box_angles(self, n: int, k: int) -> tuple[float, float]:
        """The angular span of box k (0-based: box k + 1) of n, right to left in the image."""
        step = (self.last_angle - self.first_angle) / n
        # Angles grow from image right to image left: box 0, the dealer's left, takes the
        # smallest.
        lo = self.first_angle + k * step
        return lo, lo + step

    def ring_point(self, radius: float, angle_deg: float) -> Point:
        a = math.radians(angle_deg)
        return (self.centre[0] + radius * math.cos(a), self.centre[1] + radius * math.sin(a))

    def box_polygon(self, n: int, k: int) -> list[Point]:
        lo, hi = self.box_angles(n, k)
        steps = max(4, int((hi - lo) / 2))
        angles = np.linspace(lo, hi, steps + 1)
        inner = [self.ring_point(self.inner, a) for a in angles]
        outer = [self.ring_point(self.outer, a) for a in angles[::-1]]
        return inner + outer

    def dealer_polygon(self) -> list[Point]:
        w, _ = self.size
        angles = np.linspace(self.first_angle, self.last_angle, 33)
        arc = [self.ring_point(self.inner, a) for a in angles]
        top = -0.5 * self.size[1]
        return [(w + 0.5 * w, top), (w + 0.5 * w, arc[0][1])] + arc + [
            (-0.5 * w, arc[-1][1]), (-0.5 * w, top)]

    def box_anchor(self, n: int, k: int, radial: float = 0.12) -> Point:
        """Where a hand starts in box k: a little way in from the ring's inner edge."""
        lo, hi = self.box_angles(n, k)
        return self.ring_point(self.inner + radial * self.size[1], (lo + hi) / 2)

    def dealer_anchor(self) -> Point:
        """The middle of the dealer's side, halfway down to the ring."""
        return (self.size[0] / 2, 0.5 * (self.centre[1] + self.inner))


def inside(polygon: Sequence[Point], point: Point, margin: float = 0.0) -> bool:
    """Whether `point` is inside `polygon` by at least `margin` pixels."""
    import cv2

    contour = np.asarray(polygon, np.float32).reshape(-1, 1, 2)
    return bool(cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), True)
                >= margin)
