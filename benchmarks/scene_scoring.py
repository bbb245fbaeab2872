"""How one frame's reads are scored against its truth (used by `bench_vision.py` and the
benchmarks built on it).

A read matches a truth card of the same code within 0.25 card widths of one of its
visible index points, each truth card once (a second read of a matched card counts
neither way). A read of a card at its own index only 30-80% open counts neither way,
nor does a read of a card at its own index hidden further (under 30% open: a chip
over its pip may leave the rank in sight) where no other card's index is open. Any
other read is wrong. A hand is exactly right when the cards put in a box are that
box's cards with an index in sight.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from wrong_places import wrong_place

MATCH_RADIUS = 0.25  # card widths


@dataclass
class Scene:
    """A frame and its truth, from the renderer or a dataset folder."""

    name: str
    design: str
    image: np.ndarray
    card_width: float
    layout: dict[str, Any]
    truth: list[tuple[str, str, list[tuple[float, float]]]]  # card, box, visible points
    partial: list[tuple[str, list[tuple[float, float]]]]  # card, 30-80% open index points
    variations: dict[str, Any] = field(default_factory=dict)  # what spoils the picture
    # Per truth entry, per visible point: the rank glyph's and the suit pip's image centres
    # (rendered scenes only; empty for a dataset folder).
    glyphs: list[list[tuple[tuple[float, float], tuple[float, float]]]] = field(
        default_factory=list)
    hidden: list[tuple[str, list[tuple[float, float]]]] = field(
        default_factory=list)  # card, index points under 30% open


# Conditions the figures are also broken down by (a scene can meet several).
CONDITIONS: dict[str, Callable[[Scene], bool]] = {
    "cards under 100 px": lambda s: s.card_width < 100,
    "strong tilt (> 0.7)": lambda s: s.variations.get("tilt", 0) > 0.7,
    "uneven light (> 0.7)": lambda s: s.variations.get("uneven_light", 0) > 0.7,
    "glare": lambda s: s.variations.get("glare", 0) > 0,
    "hand shadows": lambda s: s.variations.get("shadows", 0) > 0,
    "motion blur": lambda s: s.variations.get("motion_blur", 0) > 0,
    "JPEG quality under 70": lambda s: (s.variations.get("jpeg_quality") or 100) < 70,
    "6 or more chip stacks": lambda s: s.variations.get("chips", 0) >= 6,
    "dealer's arm": lambda s: s.variations.get("arms", 0) > 0,
}


@dataclass
class Score:
    detections: int = 0
    matched: int = 0
    second_reads: int = 0
    partial_reads: int = 0
    hidden_reads: int = 0
    truth_cards: int = 0
    truth_read: int = 0
    hands: int = 0
    hands_right: int = 0
    scenes: int = 0
    times_ms: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    false_reads: list[str] = field(default_factory=list)
    # condition -> [scenes, truth cards, cards read, detections, matched detections]
    by_condition: dict[str, list[int]] = field(default_factory=dict)
    missed_at: list[tuple[float, float]] = field(default_factory=list)  # this frame's only
    wrong_at: list[tuple[str, float, float]] = field(default_factory=list)  # this frame's only
    # Where the wrong reads lie (one of wrong_places.WRONG_PLACES) -> count
    wrong_where: Counter[str] = field(default_factory=Counter)

    def add(self, other: Score) -> None:
        for name in ("detections", "matched", "second_reads", "partial_reads", "hidden_reads",
                     "truth_cards",
                     "truth_read",
                     "hands", "hands_right", "scenes"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.times_ms += other.times_ms
        self.misses += other.misses
        self.false_reads += other.false_reads
        self.wrong_where.update(other.wrong_where)
        for name, counts in other.by_condition.items():
            mine = self.by_condition.setdefault(name, [0] * len(counts))
            for k, value in enumerate(counts):
                mine[k] += value

    @property
    def precision(self) -> float:
        return self.matched / self.detections if self.detections else 1.0

    @property
    def recall(self) -> float:
        return self.truth_read / self.truth_cards if self.truth_cards else 1.0

    @property
    def hand_rate(self) -> float:
        return self.hands_right / self.hands if self.hands else 1.0

    @property
    def median_ms(self) -> float:
        return statistics.median(self.times_ms) if self.times_ms else math.nan


def score_scene(scene: Scene, detections: Sequence[Any], elapsed_ms: float) -> Score:
    """Match one frame's detections against its truth (see the module's scoring rules)."""
    score = Score(scenes=1, times_ms=[elapsed_ms])
    visible = [(card, box, pts) for card, box, pts in scene.truth if pts]
    score.truth_cards = len(visible)
    radius = MATCH_RADIUS * scene.card_width
    pairs = []
    for d_index, det in enumerate(detections):
        for t_index, (card, _, pts) in enumerate(visible):
            if card != det.card:
                continue
            dist = min(math.dist((det.x, det.y), p) for p in pts)
            if dist <= radius:
                pairs.append((dist, d_index, t_index))
    det_match: dict[int, int] = {}
    truth_match: set[int] = set()
    for _, d_index, t_index in sorted(pairs):
        if d_index in det_match or t_index in truth_match:
            continue
        det_match[d_index] = t_index
        truth_match.add(t_index)
    second = {d for _, d, t in pairs if d not in det_match and t in truth_match}
    # A read of an index that is only partly open is neither required nor wrong, nor is
    # a read of a card at its own hidden index away from every open one.
    partial_reads: set[int] = set()
    hidden_reads: set[int] = set()
    for d_index, det in enumerate(detections):
        if d_index in det_match or d_index in second:
            continue
        if _at_own_index(det, scene.partial, radius):
            partial_reads.add(d_index)
        elif (_at_own_index(det, scene.hidden, radius)
              and not any(min(math.dist((det.x, det.y), p) for p in pts) <= radius
                          for _, _, pts in visible)):
            hidden_reads.add(d_index)
    left_out = partial_reads | hidden_reads
    score.partial_reads = len(partial_reads)
    score.hidden_reads = len(hidden_reads)
    score.second_reads = len(second)
    score.detections = len(detections) - len(second) - len(left_out)
    score.matched = len(det_match)
    score.truth_read = len(truth_match)
    for t_index, (card, box, pts) in enumerate(visible):
        if t_index not in truth_match:
            x, y = pts[0]
            score.misses.append(f"{scene.name}: {card} in {box} at ({x:.0f}, {y:.0f}) not read")
            score.missed_at.extend(pts)
    for d_index, det in enumerate(detections):
        if d_index not in det_match and d_index not in second | left_out:
            score.false_reads.append(f"{scene.name}: read {det.card} at ({det.x:.0f}, "
                                     f"{det.y:.0f}) in {det.box}, conf {det.confidence:.2f}")
            score.wrong_at.append((det.card, det.x, det.y))
            score.wrong_where[wrong_place(scene, det.x, det.y, radius)] += 1
    truth_by_box: dict[str, set[str]] = {}
    for card, box, _ in visible:
        truth_by_box.setdefault(box, set()).add(card)
    seen_by_box: dict[str, set[str]] = {}
    for d_index, det in enumerate(detections):
        if det.box is not None and d_index not in left_out:
            seen_by_box.setdefault(det.box, set()).add(det.card)
    for box in set(truth_by_box) | set(seen_by_box):
        score.hands += 1
        score.hands_right += truth_by_box.get(box, set()) == seen_by_box.get(box, set())
    for name, applies in CONDITIONS.items():
        if applies(scene):
            score.by_condition[name] = [1, score.truth_cards, score.truth_read,
                                        score.detections, score.matched]
    return score


def _at_own_index(det: Any, indices: list[tuple[str, list[tuple[float, float]]]],
                  radius: float) -> bool:
    """Whether `det` names a card of `indices` within `radius` of one of its points."""
    return any(card == det.card and min(math.dist((det.x, det.y), p) for p in pts) <= radius
               for card, pts in indices if pts)
