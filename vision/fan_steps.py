"""Index corners one fan step from the sure reads: where a hand's next card may lie.

A dealer fans a hand so that each card leaves the last one's index in sight, the
cards turned alike and laid about as far apart. A sure read and the nearest sure read
facing alike at its index scale, a fan step or two away, give that step: the index
one step beyond either of them, and halfway between them where they lie two steps
apart, is where a
card the finder and the proposer missed may lie (a small index of a tight fan, whose
glyphs the proposer's half-size frame runs together with the next card's). Each
such place is cut as a pair facing as the two reads do, moved onto its glyphs by the
learnt refiner and read as a second chance (`vision.second_chance`): a place where
no index lies is called no index and reports nothing; one read unsurely is an unknown
corner, as the proposer's are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vision.candidates import Candidates, given_pairs
from vision.networks import ModelError
from vision.proposer import SAME_CORNER_SCALES, away_from
from vision.reads import UNKNOWN_CARD, _Read
from vision.refiner import IndexRefiner

# Two reads of one fan face alike: their rank-to-pip directions at most this far apart.
MAX_TURN_DEGREES = 20.0
# ... and are read at about one index scale (the larger at most this much the larger).
MAX_SCALE_RATIO = 1.25
# A fan step, in index scales (rank-to-pip distances; a card is about 5.5 wide): from
# the tightest fan (a fifth of a card's width) to a dealer's cards laid side by side.
STEP_SCALES = (1.0, 6.5)
# Two reads at least this many index scales apart may have a missed card between them.
GAP_SCALES = 2.6


def fan_steps_setting(info: dict[str, Any], info_path: Path) -> bool:
    """Whether the settings read the places one fan step from the sure reads
    (`fan_steps`, off where absent); ModelError where it is not true or false."""
    on = info.get("fan_steps", False)
    if not isinstance(on, bool):
        raise ModelError(f"{info_path.name}: fan_steps {on!r} is not true or false")
    return on


def _alike(a: _Read, b: _Read) -> bool:
    turn_cos = a.down[0] * b.down[0] + a.down[1] * b.down[1]
    larger, smaller = max(a.scale, b.scale), min(a.scale, b.scale)
    return (turn_cos >= math.cos(math.radians(MAX_TURN_DEGREES))
            and larger <= MAX_SCALE_RATIO * smaller)


def _steps(a: _Read, b: _Read) -> float:
    """How far apart a and b lie, in their mean index scale."""
    return math.hypot(b.x - a.x, b.y - a.y) / ((a.scale + b.scale) / 2)


def _neighbours(sure: Sequence[_Read]) -> list[tuple[_Read, _Read]]:
    """Each read paired with its nearest read of the same fan a fan step away (each
    pair once, in the order of the reads): the next card of its fan, not one further on
    or of another hand."""
    chosen: set[tuple[int, int]] = set()
    for i, a in enumerate(sure):
        nearest: tuple[float, int] | None = None
        for j, b in enumerate(sure):
            if j == i or not _alike(a, b):
                continue
            steps = _steps(a, b)
            if STEP_SCALES[0] <= steps <= STEP_SCALES[1] and (nearest is None
                                                              or steps < nearest[0]):
                nearest = (steps, j)
        if nearest is not None:
            chosen.add((min(i, nearest[1]), max(i, nearest[1])))
    return [(sure[i], sure[j]) for i, j in sorted(chosen)]


def _places_of(a: _Read, b: _Read) -> list[tuple[np.ndarray, np.ndarray]]:
    """(midpoint, rank-to-pip vector) of the places one step beyond a and b, and
    halfway between them where they lie a gap apart."""
    scale = (a.scale + b.scale) / 2
    step = np.array([b.x - a.x, b.y - a.y])
    steps = _steps(a, b)
    down = np.array(a.down) + np.array(b.down)
    down *= scale / max(float(np.hypot(*down)), 1e-6)
    at_a, at_b = np.array([a.x, a.y]), np.array([b.x, b.y])
    places = [at_b + step, at_a - step]
    if steps >= GAP_SCALES:
        places.append(at_a + step / 2)
    return [(place, down) for place in places]


def fan_step_pairs(reads: Sequence[_Read], width: int, height: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(rank centres, pip centres) of the places one fan step from the sure `reads`
    inside a `width` x `height` frame, each farther than `SAME_CORNER_SCALES` index
    scales (a corner's reach, as the proposer's) from every read, sure or unsure, and
    from every other place."""
    sure = [r for r in reads if r.card != UNKNOWN_CARD]
    taken = [(r.x, r.y, SAME_CORNER_SCALES * r.scale) for r in reads]
    ranks: list[np.ndarray] = []
    pips: list[np.ndarray] = []
    for a, b in _neighbours(sure):
        for place, down in _places_of(a, b):
            x, y = float(place[0]), float(place[1])
            if not (0 <= x < width and 0 <= y < height):
                continue
            if any(math.hypot(x - tx, y - ty) <= reach for tx, ty, reach in taken):
                continue
            taken.append((x, y, SAME_CORNER_SCALES * float(np.hypot(*down))))
            ranks.append(place - down / 2)
            pips.append(place + down / 2)
    if not ranks:
        return np.zeros((0, 2), np.float32), np.zeros((0, 2), np.float32)
    return np.array(ranks, np.float32), np.array(pips, np.float32)


def fan_step_candidates(frame: np.ndarray, reads: list[_Read], refiner: IndexRefiner
                        ) -> Candidates:
    """The places one fan step from the sure `reads`, moved onto their glyphs by
    `refiner`, as pairs to read; a place the refiner moved onto a sure read's corner is
    left out."""
    ranks, pips = fan_step_pairs(reads, frame.shape[1], frame.shape[0])
    if len(ranks):
        sure = [r for r in reads if r.card != UNKNOWN_CARD]
        ranks, pips = away_from(*refiner.refine(frame, ranks, pips), sure)
    return given_pairs(ranks, pips)
