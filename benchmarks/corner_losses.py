"""Where the visible cards a frame did not read were lost, each by the first reason that holds.

A card counts as read where a read of its code lies within the match radius
(`MATCH_RADIUS` card widths) of one of its visible index corners. For a card
not read, in this order:

1. `READ_WRONG`: a read at one of its corners names another card;
2. `UNKNOWN`: an unknown corner is reported there;
3. a candidate pair the networks accepted, before merging, lies there
   (`Recognizer.read_candidates(frame, keep_unsure=True)`):
   reading the card (`LOST_IN_MERGING`: the merging rules dropped it), reading
   it unsurely (`UNSURE_NOT_REPORTED`: left out of the unknown corners, taken for
   a corner of a card already read), or reading another card
   (`OTHER_CARD_DROPPED`);
4. `NOT_AN_INDEX`: a candidate pair's midpoint lies within `PROPOSED_REACH`
   card widths of a corner (the finder proposed it; the networks called it
   not an index);
5. `NOT_PROPOSED`: none does.

Given the true glyph centres of each corner and a reader of pairs, a card lost
by the finder (4 or 5) is also counted under `READ_WHEN_CUT_TRUE` when the
networks read it right from a pair cut at its true rank and pip: what a finder
that proposed the right pair would add.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

READ_WRONG = "read as another card"
UNKNOWN = "reported unknown"
LOST_IN_MERGING = "read right by a pair, lost in merging"
UNSURE_NOT_REPORTED = "unsure pair, not reported"
OTHER_CARD_DROPPED = "another card read by a pair, dropped"
NOT_AN_INDEX = "proposed, called not an index"
NOT_PROPOSED = "no pair proposed"
REASONS = (READ_WRONG, UNKNOWN, LOST_IN_MERGING, UNSURE_NOT_REPORTED, OTHER_CARD_DROPPED,
           NOT_AN_INDEX, NOT_PROPOSED)
READ_WHEN_CUT_TRUE = "of the finder's losses, read right from a pair cut at the true glyphs"
UNKNOWN_CODE = "??"
# A pair "proposed for" a corner: its midpoint this near (card widths), as the
# benchmark counts the candidates proposed.
PROPOSED_REACH = 0.12

Point = tuple[float, float]
Truth = Sequence[tuple[str, str, Sequence[Point]]]  # card, box, visible corners
GlyphPairs = Sequence[tuple[Point, Point]]  # per visible corner: rank centre, pip centre


def corner_losses(truth: Truth, card_width: float, match_radius: float,
                  reads: Sequence[Any], unknowns: Sequence[Any],
                  candidates: Sequence[Any], pair_midpoints: np.ndarray,
                  glyphs: Sequence[GlyphPairs] = (),
                  read_pairs: Callable[[GlyphPairs], Sequence[str]] | None = None
                  ) -> Counter[str]:
    """The reason each visible card not read was lost (`REASONS`), counted.

    `reads`, `unknowns` and `candidates` have `card`, `x` and `y` (the index's
    rank-suit midpoint); `pair_midpoints` is (n, 2), the finder's pairs. With
    `glyphs` (aligned with `truth`) and `read_pairs` (the cards the networks read
    from pairs cut at the given centres), `READ_WHEN_CUT_TRUE` counts too."""
    radius = match_radius * card_width
    reach = PROPOSED_REACH * card_width
    lost: Counter[str] = Counter()
    for k, (card, _box, corners) in enumerate(truth):
        if not corners:
            continue
        def near(found: Sequence[Any], corners: Sequence[tuple[float, float]] = corners
                 ) -> list[Any]:
            return [f for f in found if min(math.dist((f.x, f.y), c) for c in corners) <= radius]
        at_corner = near(reads)
        if any(r.card == card for r in at_corner):
            continue
        pairs = near(candidates)
        if at_corner:
            reason = READ_WRONG
        elif near(unknowns):
            reason = UNKNOWN
        elif any(p.card == card for p in pairs):
            reason = LOST_IN_MERGING
        elif any(p.card == UNKNOWN_CODE for p in pairs):
            reason = UNSURE_NOT_REPORTED
        elif pairs:
            reason = OTHER_CARD_DROPPED
        elif proposed_at(pair_midpoints, corners, reach):
            reason = NOT_AN_INDEX
        else:
            reason = NOT_PROPOSED
        lost[reason] += 1
        if (reason in (NOT_AN_INDEX, NOT_PROPOSED) and read_pairs is not None
                and k < len(glyphs) and glyphs[k] and card in read_pairs(glyphs[k])):
            lost[READ_WHEN_CUT_TRUE] += 1
    return lost


def proposed_at(midpoints: np.ndarray, corners: Sequence[tuple[float, float]],
                reach: float) -> bool:
    """Whether a pair's midpoint lies within `reach` pixels of one of `corners`."""
    if midpoints.shape[0] == 0:
        return False
    return any(float(np.min(np.hypot(midpoints[:, 0] - x, midpoints[:, 1] - y))) <= reach
               for x, y in corners)


def losses_line(lost: Counter[str]) -> str:
    """`lost` in `REASONS` order, e.g. "reported unknown 12, no pair proposed 2"."""
    return ", ".join(f"{reason} {lost[reason]}" for reason in REASONS if lost[reason]) or "none"
