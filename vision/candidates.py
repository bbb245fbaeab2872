"""Find candidate index corners: a glyph (the rank) with a glyph below it (the suit pip).

Works in any orientation: every pair of nearby ink blobs on card-white ground is
a candidate, in both orders; the classifier decides which pairs are a real
index (rank above suit) and rejects the rest (pips of a card's centre, face-card
artwork, chips, card backs, a reversed pair).

Ink is what is clearly darker than its neighbourhood in the minimum of the
three colour channels (red and black print both are dark there, white card
stock and glare are not), so uneven light and shadows do not matter. Print is
black or red: a pixel whose green and blue differ much (a blue, green, yellow,
orange or purple chip, coloured artwork or lines) is never ink, so a glyph
touching such a chip comes out as a blob of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

# Sizes in pixels for the frame sizes the table uses (card width 60-160 px).
MIN_GLYPH_PX = 5.0
MAX_GLYPH_PX = 40.0
# Ink is darker than the mean of a block around it. A small block keeps the thin,
# pale strokes of small indices (a 31 px block, used before, lost 5% of the index
# corners of real decks); a wide block still keeps large, bold glyphs whole.
INK_BLOCK_PX = 17
WIDE_INK_BLOCK_PX = 31
INK_OFFSET = 22
STRICT_INK_OFFSET = 55
MIN_WHITE_RING = 0.35
# A rank glyph may be up to this many times as large as its suit pip: a tall court
# letter over a small pip (some faces print the pip under half the rank's height).
MAX_RATIO = 3.0
# Card stock is at least this fraction of the brightest level nearby (about 40 px
# around): paper in a hand's shadow beside paper in full light still counts.
WHITE_OF_LOCAL_BRIGHT = 0.5
# Not ink where |green - blue| is over this fraction of the brightest channel (and
# over FOREIGN_MIN_SPREAD): black and red print have green and blue alike.
FOREIGN_SPREAD = 0.25
FOREIGN_MIN_SPREAD = 30
_CROSS = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
_NEAR = np.ones((15, 15), np.uint8)


@dataclass(frozen=True)
class Blobs:
    """Ink components that may be index glyphs (arrays, one row per blob)."""

    centres: np.ndarray  # (n, 2) float32, x y
    sizes: np.ndarray  # (n,) float32: longest side of the bounding box
    boxes: np.ndarray  # (n, 4) int32: x, y, w, h


@dataclass(frozen=True)
class Candidates:
    """Blob pairs, each unordered pair once, with the orders worth classifying.

    `forward[k]`: `first[k]` may be the rank glyph and `second[k]` the suit pip;
    `backward[k]`: the other way round.
    """

    first: np.ndarray  # (m, 2) float32 centres
    second: np.ndarray  # (m, 2) float32 centres
    forward: np.ndarray  # (m,) bool
    backward: np.ndarray  # (m,) bool

    def __len__(self) -> int:
        return int(self.first.shape[0])

    def ordered(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(pair index, reversed?, rank-glyph centre, suit-pip centre) of every order to try."""
        fwd = np.flatnonzero(self.forward)
        bwd = np.flatnonzero(self.backward)
        index = np.concatenate([fwd, bwd])
        reverse = np.concatenate([np.zeros(fwd.size, bool), np.ones(bwd.size, bool)])
        rank = np.concatenate([self.first[fwd], self.second[bwd]])
        suit = np.concatenate([self.second[fwd], self.first[bwd]])
        return index, reverse, rank, suit


def darkest_channel(frame: np.ndarray) -> np.ndarray:
    """Per pixel, the minimum of the B, G, R values."""
    if frame.ndim == 2:
        return frame
    blue, green, red = cv2.split(frame)
    return cv2.min(cv2.min(blue, green), red)


def ink_masks(darkest: np.ndarray, block: int = INK_BLOCK_PX) -> tuple[np.ndarray, np.ndarray]:
    """255 where the frame is darker than its surroundings (a `block` px square): loosely,
    and strictly.

    The loose mask keeps faint glyphs (shade, blur); the strict one drops the
    anti-aliased pixels that join a glyph printed close to a border line to it.
    """
    mean = _block_mean(darkest, block)
    return (_darker(cv2.add(darkest, INK_OFFSET), mean),  # type: ignore[call-overload]
            _darker(cv2.add(darkest, STRICT_INK_OFFSET), mean))  # type: ignore[call-overload]


def _block_mean(darkest: np.ndarray, block: int) -> np.ndarray:
    return cv2.blur(darkest, (block, block), borderType=cv2.BORDER_REPLICATE)


def _darker(lifted: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """255 where the frame, lifted by an offset, is still darker than the block mean."""
    return cv2.compare(lifted, mean, cv2.CMP_LT)


def _ink_passes(darkest: np.ndarray, near_card: np.ndarray, wide_block: bool = True
                ) -> list[tuple[np.ndarray, int]]:
    """The ink masks of `blobs_on`'s passes, limited to `near_card`, each with the pixels
    it was thinned by: the loose mask over the small block, over the wide block (where
    `wide_block`), then the strict mask thinned."""
    small_mean = _block_mean(darkest, INK_BLOCK_PX)
    # Lifted to white away from card stock, no pixel there is darker than a mean.
    lifted = cv2.max(cv2.add(darkest, INK_OFFSET),  # type: ignore[call-overload]
                     cv2.bitwise_not(near_card))
    strict = _darker(cv2.add(darkest, STRICT_INK_OFFSET),  # type: ignore[call-overload]
                     small_mean)
    wide = ([(_darker(lifted, _block_mean(darkest, WIDE_INK_BLOCK_PX)), 0)] if wide_block
            else [])
    return [(_darker(lifted, small_mean), 0), *wide,
            (cv2.bitwise_and(cv2.erode(strict, _CROSS), near_card), 1)]


def white_mask(frame: np.ndarray, darkest: np.ndarray,
               brightest: np.ndarray | None = None) -> np.ndarray:
    """255 where the frame looks like card stock: colourless, and bright for its area."""
    if brightest is None:
        blue, green, red = cv2.split(frame)
        brightest = cv2.max(cv2.max(blue, green), red)
    _, colourless = cv2.threshold(cv2.subtract(brightest, darkest), 59, 255,
                                  cv2.THRESH_BINARY_INV)
    # "Bright" relative to the brightest level nearby, so shade and glare do not matter.
    small = cv2.resize(darkest, None, fx=1 / 16, fy=1 / 16, interpolation=cv2.INTER_AREA)
    local_bright = cv2.dilate(small, np.ones((5, 5), np.uint8))
    local_bright = cv2.resize(local_bright, (frame.shape[1], frame.shape[0]),
                              interpolation=cv2.INTER_LINEAR)
    bright = cv2.compare(darkest, cv2.convertScaleAbs(local_bright, alpha=WHITE_OF_LOCAL_BRIGHT),
                         cv2.CMP_GT)
    return cv2.bitwise_and(colourless, bright)


def print_colour_mask(blue: np.ndarray, green: np.ndarray, brightest: np.ndarray) -> np.ndarray:
    """255 where the colour may be card print (black, grey, red, pink), 0 where it may not.

    Black and red ink (and their mixes with white paper) have green and blue
    alike; chips, artwork and coloured border lines do not.
    """
    spread = cv2.absdiff(green, blue)
    limit = cv2.max(cv2.convertScaleAbs(brightest, alpha=FOREIGN_SPREAD),  # type: ignore[call-overload]
                    FOREIGN_MIN_SPREAD)
    return cv2.compare(spread, limit, cv2.CMP_LE)  # type: ignore[call-overload,no-any-return]


@dataclass(frozen=True)
class CardStock:
    """What the finder's passes share: the frame's darkest channel, where card stock
    lies, and where ink may lie (near card stock, in a print colour)."""

    darkest: np.ndarray
    white: np.ndarray
    near_card: np.ndarray

    @cached_property
    def _white_integral(self) -> np.ndarray:
        return cv2.integral(self.white)  # type: ignore[no-any-return]

    def ring_fraction(self, boxes: np.ndarray) -> np.ndarray:
        """Fraction of card stock in a ring around each box (x, y, w, h) grown by a quarter
        of its size."""
        if boxes.shape[0] == 0:
            return np.zeros(0, np.float32)
        return _ring_fraction(self._white_integral, boxes[:, 0], boxes[:, 1], boxes[:, 2],
                              boxes[:, 3])


def card_stock(frame: np.ndarray) -> CardStock:
    """The darkest channel, card stock and where ink may lie, of a BGR frame."""
    blue, green, red = cv2.split(frame)
    darkest = cv2.min(cv2.min(blue, green), red)
    brightest = cv2.max(cv2.max(blue, green), red)
    white = white_mask(frame, darkest, brightest)
    # Ink counts only near card stock (felt texture and print make no components),
    # and only in the colours of print.
    near_card = cv2.bitwise_and(cv2.dilate(white, _NEAR),
                                print_colour_mask(blue, green, brightest))
    return CardStock(darkest, white, near_card)


@dataclass(frozen=True)
class FinderPasses:
    """Which of `blobs_on`'s later passes run, and how far.

    All on, the finder is as the networks' training examples were drawn with it. With
    the learnt proposer reading beside it, the wide block's pass found next to nothing
    the proposer did not, and the strict pass's blobs inside a blob of the first pass
    (its pieces, thinned apart) made more wrong reads than right ones (docs/vision-measurements.md,
    "The lean finder"): `LEAN_PASSES` leaves both out.
    """

    wide_block: bool = True  # pass 2
    strict_splits: bool = True  # pass 3 adds the pieces of an earlier blob holding two


ALL_PASSES = FinderPasses()
LEAN_PASSES = FinderPasses(wide_block=False, strict_splits=False)


def find_blobs(frame: np.ndarray) -> Blobs:
    """Ink blobs of glyph size lying on card-white ground (`blobs_on` the frame's stock)."""
    return blobs_on(card_stock(frame))


def blobs_on(stock: CardStock, passes: FinderPasses = ALL_PASSES) -> Blobs:
    """Ink blobs of glyph size lying on card-white ground.

    Pixels not of a print colour (`print_colour_mask`) are never ink. Up to three
    passes (`passes` says which), each adding the blobs the earlier ones missed:

    1. the loose ink mask over a small block (thin and pale strokes);
    2. the loose ink mask over a wide block (large bold glyphs, whose middle a
       small block's mean takes for background);
    3. the strict mask over the small block, thinned by a pixel (a glyph printed
       touching a border line comes free of it).

    A later pass's blob is added where no earlier blob covers its centre, or
    (pass 2 always, pass 3 with `passes.strict_splits`) where the earlier blob
    covering it holds two or more of the pass's blobs: a rank and its pip that
    blur ran together into one.
    """
    masks = _ink_passes(stock.darkest, stock.near_card, passes.wide_block)
    splits = [True] * (len(masks) - 2) + [passes.strict_splits]
    boxes, longest, centres = glyph_components(*masks[0])
    for (mask, thinned_by), split in zip(masks[1:], splits, strict=True):
        more_boxes, more_longest, more_centres = glyph_components(mask, thinned_by)
        new = not_covered(more_centres, boxes, split)
        boxes = np.concatenate([boxes, more_boxes[new]])
        longest = np.concatenate([longest, more_longest[new]])
        centres = np.concatenate([centres, more_centres[new]])
    on_card = stock.ring_fraction(boxes) >= MIN_WHITE_RING
    return Blobs(centres[on_card].astype(np.float32), longest[on_card].astype(np.float32),
                 boxes[on_card].astype(np.int32))


def not_covered(centres: np.ndarray, boxes: np.ndarray, split: bool = True) -> np.ndarray:
    """Which blobs (by centre) are new: in no box, or (with `split`) in a box that holds
    two or more."""
    if centres.shape[0] == 0 or boxes.shape[0] == 0:
        return np.ones(centres.shape[0], bool)
    inside = ((centres[:, None, 0] >= boxes[None, :, 0])
              & (centres[:, None, 0] <= boxes[None, :, 0] + boxes[None, :, 2])
              & (centres[:, None, 1] >= boxes[None, :, 1])
              & (centres[:, None, 1] <= boxes[None, :, 1] + boxes[None, :, 3]))
    merged = (inside.sum(axis=0) >= 2) if split else np.zeros(boxes.shape[0], bool)
    new: np.ndarray = ~inside.any(axis=1) | (inside & merged[None, :]).any(axis=1)
    return new


def glyph_components(ink: np.ndarray, thinned_by: int = 0, scale: int = 1
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Boxes (x, y, w, h), longest sides and centres of the glyph-sized ink components.

    A mask thinned by `thinned_by` pixels gets its boxes grown back by as much; a
    mask made at 1/`scale` of the frame's size gets its boxes and centres in frame
    pixels.
    """
    _count, _labels, stats, centroids = cv2.connectedComponentsWithStatsWithAlgorithm(
        ink, 8, cv2.CV_32S, cv2.CCL_GRANA)
    stats = stats[1:]
    centroids = centroids[1:]
    if scale != 1:
        stats = stats * np.array([scale, scale, scale, scale, scale * scale], stats.dtype)
        centroids = (centroids + 0.5) * scale - 0.5  # pixel centres of the frame
    if thinned_by:
        stats = stats + np.array([-thinned_by, -thinned_by, 2 * thinned_by, 2 * thinned_by, 0],
                                 stats.dtype)
    x, y, w, h, area = (stats[:, i] for i in range(5))
    longest = np.maximum(w, h)
    keep = ((longest >= MIN_GLYPH_PX) & (longest <= MAX_GLYPH_PX)
            & (area >= 8) & (area <= 0.85 * w * h + 1))
    return stats[:, :4][keep], longest[keep], centroids[keep]


def _ring_fraction(integral: np.ndarray, x: np.ndarray, y: np.ndarray, w: np.ndarray,
                   h: np.ndarray) -> np.ndarray:
    """Fraction of white pixels in a ring around each box (box grown by a quarter of its
    size), from the integral image of a 0/255 mask."""
    rows, cols = integral.shape[0] - 1, integral.shape[1] - 1

    def box_sum(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray,
                y1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x0 = np.clip(x0, 0, cols)
        x1 = np.clip(x1, 0, cols)
        y0 = np.clip(y0, 0, rows)
        y1 = np.clip(y1, 0, rows)
        total = (integral[y1, x1] - integral[y0, x1] - integral[y1, x0] + integral[y0, x0]) // 255
        return total.astype(np.float32), ((x1 - x0) * (y1 - y0)).astype(np.float32)

    gx = np.maximum(w // 4, 2)
    gy = np.maximum(h // 4, 2)
    outer, outer_area = box_sum(x - gx, y - gy, x + w + gx, y + h + gy)
    inner, inner_area = box_sum(x, y, x + w, y + h)
    ring_area = np.maximum(outer_area - inner_area, 1.0)
    return (outer - inner) / ring_area


def pair_blobs(blobs: Blobs, min_gap: float = 0.7, max_gap: float = 2.0,
               min_ratio: float = 0.7, max_ratio: float = MAX_RATIO) -> Candidates:
    """Blob pairs at an index-like distance and size ratio.

    Distance is in units of the larger blob; ratio is the rank glyph's size over
    the suit pip's (a rank glyph is seldom much smaller than its pip). The bounds
    hold 99% of the true pairs of the tuning designs' cards, and `MAX_RATIO` the
    faces whose pips are small beside a court letter. Only blobs whose x differ by
    at most `max_gap` times the largest blob are measured: no pair farther apart
    can be near.
    """
    i, j, forward, backward = pair_indices(blobs, min_gap, max_gap, min_ratio, max_ratio)
    return Candidates(blobs.centres[i], blobs.centres[j], forward, backward)


def pair_indices(blobs: Blobs, min_gap: float = 0.7, max_gap: float = 2.0,
                 min_ratio: float = 0.7, max_ratio: float = MAX_RATIO
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`pair_blobs`'s pairs as blob indices i < j, with their forward and backward flags."""
    n = blobs.centres.shape[0]
    i, j = _pairs_within(blobs.centres[:, 0], max_gap * float(blobs.sizes.max(initial=0.0)))
    if i.size == 0:
        return i, j, np.zeros(0, bool), np.zeros(0, bool)
    forward, backward = pair_orders(blobs, i, j, min_gap, max_gap, min_ratio, max_ratio)
    either = forward | backward
    # In the order of the pairs' places in an n x n matrix, row by row.
    order = np.argsort(i[either] * n + j[either], kind="stable")
    return i[either][order], j[either][order], forward[either][order], backward[either][order]


def pair_orders(blobs: Blobs, i: np.ndarray, j: np.ndarray, min_gap: float = 0.7,
                max_gap: float = 2.0, min_ratio: float = 0.7, max_ratio: float = MAX_RATIO
                ) -> tuple[np.ndarray, np.ndarray]:
    """Which of the blob pairs (i, j) `pair_blobs`'s limits allow in each order: blob i
    as the rank glyph (forward), blob j as the rank glyph (backward)."""
    delta = blobs.centres[j] - blobs.centres[i]
    distance = np.hypot(delta[:, 0], delta[:, 1])
    size_i = blobs.sizes[i]
    size_j = blobs.sizes[j]
    larger = np.maximum(size_i, size_j)
    near = (distance >= min_gap * larger) & (distance <= max_gap * larger)
    forward: np.ndarray = near & _ratio_within(size_i, size_j, min_ratio, max_ratio)
    backward: np.ndarray = near & _ratio_within(size_j, size_i, min_ratio, max_ratio)
    return forward, backward


def given_pairs(rank_centres: np.ndarray, suit_centres: np.ndarray) -> Candidates:
    """Pairs named by their rank-glyph and suit-pip centres ((n, 2) each), each in that order."""
    first = np.asarray(rank_centres, np.float32).reshape(-1, 2)
    second = np.asarray(suit_centres, np.float32).reshape(-1, 2)
    if first.shape != second.shape:
        raise ValueError(f"{first.shape[0]} rank centres for {second.shape[0]} suit centres")
    return Candidates(first, second, np.ones(first.shape[0], bool), np.zeros(first.shape[0], bool))


def _ratio_within(size: np.ndarray, other: np.ndarray, low: float, high: float) -> np.ndarray:
    ratio = size / np.maximum(other, 1.0)
    within: np.ndarray = (ratio >= low) & (ratio <= high)
    return within


def _pairs_within(x: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of indices i < j whose x differ by at most `reach` (a little more is
    fine: the caller measures each pair)."""
    order = np.argsort(x, kind="stable")
    ordered = x[order].astype(np.float64)
    # How many of the following blobs (in x order) each one reaches.
    ends = np.searchsorted(ordered, ordered + reach + 1.0, side="right")
    counts = ends - np.arange(1, x.size + 1)
    first = np.repeat(np.arange(x.size), counts)
    # Offsets 1..count of each run: a running count restarted at each run's start.
    offsets = np.arange(first.size) - np.repeat(np.cumsum(counts) - counts, counts) + 1
    a, b = order[first], order[first + offsets]
    return np.minimum(a, b), np.maximum(a, b)
