"""How many of a rendered scene's visible cards a recognizer read, and what it read wrong.

A read is right where it names a card whose index corner is visible within a
quarter of a card's width of it; a read of an index only partly open is neither
right nor wrong; any other read is wrong. Each visible card counts once, however
many of its corners are read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hwsim.camera.render import RenderedScene

MATCH_RADIUS = 0.25  # card widths

# What a recognizer reads in a scene: detections with .card, .x and .y (frame pixels).
Reader = Callable[[RenderedScene], Sequence[Any]]


@dataclass
class ReadScore:
    right: int = 0
    visible: int = 0
    wrong: list[str] = field(default_factory=list)  # "TD at (640, 360)"


def score_scene(scene: RenderedScene, reads: Sequence[Any], score: ReadScore) -> None:
    """Add one scene's reads to `score`."""
    radius = MATCH_RADIUS * scene.card_width
    shown = [t for t in scene.truth if t.index_points]
    score.visible += len(shown)
    read = set()
    for det in reads:
        near = [t.card for t in shown
                if min(math.dist((det.x, det.y), p) for p in t.index_points) <= radius]
        partial = [t.card for t in scene.truth
                   if any(math.dist((det.x, det.y), p) <= radius for p in t.partial_points)]
        if det.card in near:
            read.add(det.card)
        elif det.card not in partial:
            score.wrong.append(f"{det.card} at ({det.x:.0f}, {det.y:.0f})")
    score.right += len(read)


def score_reads(reader: Reader, scenes: Sequence[RenderedScene]) -> ReadScore:
    """The reads of every scene, scored."""
    score = ReadScore()
    for scene in scenes:
        score_scene(scene, reader(scene), score)
    return score
