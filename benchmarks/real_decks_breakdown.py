"""The real-deck benchmark's figures broken down by card size and by what spoils the frame.

An installer chooses how large the cards appear (the camera's height and lens);
this says what that choice costs. By the cards' width in the frame: precision,
recall and hands exactly right of the scenes whose cards are that wide. By the
size of each card's index (the distance from its rank glyph's centre to its
suit pip's, which `tablectl vision preview` measures on the installer's own
pictures and deck): the share of the visible cards of that index size that were
read. Then by each condition of `bench_vision.CONDITIONS` (a scene can meet
several).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bench_vision import CONDITIONS, MATCH_RADIUS, Scene, Score

# Card widths in the frame (pixels), each band from its bound up to the next one's.
SIZE_BANDS: tuple[tuple[float, str], ...] = (
    (0.0, "cards under 100 px"),
    (100.0, "cards 100-119 px"),
    (120.0, "cards 120 px or wider"),
)
# Index sizes (rank-to-pip distance, pixels), the same way.
INDEX_BANDS: tuple[tuple[float, str], ...] = (
    (0.0, "indices under 14 px"),
    (14.0, "indices 14-17 px"),
    (18.0, "indices 18-23 px"),
    (24.0, "indices 24 px or more"),
)


def band_of(value: float, bands: tuple[tuple[float, str], ...]) -> str:
    """The band `value` falls in: the last whose lower bound it reaches."""
    if value < 0:
        raise ValueError(f"a size cannot be negative: {value}")
    name = bands[0][1]
    for low, band in bands:
        if value >= low:
            name = band
    return name


def size_band(card_width: float) -> str:
    """The band of SIZE_BANDS a scene with cards `card_width` pixels wide falls in."""
    return band_of(card_width, SIZE_BANDS)


def cards_by_index_size(scene: Scene, detections: Sequence[Any]) -> list[tuple[float, bool]]:
    """Each visible card whose glyph centres the truth names: its index size (the mean
    rank-to-pip distance of its visible corners) and whether a read of its code lies
    within the match radius of one of those corners."""
    radius = MATCH_RADIUS * scene.card_width
    found = []
    for (card, _box, points), glyphs in zip(scene.truth, scene.glyphs, strict=False):
        if not points or not glyphs:
            continue
        size = sum(math.dist(rank, pip) for rank, pip in glyphs) / len(glyphs)
        read = any(det.card == card and min(math.dist((det.x, det.y), p) for p in points)
                   <= radius for det in detections)
        found.append((size, read))
    return found


@dataclass
class Breakdown:
    """Scores gathered by card width (anything with a `.score` and `.add`, one a band)
    and visible cards read by index size ([cards, read] a band)."""

    by_width: dict[str, Any] = field(default_factory=dict)
    by_index: dict[str, list[int]] = field(default_factory=dict)

    def add(self, scene: Scene, scored: Any, detections: Sequence[Any]) -> None:
        self.by_width.setdefault(size_band(scene.card_width), type(scored)()).add(scored)
        for size, read in cards_by_index_size(scene, detections):
            counts = self.by_index.setdefault(band_of(size, INDEX_BANDS), [0, 0])
            counts[0] += 1
            counts[1] += int(read)

    def lines(self, total: Score) -> list[str]:
        """The breakdown's lines: the card-width bands met, the index-size bands met,
        then the conditions met in `total`."""
        lines = [f"  {'by card width':<30}{'scenes':>7}{'cards':>7}{'precision':>11}"
                 f"{'recall':>9}{'hands':>8}"]
        for _low, band in SIZE_BANDS:
            if band in self.by_width:
                s = self.by_width[band].score
                lines.append(f"  {band:<30}{s.scenes:>7}{s.truth_cards:>7}"
                             f"{s.precision:>11.2%}{s.recall:>9.2%}{s.hand_rate:>8.2%}")
        lines.append(f"  {'by index size (rank to pip)':<30}{'cards':>14}{'read':>20}")
        for _low, band in INDEX_BANDS:
            if band in self.by_index:
                cards, read = self.by_index[band]
                lines.append(f"  {band:<30}{cards:>14}{_rate(read, cards):>20}")
        lines.append(f"  {'under condition':<30}{'scenes':>7}{'cards':>7}{'precision':>11}"
                     f"{'recall':>9}")
        for name in CONDITIONS:
            if name in total.by_condition:
                scenes, cards, read, detections, matched = total.by_condition[name]
                lines.append(f"  {name:<30}{scenes:>7}{cards:>7}"
                             f"{_rate(matched, detections):>11}{_rate(read, cards):>9}")
        return lines


def _rate(part: int, whole: int) -> str:
    return f"{part / whole:.2%}" if whole else "-"
