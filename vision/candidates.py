"""Find candidate index corners: a glyph (the rank) with a glyph below it (the suit pip).

Works in any orientation: every pair of nearby ink blobs on card-white ground is
a candidate, in both orders; the classifier decides which pairs are a real
index (rank above suit) and rejects the rest (pips of a card's centre, face-card
artwork, chips, card backs, a reversed pair).

Ink is what is clearly darker than its neighbourhood in the minimum of the
three colour channels (red and black print both are dark there, white card
stock and glare are not), so uneven light and shadows do not matter.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# Sizes in pixels for the frame sizes the table uses (card width 60-160 px).
MIN_GLYPH_PX = 5.0
MAX_GLYPH_PX = 34.0
INK_BLOCK_PX = 31
INK_OFFSET = 22
MIN_WHITE_RING = 0.55


@dataclass(frozen=True)
class Blobs:
    """Ink components that may be index glyphs (arrays, one row per blob)."""

    centres: np.ndarray  # (n, 2) float32, x y
    sizes: np.ndarray  # (n,) float32: longest side of the bounding box
    boxes: np.ndarray  # (n, 4) int32: x, y, w, h


@dataclass(frozen=True)
class Candidates:
    """Ordered blob pairs (first = rank glyph candidate, second = suit pip candidate)."""

    first: np.ndarray  # (m, 2) float32 centres
    second: np.ndarray  # (m, 2) float32 centres

    def __len__(self) -> int:
        return int(self.first.shape[0])


def darkest_channel(frame: np.ndarray) -> np.ndarray:
    """Per pixel, the minimum of the B, G, R values."""
    if frame.ndim == 2:
        return frame
    blue, green, red = cv2.split(frame)
    return cv2.min(cv2.min(blue, green), red)


def ink_mask(darkest: np.ndarray) -> np.ndarray:
    """255 where the frame is markedly darker than its surroundings."""
    return cv2.adaptiveThreshold(darkest, 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                 cv2.THRESH_BINARY_INV, INK_BLOCK_PX, INK_OFFSET)


def white_mask(frame: np.ndarray, darkest: np.ndarray) -> np.ndarray:
    """255 where the frame looks like card stock: colourless, and bright for its area."""
    blue, green, red = cv2.split(frame)
    brightest = cv2.max(cv2.max(blue, green), red)
    _, colourless = cv2.threshold(cv2.subtract(brightest, darkest), 59, 255,
                                  cv2.THRESH_BINARY_INV)
    # "Bright" relative to the brightest level nearby, so shade and glare do not matter.
    small = cv2.resize(darkest, None, fx=1 / 16, fy=1 / 16, interpolation=cv2.INTER_AREA)
    local_bright = cv2.dilate(small, np.ones((5, 5), np.uint8))
    local_bright = cv2.resize(local_bright, (frame.shape[1], frame.shape[0]),
                              interpolation=cv2.INTER_LINEAR)
    bright = cv2.compare(darkest, cv2.convertScaleAbs(local_bright, alpha=0.6), cv2.CMP_GT)
    return cv2.bitwise_and(colourless, bright)


def find_blobs(frame: np.ndarray) -> Blobs:
    """Ink blobs of glyph size lying on card-white ground."""
    darkest = darkest_channel(frame)
    ink = ink_mask(darkest)
    count, _labels, stats, centroids = cv2.connectedComponentsWithStats(ink, connectivity=8)
    x, y, w, h, area = (stats[1:, i] for i in range(5))
    longest = np.maximum(w, h)
    sizes = longest.astype(np.float32)
    keep = ((longest >= MIN_GLYPH_PX) & (longest <= MAX_GLYPH_PX)
            & (area >= 8) & (area <= 0.85 * w * h + 1))
    idx = np.flatnonzero(keep)
    if idx.size:
        white = white_mask(frame, darkest)
        ring = _ring_fraction(white, x[idx], y[idx], w[idx], h[idx])
        idx = idx[ring >= MIN_WHITE_RING]
    boxes = np.stack([x[idx], y[idx], w[idx], h[idx]], axis=1).astype(np.int32)
    return Blobs(centroids[1:][idx].astype(np.float32), sizes[idx], boxes)


def _ring_fraction(mask: np.ndarray, x: np.ndarray, y: np.ndarray, w: np.ndarray,
                   h: np.ndarray) -> np.ndarray:
    """Fraction of white pixels in a ring around each box (box grown by half its size)."""
    integral = cv2.integral(mask // 255)
    rows, cols = mask.shape

    def box_sum(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray,
                y1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x0 = np.clip(x0, 0, cols)
        x1 = np.clip(x1, 0, cols)
        y0 = np.clip(y0, 0, rows)
        y1 = np.clip(y1, 0, rows)
        total = (integral[y1, x1] - integral[y0, x1] - integral[y1, x0] + integral[y0, x0])
        return total.astype(np.float32), ((x1 - x0) * (y1 - y0)).astype(np.float32)

    gx = np.maximum(w // 2, 2)
    gy = np.maximum(h // 2, 2)
    outer, outer_area = box_sum(x - gx, y - gy, x + w + gx, y + h + gy)
    inner, inner_area = box_sum(x, y, x + w, y + h)
    ring_area = np.maximum(outer_area - inner_area, 1.0)
    return (outer - inner) / ring_area


def pair_blobs(blobs: Blobs, min_gap: float = 0.7, max_gap: float = 2.4,
               max_size_ratio: float = 2.6) -> Candidates:
    """Every ordered pair of blobs at an index-like distance and size ratio."""
    n = blobs.centres.shape[0]
    if n < 2:
        empty = np.zeros((0, 2), np.float32)
        return Candidates(empty, empty)
    delta = blobs.centres[None, :, :] - blobs.centres[:, None, :]
    distance = np.hypot(delta[..., 0], delta[..., 1])
    size_i = blobs.sizes[:, None]
    size_j = blobs.sizes[None, :]
    larger = np.maximum(size_i, size_j)
    ratio = larger / np.maximum(np.minimum(size_i, size_j), 1.0)
    ok = ((distance >= min_gap * larger) & (distance <= max_gap * larger)
          & (ratio <= max_size_ratio))
    np.fill_diagonal(ok, False)
    i, j = np.nonzero(ok)
    return Candidates(blobs.centres[i], blobs.centres[j])
