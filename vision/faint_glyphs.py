"""Look again, after the first reads, for index glyphs the candidate finder missed.

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
    no glyph of a sure read, near the frame's index scale (see the module's notes)."""
    sure = [r for r in reads if r.card != UNKNOWN_CARD]
    free = np.ones(found.centres.shape[0], bool)
    if sure and free.size:
        free = _distance_to_nearest(found.centres, _glyph_centres(sure)) > SAME_GLYPH_PX
    joined = Blobs(np.concatenate([found.centres[free], added.centres]),
                   np.concatenate([found.sizes[free], added.sizes]),
                   np.concatenate([found.boxes[free], added.boxes]))
    i, j, forward, backward = pair_indices(joined)
    keep = j >= int(free.sum())  # i < j: the pair has an added blob
    if sure:
        scale = float(np.median([r.scale for r in sure]))
        gap = joined.centres[j] - joined.centres[i]
        distance = np.hypot(gap[:, 0], gap[:, 1])
        keep &= (distance >= SCALE_BAND[0] * scale) & (distance <= SCALE_BAND[1] * scale)
    return Candidates(joined.centres[i[keep]], joined.centres[j[keep]], forward[keep],
                      backward[keep])


def _glyph_centres(reads: Sequence[_Read]) -> np.ndarray:
    """(2n, 2): the rank-glyph and suit-pip centres the reads were cut at."""
    middle = np.array([(r.x, r.y) for r in reads], np.float32)
    half = np.array([r.down for r in reads], np.float32) * np.array(
        [r.scale for r in reads], np.float32)[:, None] / 2.0
    return np.concatenate([middle - half, middle + half])


def _distance_to_nearest(points: np.ndarray, others: np.ndarray) -> np.ndarray:
    gap = points[:, None, :] - others[None, :, :]
    distance: np.ndarray = np.hypot(gap[..., 0], gap[..., 1]).min(axis=1)
    return distance
