"""Look again, after the first reads, for index corners the candidate finder missed.

Most index corners of real designs that the finder loses have no blob at the
rank glyph: a rank no darker than the ink margin around it, or one joined to a
frame line, to the next card's edge or to the felt. Two more ink passes find
many of them:

1. a faint pass: ink only `FAINT_INK_OFFSET` levels darker than its block's mean
   (the finder's loose pass asks for 22);
2. a medium pass: ink `MEDIUM_INK_OFFSET` levels darker (the strict pass asks for
   55), which frees a glyph from a line the loose pass joins it to.

Both run at half the frame's size (a quarter of the pixels to label), and a
blob of theirs counts only where no blob found before covers its centre. Run
over every pair of the frame they would nearly double the pairs to read (the
ornaments of court cards give many faint blobs), so they are paired only once
the finder's own pairs are read, and only:

- with each other, or with the finder's blobs that are not a glyph of a card
  already read surely;
- at a rank-to-pip distance within `SCALE_BAND` of the frame's index scale (the
  median over the sure reads): every index of one deck in one frame is about
  the same size, give or take the camera's tilt.

Where no read lies (`AWAY_FROM_READS`), two more kinds of pair are tried:

- pairs a little outside the finder's limits (`LOOSE_MIN_RATIO`,
  `LOOSE_MAX_GAP`): a rank glyph of which only the core came out as a blob;
- a blob that is a rank and its pip run together by blur (`MERGED_LENGTH`
  index scales long, `MERGED_ELONGATION` times as long as wide), cut into
  its two halves along its long axis (`merged_pairs`).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.candidates import (
    MIN_WHITE_RING,
    Blobs,
    Candidates,
    CardStock,
    glyph_components,
    not_covered,
    pair_indices,
    pair_orders,
)
from vision.reads import UNKNOWN_CARD, _Read

FAINT_INK_OFFSET = 12
MEDIUM_INK_OFFSET = 38
HALF = 2  # the passes run at 1/HALF of the frame's size
HALF_INK_BLOCK_PX = 9  # the finder's small block (17 px), halved and kept odd
# A read's rank-to-pip distance over the frame's median, for 98% of the sure reads of
# the training decks' scenes (1st to 99th percentile: 0.69 to 1.36).
SCALE_BAND = (0.65, 1.45)
# A finder blob this near (pixels) a sure read's glyph centre is that glyph.
SAME_GLYPH_PX = 1.0
# Looser pair limits than the finder's (`pair_blobs`: rank at least 0.7 of its pip,
# at most 2.0 blob sizes apart), for corners where nothing was read: a rank glyph of
# which only the core came out as a blob is small and far from its pip's centre.
LOOSE_MIN_RATIO = 0.5
LOOSE_MAX_GAP = 2.6
# A loose pair counts only where no read, sure or unsure, lies within this many index
# scales of its midpoint: another cut of a corner already read only adds misreads.
AWAY_FROM_READS = 0.8
# A rank and its pip run together: a blob this many index scales long, whose ink is at
# least this many times as long (its second moment's axes) as it is wide.
MERGED_LENGTH = (1.4, 2.2)
MERGED_ELONGATION = 2.5


def pairs_after_reads(stock: CardStock, found: Blobs, reads: Sequence[_Read]) -> Candidates:
    """Every pair this module adds to the finder's `found` blobs, given the `reads` of
    the finder's pairs: `pairs_beside_reads` of the faint blobs, then `merged_pairs`."""
    added = faint_blobs(stock, found)
    return joined_candidates(pairs_beside_reads(found, added, reads),
                             merged_pairs(stock.darkest, found, added, reads))


def faint_blobs(stock: CardStock, found: Blobs) -> Blobs:
    """The blobs of the faint and the medium pass that no blob in `found` (nor an
    earlier one of these passes) covers, on card stock."""
    size = (stock.darkest.shape[1] // HALF, stock.darkest.shape[0] // HALF)
    darkest = cv2.resize(stock.darkest, size, interpolation=cv2.INTER_AREA)
    _, near_card = cv2.threshold(cv2.resize(stock.near_card, size, interpolation=cv2.INTER_AREA),
                                 127, 255, cv2.THRESH_BINARY)
    mean = cv2.blur(darkest, (HALF_INK_BLOCK_PX, HALF_INK_BLOCK_PX),
                    borderType=cv2.BORDER_REPLICATE)
    # Lifted to white away from card stock, no pixel there is darker than the mean.
    faint = cv2.compare(cv2.max(cv2.add(darkest, FAINT_INK_OFFSET),  # type: ignore[call-overload]
                                cv2.bitwise_not(near_card)), mean, cv2.CMP_LT)
    medium = cv2.bitwise_and(cv2.compare(cv2.add(darkest, MEDIUM_INK_OFFSET),  # type: ignore[call-overload]
                                         mean, cv2.CMP_LT), near_card)
    covering = found.boxes
    added: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for mask in (faint, medium):
        boxes, longest, centres = glyph_components(mask, scale=HALF)
        on_card = stock.ring_fraction(boxes) >= MIN_WHITE_RING
        boxes, longest, centres = boxes[on_card], longest[on_card], centres[on_card]
        # A blob of the earlier finder split in two here is not new: on designs never
        # trained on, the halves read as other cards.
        new = not_covered(centres, covering, split=False)
        added.append((boxes[new], longest[new], centres[new]))
        covering = np.concatenate([covering, boxes[new]])
    return Blobs(np.concatenate([c for _, _, c in added]).astype(np.float32).reshape(-1, 2),
                 np.concatenate([s for _, s, _ in added]).astype(np.float32),
                 np.concatenate([b for b, _, _ in added]).astype(np.int32).reshape(-1, 4))


def pairs_beside_reads(found: Blobs, added: Blobs, reads: Sequence[_Read]) -> Candidates:
    """Pairs of `added` blobs with each other and with the blobs of `found` that are
    no glyph of a sure read, near the frame's index scale; and, away from every read,
    pairs a little outside the finder's limits (see the module's notes)."""
    sure = [r for r in reads if r.card != UNKNOWN_CARD]
    free = np.ones(found.centres.shape[0], bool)
    if sure and free.size:
        free = _distance_to_nearest(found.centres, _glyph_centres(sure)) > SAME_GLYPH_PX
    joined = Blobs(np.concatenate([found.centres[free], added.centres]),
                   np.concatenate([found.sizes[free], added.sizes]),
                   np.concatenate([found.boxes[free], added.boxes]))
    if not sure:
        i, j, forward, backward = pair_indices(joined)
        keep = j >= int(free.sum())  # i < j: the pair has an added blob
        return Candidates(joined.centres[i[keep]], joined.centres[j[keep]], forward[keep],
                          backward[keep])
    scale = _index_scale(sure)
    i, j, loose_forward, loose_backward = pair_indices(joined, max_gap=LOOSE_MAX_GAP,
                                                       min_ratio=LOOSE_MIN_RATIO)
    gap = joined.centres[j] - joined.centres[i]
    distance = np.hypot(gap[:, 0], gap[:, 1])
    in_band = (distance >= SCALE_BAND[0] * scale) & (distance <= SCALE_BAND[1] * scale)
    forward, backward = pair_orders(joined, i, j)  # within the finder's own limits
    has_added = j >= int(free.sum())  # i < j
    # Two finder blobs were paired within the finder's limits before: only the orders
    # outside them are new.
    loose = np.flatnonzero(in_band & ((loose_forward & ~forward) | (loose_backward & ~backward)))
    away = np.zeros(i.size, bool)
    middles = (joined.centres[i[loose]] + joined.centres[j[loose]]) / 2
    away[loose] = _distance_to_nearest(middles, _places(reads)) > AWAY_FROM_READS * scale
    forward, backward = ((forward & has_added) | (loose_forward & ~forward & away),
                         (backward & has_added) | (loose_backward & ~backward & away))
    keep = (forward | backward) & in_band
    return Candidates(joined.centres[i[keep]], joined.centres[j[keep]], forward[keep],
                      backward[keep])


def merged_pairs(darkest: np.ndarray, found: Blobs, added: Blobs,
                 reads: Sequence[_Read]) -> Candidates:
    """Blobs of `found` and `added` that may be a rank glyph and its pip run together,
    each cut into two halves one index scale apart along its long axis (in both
    orders): blobs that are no glyph of a sure read, lie away from every read, are
    `MERGED_LENGTH` long and `MERGED_ELONGATION` times as long as wide."""
    sure = [r for r in reads if r.card != UNKNOWN_CARD]
    centres = np.concatenate([found.centres, added.centres])
    if not sure or centres.shape[0] == 0:
        return _no_pairs()
    sizes = np.concatenate([found.sizes, added.sizes])
    boxes = np.concatenate([found.boxes, added.boxes])
    scale = _index_scale(sure)
    long_enough = np.flatnonzero((sizes >= MERGED_LENGTH[0] * scale)
                                 & (sizes <= MERGED_LENGTH[1] * scale))
    read_at = _places(reads)
    worth_cutting = long_enough[
        (_distance_to_nearest(centres[long_enough], _glyph_centres(sure)) > SAME_GLYPH_PX)
        & (_distance_to_nearest(centres[long_enough], read_at) > AWAY_FROM_READS * scale)]
    halves = [_halves(darkest, boxes[k], 0.5 * scale) for k in worth_cutting]
    cut = [h for h in halves if h is not None]
    if not cut:
        return _no_pairs()
    first = np.array([a for a, _ in cut], np.float32)
    second = np.array([b for _, b in cut], np.float32)
    both = np.ones(len(cut), bool)
    return Candidates(first, second, both, both.copy())


def _halves(darkest: np.ndarray, box: np.ndarray, half: float
            ) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """The two points `half` px either side of the ink's centre along its long axis,
    where the ink (Otsu's threshold within the box) is `MERGED_ELONGATION` times as
    long as wide; else None."""
    x, y, w, h = (int(v) for v in box)
    patch = darkest[max(y, 0):y + h, max(x, 0):x + w]
    if patch.size < 8:
        return None
    _, ink = cv2.threshold(patch, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    moments = cv2.moments(ink, binaryImage=True)
    if moments["m00"] < 8:
        return None
    mu20, mu02, mu11 = (moments[k] / moments["m00"] for k in ("mu20", "mu02", "mu11"))
    spread = float(np.sqrt((mu20 - mu02) ** 2 / 4 + mu11 ** 2))
    longest, shortest = (mu20 + mu02) / 2 + spread, (mu20 + mu02) / 2 - spread
    # Variances along the axes: the lengths' ratio squared.
    if shortest <= 0 or longest < MERGED_ELONGATION ** 2 * shortest:
        return None
    theta = 0.5 * float(np.arctan2(2 * mu11, mu20 - mu02))
    cx = max(x, 0) + moments["m10"] / moments["m00"]
    cy = max(y, 0) + moments["m01"] / moments["m00"]
    dx, dy = half * np.cos(theta), half * np.sin(theta)
    return (cx - dx, cy - dy), (cx + dx, cy + dy)


def joined_candidates(a: Candidates, b: Candidates) -> Candidates:
    """The pairs of `a`, then those of `b`."""
    return Candidates(np.concatenate([a.first, b.first]), np.concatenate([a.second, b.second]),
                      np.concatenate([a.forward, b.forward]),
                      np.concatenate([a.backward, b.backward]))


def _no_pairs() -> Candidates:
    none = np.zeros((0, 2), np.float32)
    return Candidates(none, none.copy(), np.zeros(0, bool), np.zeros(0, bool))


def _index_scale(sure: Sequence[_Read]) -> float:
    """The frame's index scale: the median rank-to-pip distance of its sure reads."""
    return float(np.median([r.scale for r in sure]))


def _places(reads: Sequence[_Read]) -> np.ndarray:
    """(n, 2): where the reads lie (their rank-pip midpoints)."""
    return np.array([(r.x, r.y) for r in reads], np.float32).reshape(-1, 2)


def _glyph_centres(reads: Sequence[_Read]) -> np.ndarray:
    """(2n, 2): the rank-glyph and suit-pip centres the reads were cut at."""
    middle = _places(reads)
    half = np.array([r.down for r in reads], np.float32) * np.array(
        [r.scale for r in reads], np.float32)[:, None] / 2.0
    return np.concatenate([middle - half, middle + half])


def _distance_to_nearest(points: np.ndarray, others: np.ndarray) -> np.ndarray:
    gap = points[:, None, :] - others[None, :, :]
    distance: np.ndarray = np.hypot(gap[..., 0], gap[..., 1]).min(axis=1)
    return distance
