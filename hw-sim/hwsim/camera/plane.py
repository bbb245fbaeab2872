"""The table plane: the picture the cards are laid on, and who owns each pixel.

Every object pasted on the plane writes its id into the owner map, so what a
later card, chip or arm covers is known exactly.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

FELT_ID = 0
CHIP_ID = -2
FACE_DOWN_ID = -3
ARM_ID = -4
MOVING_ID = -5


def rot(deg: float) -> np.ndarray:
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def shift(x: float, y: float) -> np.ndarray:
    return np.array([[1.0, 0.0, x], [0.0, 1.0, y], [0.0, 0.0, 1.0]])


def apply(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    ones = np.ones((pts.shape[0], 1))
    out = np.hstack([pts, ones]) @ m.T
    return out[:, :2] / out[:, 2:3]


def box_quad(box: tuple[float, float, float, float]) -> np.ndarray:
    x0, y0, x1, y1 = box
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)


class TablePlane:
    """The table plane: image, owner map and the frame's offset in it."""

    def __init__(self, image: np.ndarray, margin: int) -> None:
        self.image = image
        self.owner: np.ndarray = np.zeros(image.shape[:2], np.int16)
        self.margin = margin

    def paste(self, sprite: np.ndarray, m: np.ndarray, owner_id: int, shadow: float) -> None:
        """Draw a BGRA sprite through the 3x3 affine `m` (sprite pixels -> canvas pixels)."""
        h, w = int(sprite.shape[0]), int(sprite.shape[1])
        corners = apply(m, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))
        ch, cw = int(self.owner.shape[0]), int(self.owner.shape[1])
        x0 = max(0, int(math.floor(corners[:, 0].min())) - 4)
        y0 = max(0, int(math.floor(corners[:, 1].min())) - 4)
        x1 = min(cw, int(math.ceil(corners[:, 0].max())) + 6)
        y1 = min(ch, int(math.ceil(corners[:, 1].max())) + 6)
        if x1 <= x0 or y1 <= y0:
            return
        local = shift(-x0, -y0) @ m
        warped = cv2.warpAffine(sprite, local[:2], (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        alpha = warped[:, :, 3].astype(np.float32) / 255.0
        roi = self.image[y0:y1, x0:x1].astype(np.float32)
        if shadow > 0:
            offset = max(1.0, 0.02 * w)
            drop = cv2.warpAffine(alpha, np.array([[1, 0, offset], [0, 1, offset]], np.float32),
                                  (x1 - x0, y1 - y0))
            drop = cv2.GaussianBlur(drop, (0, 0), offset)
            roi *= (1.0 - shadow * drop)[:, :, None]
        roi = roi * (1 - alpha[:, :, None]) + warped[:, :, :3].astype(np.float32) * alpha[
            :, :, None]
        self.image[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)
        self.owner[y0:y1, x0:x1][alpha > 0.5] = owner_id

    def own_fraction(self, quad: np.ndarray, owner_id: int) -> float:
        """Share of the quad's pixels that belong to `owner_id`."""
        ch, cw = int(self.owner.shape[0]), int(self.owner.shape[1])
        x0 = max(0, int(math.floor(quad[:, 0].min())))
        y0 = max(0, int(math.floor(quad[:, 1].min())))
        x1 = min(cw, int(math.ceil(quad[:, 0].max())) + 1)
        y1 = min(ch, int(math.ceil(quad[:, 1].max())) + 1)
        if x1 <= x0 or y1 <= y0:
            return 0.0
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, np.round(quad - (x0, y0)).astype(np.int32), 1)
        total = int(mask.sum())
        if total == 0:
            return 0.0
        mine = int((mask.astype(bool) & (self.owner[y0:y1, x0:x1] == owner_id)).sum())
        return mine / total


def free_spot(rng: np.random.Generator, canvas: TablePlane, sprite_w: int, sprite_h: int,
               size: tuple[int, int]) -> np.ndarray | None:
    """A transform that puts a sprite on bare felt inside the frame, or None."""
    w, h = size
    m = canvas.margin
    for _ in range(60):
        cx, cy = rng.uniform(0.08 * w, 0.92 * w) + m, rng.uniform(0.1 * h, 0.9 * h) + m
        t = shift(cx, cy) @ rot(float(rng.uniform(0, 360))) @ shift(-sprite_w / 2,
                                                                        -sprite_h / 2)
        quad = apply(t, np.array([[0, 0], [sprite_w, 0], [sprite_w, sprite_h],
                                   [0, sprite_h]], float))
        if canvas.own_fraction(quad, FELT_ID) > 0.995:
            return t
    return None
