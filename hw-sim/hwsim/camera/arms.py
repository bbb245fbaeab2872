"""A dealer's arm and hand reaching over the table: it covers whatever lies under it."""

from __future__ import annotations

import math

import cv2
import numpy as np

SKIN_TONES: tuple[tuple[int, int, int], ...] = (
    (150, 175, 225), (120, 150, 205), (95, 125, 175), (70, 95, 140), (45, 65, 100),
)
SLEEVES: tuple[tuple[int, int, int], ...] = ((25, 25, 25), (235, 235, 235), (40, 30, 120))


def draw_arm(rng: np.random.Generator, canvas: np.ndarray, owner: np.ndarray, owner_id: int,
             hand_at: tuple[float, float], reach_from: tuple[float, float],
             scale: float) -> None:
    """Draw an arm from `reach_from` (off the table) to a hand at `hand_at`.

    `scale` is the hand's width in pixels (about a card width). The arm's
    pixels are written to `owner` as `owner_id`, and it casts a soft shadow.
    """
    h, w = owner.shape
    layer = np.zeros((h, w), np.uint8)
    colour = np.zeros((h, w, 3), np.uint8)
    skin = SKIN_TONES[int(rng.integers(len(SKIN_TONES)))]
    sleeve = SLEEVES[int(rng.integers(len(SLEEVES)))]
    hx, hy = hand_at
    angle = math.atan2(hy - reach_from[1], hx - reach_from[0])
    ux, uy = math.cos(angle), math.sin(angle)
    wrist = (hx - 0.55 * scale * ux, hy - 0.55 * scale * uy)
    cuff = (wrist[0] - 0.9 * scale * ux, wrist[1] - 0.9 * scale * uy)

    def limb(a: tuple[float, float], b: tuple[float, float], width: float,
             paint: tuple[int, int, int]) -> None:
        pa = (int(a[0]), int(a[1]))
        pb = (int(b[0]), int(b[1]))
        cv2.line(layer, pa, pb, 255, max(1, int(width)), cv2.LINE_AA)
        cv2.line(colour, pa, pb, paint, max(1, int(width)), cv2.LINE_AA)

    limb(reach_from, cuff, 0.75 * scale, sleeve)
    limb(cuff, wrist, 0.5 * scale, skin)
    palm = (int(hx - 0.2 * scale * ux), int(hy - 0.2 * scale * uy))
    axes = (int(0.42 * scale), int(0.33 * scale))
    cv2.ellipse(layer, palm, axes, math.degrees(angle), 0, 360, 255, -1, cv2.LINE_AA)
    cv2.ellipse(colour, palm, axes, math.degrees(angle), 0, 360, skin, -1, cv2.LINE_AA)
    spread = rng.uniform(0.15, 0.35)
    for k in range(4):
        a = angle + (k - 1.5) * spread * 0.5
        base = (palm[0] + 0.3 * scale * math.cos(a), palm[1] + 0.3 * scale * math.sin(a))
        length = scale * (0.55 - 0.08 * abs(k - 1.5))
        tip = (base[0] + length * math.cos(a), base[1] + length * math.sin(a))
        limb(base, tip, 0.14 * scale, skin)
    side = 1.0 if rng.random() < 0.5 else -1.0
    thumb_a = angle + side * 1.1
    base = (palm[0] + 0.25 * scale * math.cos(thumb_a), palm[1] + 0.25 * scale * math.sin(thumb_a))
    tip = (base[0] + 0.4 * scale * math.cos(thumb_a - side * 0.5),
           base[1] + 0.4 * scale * math.sin(thumb_a - side * 0.5))
    limb(base, tip, 0.16 * scale, skin)

    # Blur and blend only around the arm: the plane is large.
    ys, xs = np.nonzero(layer)
    if xs.size == 0:
        return
    pad = int(scale) + 4  # room for the shadow beside the arm
    x0, y0 = max(0, int(xs.min()) - pad), max(0, int(ys.min()) - pad)
    x1, y1 = min(w, int(xs.max()) + pad + 1), min(h, int(ys.max()) + pad + 1)
    layer, colour = layer[y0:y1, x0:x1], colour[y0:y1, x0:x1]
    canvas, owner = canvas[y0:y1, x0:x1], owner[y0:y1, x0:x1]
    h, w = owner.shape
    alpha = cv2.GaussianBlur(layer, (0, 0), 1.0).astype(np.float32) / 255.0
    offset = 0.12 * scale
    shadow = cv2.warpAffine(alpha, np.array([[1, 0, offset], [0, 1, offset]], np.float32), (w, h))
    shadow = cv2.GaussianBlur(shadow, (0, 0), 0.15 * scale)
    # Rounded limbs are lit from above: darker towards their edges.
    shade = cv2.GaussianBlur(alpha, (0, 0), 0.08 * scale)
    paint = colour.astype(np.float32) * (0.6 + 0.4 * shade[:, :, None])
    image = canvas.astype(np.float32) * (1.0 - 0.45 * shadow[:, :, None])
    image = image * (1 - alpha[:, :, None]) + paint * alpha[:, :, None]
    canvas[:] = np.clip(image, 0, 255).astype(np.uint8)
    owner[alpha > 0.5] = owner_id
