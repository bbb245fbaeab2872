"""The pips on a card's face, counted between its two index corners.

A number card's rank is the number of pips on its face, however the design
draws its numerals: an ace shows one, a nine nine. Where both index corners of
a card are read (the top card of a hand shows its whole face), the pips
between them are counted, and a read of an ace to a nine whose rank is two or
more off that count is not taken (`face_check`): an index misread as another
rank (a "3" of an unfamiliar face read as "5"; a corner printed upright where
other decks turn it round, its "9" read as "6") does not get past the face.

The count is given only where it can be trusted: the whole face is paper, red
or black print (no chip, arm or coloured artwork over it), nothing reaches
into it from beyond the card's edge, every blob on it is a pip of one size,
and the pips lie as every standard layout lays them, each with a partner half
a turn round the face's middle (a seven's odd pip aside, on the middle line).
A court card's picture, a ten's crowded pips (which blur runs together) and a
single pip (an ace's, or that of a design printing one large pip on every
card) decide nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.reads import FACE_DISAGREES, UNKNOWN_CARD, _Read, facing_apart

# Where the other corner's index must lie, in index scales along the first corner's
# right and down, for the two to be one card's corners (a large index makes a card few
# index scales wide: the largest font-drawn ones put it 2.2 across and 2.6 down).
SPAN_ACROSS = (1.6, 7.5)
SPAN_DOWN = (2.3, 10.0)
# The face is cut this far beyond the two index points (index scales): past the card's
# edge, so that what lies beyond it can be told from what lies on it.
MARGIN_ACROSS = 0.9
MARGIN_DOWN = 1.8
# Pixels an index scale in the cut: the frame's own, within these bounds.
MIN_PX, MAX_PX = 12.0, 28.0
# Ink: this many levels darker (darkest channel) than the mean of 2 index scales around.
INK_MARGIN = 25
# The share of the face that must be paper or red or black print.
PRINTED_SHARE = 0.95
# An index glyph pair's zone around each of the face's four corner points (index
# scales either way): other decks print four indices, and an index's pip may touch
# the nearest centre pip.
INDEX_ACROSS, INDEX_DOWN = 0.45, 0.95
# A pip of one size with the others: within this factor of their median area, this
# much of its box filled, no longer than this many times its width.
PIP_SIZE = (0.5, 2.0)
PIP_FILL = 0.35
PIP_ASPECT = 1.6
# Pips too small to count surely: a median under this many frame pixels or index scales
# squared (a face whose centre pips are smaller than its index's pip; two pips blurred
# into one are no longer than 1.6 widths only where they are that small).
MIN_PIP_PIXELS = 30.0
MIN_PIP_AREA = 0.1
# A pip's partner half a turn round the face's middle lies this near (index scales).
PARTNER = 0.4
# A read of an ace to a nine this far from the count is not taken.
RANK_GAP = 2
# The settings' `face_pips` rules: the check made, or not.
FACE_PIPS_RULES = ("check", "off")
NUMBER_RANKS = {"A": 1, **{str(value): value for value in range(2, 10)}}


@dataclass(frozen=True)
class FacePips:
    """The pips counted on one card's face; `reason` says why the count is not to be
    trusted ("" where it is)."""

    count: int
    reason: str = ""


def count_face_pips(frame: np.ndarray, one: _Read, other: _Read) -> FacePips | None:
    """The pips on the face between two reads, whichever is the card's first corner, or
    None where they do not lie as one card's two corners."""
    return _count_from(frame, one, other) or _count_from(frame, other, one)


def _count_from(frame: np.ndarray, corner: _Read, other: _Read) -> FacePips | None:
    """The pips on the face between `corner` and `other`, or None where `other` does not
    lie where `corner`'s card has its other index."""
    span = _span(corner, other)
    if span is None:
        return None
    across, down = span
    scale = corner.scale
    down_x, down_y = corner.down
    right_x, right_y = down_y, -down_x  # the card's right, as the crops are cut
    px = min(max(scale, MIN_PX), MAX_PX)
    x0, y0 = -MARGIN_ACROSS, -MARGIN_DOWN
    width = round((across + 2 * MARGIN_ACROSS) * px)
    height = round((down + 2 * MARGIN_DOWN) * px)
    step = scale / px
    cut_to_frame = np.array(
        [[right_x * step, down_x * step, corner.x + scale * (x0 * right_x + y0 * down_x)],
         [right_y * step, down_y * step, corner.y + scale * (x0 * right_y + y0 * down_y)]],
        np.float32)
    face = cv2.warpAffine(frame, cut_to_frame, (width, height),
                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)

    def at(x: float, y: float) -> tuple[int, int]:  # index scales -> cut pixels
        return int((x - x0) * px), int((y - y0) * px)

    channels = cv2.split(face)
    brightest_levels = cv2.max(cv2.max(channels[0], channels[1]), channels[2])
    # The paper's level: the brightest tenth of the cut is paper.
    share_at_most = np.cumsum(np.bincount(brightest_levels.ravel(), minlength=256))
    paper_level = float(np.searchsorted(share_at_most, 0.9 * share_at_most[-1]))
    blue, green, red = (channel.astype(np.float32) for channel in channels)
    darkest = cv2.min(cv2.min(blue, green), red)
    brightest = brightest_levels.astype(np.float32)
    spread = brightest - darkest
    # Paper is bright and grey; red print redder than its green and blue, which are
    # alike (not orange, not purple); black print grey and darker than the paper.
    paper = (spread < 45) & (brightest > 0.55 * paper_level)
    red_print = (red - np.maximum(green, blue) > 40) & (np.abs(green - blue) < 0.35 * red + 10)
    black_print = (spread < 60) & (brightest < 0.7 * paper_level)
    (left, top), (right, bottom) = at(0.0, -0.8), at(across, down + 0.8)
    printed = (paper | red_print | black_print)[top:bottom, left:right]
    if printed.size == 0 or printed.mean() < PRINTED_SHARE:
        return FacePips(0, "not all print")
    block = int(2 * px) | 1
    ink = ((darkest < cv2.blur(darkest, (block, block)) - INK_MARGIN)
           | (brightest < 0.45 * paper_level)).astype(np.uint8)
    for point_x, point_y in ((0.0, 0.0), (across, down), (across, 0.0), (0.0, down)):
        cv2.rectangle(ink, at(point_x - INDEX_ACROSS, point_y - INDEX_DOWN),
                      at(point_x + INDEX_ACROSS, point_y + INDEX_DOWN), 0, -1)
    return _pips_of(ink, px, scale, across, down, (x0, y0))


def _span(corner: _Read, other: _Read) -> tuple[float, float] | None:
    """Where `other` lies from `corner` in index scales along the card's right and down,
    or None where that is not where `corner`'s card has its other index."""
    down_x, down_y = corner.down
    off_x, off_y = other.x - corner.x, other.y - corner.y
    across = (off_x * down_y - off_y * down_x) / corner.scale
    down = (off_x * down_x + off_y * down_y) / corner.scale
    if SPAN_ACROSS[0] <= across <= SPAN_ACROSS[1] and SPAN_DOWN[0] <= down <= SPAN_DOWN[1]:
        return across, down
    return None


def _pips_of(ink: np.ndarray, px: float, scale: float, across: float, down: float,
             origin: tuple[float, float]) -> FacePips:
    """The pips among the ink blobs of a face cut at `px` pixels an index scale."""
    x0, y0 = origin
    height, width = ink.shape
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    inner = labels[int((-0.5 - y0) * px):int((down + 0.5 - y0) * px),
                   int((0.3 - x0) * px):int((across - 0.3 - x0) * px)]
    inside = np.bincount(inner.ravel(), minlength=count)
    smallest = max(0.05, 12.0 / scale ** 2)
    blobs = []  # area (index scales squared), box fill, aspect, x, y
    for k in range(1, count):
        left, top, box_w, box_h, pixels = (int(value) for value in stats[k])
        if left == 0 or top == 0 or left + box_w >= width or top + box_h >= height:
            # Beyond the card's edge (felt, another card); reaching into the face, a
            # chip, a sleeve or another card lies over it.
            if inside[k] > 0.1 * px ** 2:
                return FacePips(0, "something over the face")
            continue
        # The box's middle, not the ink's: a heart's ink lies high, and a turned heart's low.
        x, y = (left + box_w / 2) / px + x0, (top + box_h / 2) / px + y0
        area = pixels / px ** 2
        if 0.3 <= x <= across - 0.3 and -1.2 <= y <= down + 1.2 and area >= smallest:
            blobs.append((area, pixels / (box_w * box_h), max(box_w, box_h) / min(box_w, box_h),
                          x, y))
    if not blobs:
        return FacePips(0, "no pips")
    median = float(np.median([blob[0] for blob in blobs]))
    if median * scale ** 2 < MIN_PIP_PIXELS or median < MIN_PIP_AREA:
        return FacePips(0, "pips too small")
    pips = [(x, y) for area, fill, aspect, x, y in blobs
            if PIP_SIZE[0] * median <= area <= PIP_SIZE[1] * median
            and fill >= PIP_FILL and aspect <= PIP_ASPECT]
    if len(pips) != len(blobs):
        return FacePips(len(pips), "print that is no pip")
    unpaired = 0
    for x, y in pips:
        turned_x, turned_y = across - x, down - y
        if not any(abs(px_ - turned_x) < PARTNER and abs(py_ - turned_y) < PARTNER
                   for px_, py_ in pips):
            unpaired += 1 if abs(x - across / 2) < PARTNER else 2
    if unpaired > 1:
        return FacePips(len(pips), "pips out of a standard layout")
    if len(pips) < 2:
        # An ace's, or a design's that prints one large pip on every card.
        return FacePips(len(pips), "one pip")
    return FacePips(len(pips))


def face_check(frame: np.ndarray, reads: list[_Read]) -> tuple[list[_Read], list[_Read]]:
    """The reads a card's face does not gainsay, and those it does as unknown corners.

    Each two reads of one suit facing opposite ways that lie as one card's two corners,
    one of them an ace to a nine, have the pips between them counted; a read of an ace
    to a nine `RANK_GAP` or more off a count that can be trusted becomes an unknown
    corner (`FACE_DISAGREES`). One face is counted once, however many blob pairs read
    its corners.
    """
    gainsaid: set[int] = set()
    counted: list[tuple[_Read, _Read, FacePips | None]] = []
    for k, first in enumerate(reads):
        for second in reads[k + 1:]:
            if (first.card[-1] != second.card[-1] or not facing_apart(first, second)
                    or not {first.card[:-1], second.card[:-1]} & NUMBER_RANKS.keys()):
                continue  # a card shows one suit at both corners; a court or ten gives way
            face = _face_between(frame, first, second, counted)
            if face is not None and not face.reason:
                gainsaid.update(id(read) for read in (first, second)
                                if _off_count(read.card, face.count))
    kept = [read for read in reads if id(read) not in gainsaid]
    unknown = [replace(read, card=UNKNOWN_CARD, reason=FACE_DISAGREES)
               for read in reads if id(read) in gainsaid]
    return kept, unknown


def _face_between(frame: np.ndarray, first: _Read, second: _Read,
                  counted: list[tuple[_Read, _Read, FacePips | None]]) -> FacePips | None:
    """The pips between two corners (either may be the card's first), counted once for
    all the reads of those two index corners (`counted` keeps the counts made)."""
    if _span(first, second) is None and _span(second, first) is None:
        return None
    for one, other, face in counted:
        if ((_near(one, first) and _near(other, second))
                or (_near(one, second) and _near(other, first))):
            return face
    face = count_face_pips(frame, first, second)
    counted.append((first, second, face))
    return face


def _near(read: _Read, other: _Read) -> bool:
    """Whether two reads lie on one index corner (a quarter of an index scale apart)."""
    return abs(read.x - other.x) + abs(read.y - other.y) < 0.25 * max(read.scale, other.scale)


def _off_count(card: str, pips: int) -> bool:
    value = NUMBER_RANKS.get(card[:-1])
    return value is not None and abs(pips - value) >= RANK_GAP
