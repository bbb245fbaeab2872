"""Where a benchmark's wrong reads lie: at another card's open index (a card misread),
at an index only partly open (half an index taken for another card), or where no
index shows (print, a chip, a hidden corner). `write_crops` writes a picture of each.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import cv2

WRONG_AT_VISIBLE = "at another card's open index"
WRONG_AT_PARTIAL = "at an index only partly open"
WRONG_AT_NOTHING = "where no index shows"
WRONG_PLACES = (WRONG_AT_VISIBLE, WRONG_AT_PARTIAL, WRONG_AT_NOTHING)


def wrong_place(scene: Any, x: float, y: float, radius: float) -> str:
    """Where a wrong read lies: within `radius` of another card's open index (a card
    misread), else of an index only 30-80% open (half an index taken for another
    card), else away from any index (print, a chip, a hidden corner)."""
    def near(points: list[tuple[float, float]]) -> bool:
        return any(math.dist((x, y), p) <= radius for p in points)

    if any(near(pts) for _, _, pts in scene.truth):
        return WRONG_AT_VISIBLE
    if any(near(pts) for _, pts in scene.partial):
        return WRONG_AT_PARTIAL
    return WRONG_AT_NOTHING


def wrong_places_line(where: Counter[str]) -> str:
    """'3 at another card's open index, 1 at an index only partly open, 0 where ...'"""
    return ", ".join(f"{where[place]} {place}" for place in WRONG_PLACES)


CROP_REACH = 0.7  # card widths shown on each side of a wrong read
PLACE_TAGS = {WRONG_AT_VISIBLE: "open", WRONG_AT_PARTIAL: "partly-open",
              WRONG_AT_NOTHING: "no-index"}


def write_crops(scene: Any, score: Any, radius: float, folder: Path) -> list[Path]:
    """For each of a scene's wrong reads (`score.wrong_at`), the frame around it, the read
    marked with a yellow dot and drawn twice as large, written to `folder` as
    `<scene>_<card read>_<where>_<x>_<y>.png`; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    reach = int(round(CROP_REACH * scene.card_width))
    written = []
    for card, x, y in score.wrong_at:
        x0, y0 = max(0, int(x) - reach), max(0, int(y) - reach)
        crop = scene.image[y0:int(y) + reach, x0:int(x) + reach].copy()
        cv2.circle(crop, (int(x) - x0, int(y) - y0), 3, (0, 255, 255), -1)
        crop = cv2.resize(crop, None, fx=2, fy=2, interpolation=cv2.INTER_NEAREST)
        tag = PLACE_TAGS[wrong_place(scene, x, y, radius)]
        name = scene.name.replace("#", "_")
        path = folder / f"{name}_{card}_{tag}_{int(x)}_{int(y)}.png"
        if not cv2.imwrite(str(path), crop):
            raise OSError(f"could not write {path}")
        written.append(path)
    return written
