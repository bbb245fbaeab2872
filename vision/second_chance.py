"""Second chances: the unsure corners moved onto their glyphs and read again.

A corner the networks call an index but read unsurely was often cut a little off its
glyphs: the finder's blob centres lie off a rank that runs into a frame line or the
next card's edge. The learnt refiner (`vision.refiner`) moves the cut onto the glyphs
and the same networks read it again; a read sure to `second_chance_confidence` takes
the unsure corner's place. The proposer's pairs (`vision.proposer`) are a second
chance too and need the same confidence.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from vision.candidates import Candidates, given_pairs
from vision.networks import ModelError
from vision.proposer import SAME_CORNER_SCALES
from vision.reads import UNKNOWN_CARD, _Read
from vision.refiner import IndexRefiner


def second_chance_settings(info: dict[str, Any], info_path: Path, min_confidence: float
                           ) -> tuple[float, bool]:
    """(the confidence a second-chance read needs, whether unsure corners are read
    again) from the settings `info`: never less than `min_confidence`; ModelError for
    a value that is not a probability or a yes/no."""
    bar = info.get("second_chance_confidence", min_confidence)
    if isinstance(bar, bool) or not isinstance(bar, (int, float)) or not 0.0 < bar <= 1.0:
        raise ModelError(f"{info_path.name}: second_chance_confidence {bar!r} is not a "
                         "probability above 0 and at most 1")
    again = info.get("refine_unsure", False)
    if not isinstance(again, bool):
        raise ModelError(f"{info_path.name}: refine_unsure {again!r} must be true or false")
    return max(float(bar), min_confidence), again


def reread_unsure(frame: np.ndarray, reads: list[_Read], refiner: IndexRefiner,
                  read_pairs: Callable[[Candidates], list[_Read]]) -> list[_Read]:
    """`reads` with each unsure corner refined and read again by `read_pairs` (which
    applies the second-chance confidence): a sure read there replaces it."""
    unsure = [r for r in reads if r.card == UNKNOWN_CARD]
    if not unsure:
        return reads
    mid = np.array([(r.x, r.y) for r in unsure], np.float32)
    down = np.array([(r.down[0] * r.scale, r.down[1] * r.scale) for r in unsure], np.float32)
    ranks, pips = refiner.refine(frame, mid - down / 2, mid + down / 2)
    again = [r for r in read_pairs(given_pairs(ranks, pips)) if r.card != UNKNOWN_CARD]
    if not again:
        return reads
    replaced = {id(u) for u in unsure for a in again
                if math.hypot(a.x - u.x, a.y - u.y) <= SAME_CORNER_SCALES * u.scale}
    return [r for r in reads if id(r) not in replaced] + again
