"""Casino chips seen from above: coloured discs with edge stripes, stacked."""

from __future__ import annotations

import math

import cv2
import numpy as np

CHIP_COLOURS: tuple[tuple[int, int, int], ...] = (
    (40, 40, 200), (170, 70, 30), (40, 140, 40), (30, 30, 30), (140, 40, 120),
    (30, 180, 220), (225, 225, 225), (20, 110, 230),
)
DENOMINATIONS = ("1", "5", "25", "100", "500")


def _shade(colour: tuple[int, int, int], factor: float) -> tuple[int, int, int]:
    b, g, r = colour
    return (min(255, int(b * factor)), min(255, int(g * factor)), min(255, int(r * factor)))


def draw_chip_stack(canvas: np.ndarray, owner: np.ndarray, owner_id: int,
                    centre: tuple[float, float], radius: float, count: int,
                    lean: tuple[float, float], colour_index: int, angle: float,
                    denomination: str) -> None:
    """Draw `count` chips stacked at `centre`, each one `lean` pixels from the one below.

    The chips' footprint is written to `owner` as `owner_id`.
    """
    colour = CHIP_COLOURS[colour_index % len(CHIP_COLOURS)]
    stripe = (235, 235, 235) if colour_index % len(CHIP_COLOURS) != 6 else (40, 40, 180)
    r = int(round(radius))
    for k in range(count):
        cx = centre[0] + k * lean[0]
        cy = centre[1] + k * lean[1]
        c = (int(round(cx)), int(round(cy)))
        top = k == count - 1
        cv2.circle(canvas, c, r, _shade(colour, 1.0 if top else 0.7), -1, cv2.LINE_AA)
        cv2.circle(owner, c, r, owner_id, -1)
        # Edge stripes: a chip's side shows them too, so every chip of the stack gets them.
        for s in range(6):
            a0 = math.radians(angle + s * 60)
            a1 = a0 + math.radians(18)
            quad = np.array([
                [cx + 0.76 * radius * math.cos(a0), cy + 0.76 * radius * math.sin(a0)],
                [cx + radius * math.cos(a0), cy + radius * math.sin(a0)],
                [cx + radius * math.cos(a1), cy + radius * math.sin(a1)],
                [cx + 0.76 * radius * math.cos(a1), cy + 0.76 * radius * math.sin(a1)],
            ])
            cv2.fillPoly(canvas, [np.round(quad * 16).astype(np.int32)],
                         stripe if top else _shade(stripe, 0.75), cv2.LINE_AA, shift=4)
        if top:
            cv2.circle(canvas, c, max(1, int(0.62 * radius)), _shade(colour, 1.25), -1,
                       cv2.LINE_AA)
            cv2.circle(canvas, c, max(1, int(0.62 * radius)), stripe, max(1, r // 12),
                       cv2.LINE_AA)
            scale = 0.022 * radius / max(1, len(denomination)) ** 0.5
            (tw, th), _ = cv2.getTextSize(denomination, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
            cv2.putText(canvas, denomination, (int(cx - tw / 2), int(cy + th / 2)),
                        cv2.FONT_HERSHEY_SIMPLEX, scale, _shade(colour, 0.5), 1, cv2.LINE_AA)
