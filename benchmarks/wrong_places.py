"""Where a benchmark's wrong reads lie: at another card's open index (a card misread),
at an index only partly open (half an index taken for another card), or where no
index shows (print, a chip, a hidden corner)."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

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
