"""Cut a candidate index out of the frame, upright and to scale, and describe it.

A candidate is an ordered pair of blob centres: the rank glyph's and the suit
pip's. The vector between them is the card's "down" direction and its length
the index scale, so the crop comes out upright and the same size whatever the
card's rotation, the camera distance or the card size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.candidates import Candidates, find_blobs, pair_blobs

CROP_W = 24
CROP_H = 36
# Crop extent in units of the rank-to-suit distance, around their midpoint. The
# crop is symmetric, so the pair read the other way round is the crop turned
# half a turn: its features are the same numbers in reversed cell order.
HALF_WIDTH = 1.0
TOP = -1.25
BOTTOM = 1.25

CELL = 6
BINS = 9
_CELLS_X = CROP_W // CELL
_CELLS_Y = CROP_H // CELL
_HOG_SIZE = (_CELLS_Y - 1) * (_CELLS_X - 1) * 4 * BINS
_THUMB = (8, 12)  # low-resolution picture of the crop, width x height
GLANCE_SIZE = _THUMB[0] * _THUMB[1] + 3
FEATURE_SIZE = _HOG_SIZE + GLANCE_SIZE
GLANCE_START = _HOG_SIZE  # the glance is the tail of the full features


def turn_features(features: np.ndarray) -> np.ndarray:
    """Features of the crops turned half a turn (the pairs read the other way round).

    Unsigned gradient orientations do not change under a half turn; the cells
    swap places: blocks in reverse order, and the four cells in each block too.
    """
    return np.concatenate([turn_hog(features[:, :_HOG_SIZE]),
                           turn_glance(features[:, _HOG_SIZE:])], axis=1)


def turn_hog(hog_rows: np.ndarray) -> np.ndarray:
    """The HOG part of `turn_features` alone."""
    n = hog_rows.shape[0]
    blocks = hog_rows.reshape(n, _CELLS_Y - 1, _CELLS_X - 1, 4, BINS)
    return blocks[:, ::-1, ::-1, ::-1, :].reshape(n, _HOG_SIZE)


def turn_glance(glance: np.ndarray) -> np.ndarray:
    """The glance part of `turn_features` alone: the thumbnail turned, the ink colour kept."""
    n = glance.shape[0]
    thumb_size = _THUMB[0] * _THUMB[1]
    thumb = glance[:, :thumb_size].reshape(n, _THUMB[1], _THUMB[0])
    return np.concatenate([thumb[:, ::-1, ::-1].reshape(n, thumb_size), glance[:, thumb_size:]],
                          axis=1)


_CELL_INDEX = ((np.arange(CROP_H) // CELL)[:, None] * _CELLS_X
               + (np.arange(CROP_W) // CELL)[None, :]).astype(np.int32)
_BIN_OF = (np.arange(2 * BINS + 2) % BINS).astype(np.int32)


def hog(grey: np.ndarray) -> np.ndarray:
    """Histograms of oriented gradients for a batch of grey crops (n, H, W) float32."""
    n = grey.shape[0]
    tall = grey.reshape(n * CROP_H, CROP_W)
    gx = cv2.Sobel(tall, cv2.CV_32F, 1, 0, ksize=1)
    gy = cv2.Sobel(tall, cv2.CV_32F, 0, 1, ksize=1)
    # Rows at crop seams mix two crops: their vertical gradient is dropped.
    gy.reshape(n, CROP_H, CROP_W)[:, [0, -1], :] = 0
    magnitude, angle = cv2.cartToPolar(gx, gy)
    # Unsigned orientation in bins: angle is in [0, 2 pi), so position is in [0, 2 BINS).
    position = angle * np.float32(BINS / np.pi)
    whole = position.astype(np.int32)
    high_weight = position - whole
    high_votes = magnitude * high_weight
    low_votes = magnitude - high_votes
    cells = _CELLS_X * _CELLS_Y
    base = (np.arange(n, dtype=np.int32)[:, None, None] * (cells * BINS)
            + _CELL_INDEX[None] * BINS).reshape(n * CROP_H, CROP_W)
    size = n * cells * BINS
    counts = (np.bincount((base + _BIN_OF[whole]).ravel(), low_votes.ravel(), size)
              + np.bincount((base + _BIN_OF[whole + 1]).ravel(), high_votes.ravel(), size))
    hist = counts.astype(np.float32).reshape(n, _CELLS_Y, _CELLS_X, BINS)
    blocks = np.concatenate([hist[:, :-1, :-1], hist[:, :-1, 1:], hist[:, 1:, :-1],
                             hist[:, 1:, 1:]], axis=3)
    norms = np.sqrt((blocks ** 2).sum(axis=3, keepdims=True) + 1e-3 * CELL * CELL * 255)
    blocks = np.minimum(blocks / norms, 0.2)
    blocks /= np.sqrt((blocks ** 2).sum(axis=3, keepdims=True) + 1e-6)
    return blocks.reshape(n, -1)


@dataclass(frozen=True)
class Glance:
    """The glance features of a batch of crops, and what their grey pictures are made from."""

    features: np.ndarray  # (n, GLANCE_SIZE) float32: thumbnail, then ink colour
    darkest: np.ndarray  # (n, CROP_H, CROP_W) float32: the darkest channel
    low: np.ndarray  # (n, 1, 1) float32: the level stretched to 0
    stretch: np.ndarray  # (n, 1, 1) float32: the factor that takes paper to 255

    def grey(self, which: np.ndarray | slice = slice(None)) -> np.ndarray:
        """Grey crops (of the rows `which` selects): paper 255, ink 0, float32."""
        stretched = (self.darkest[which] - self.low[which]) * self.stretch[which]
        return np.clip(stretched, 0, 255, out=stretched)


def glance_crops(crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cheap part of the features (thumbnail and ink colour) and the grey crops."""
    glance = glance_of(crops)
    return glance.features, glance.grey()


def glance_of(crops: np.ndarray) -> Glance:
    """The cheap part of the features: a thumbnail and the ink colour.

    The grey picture is the darkest channel stretched so that paper is 255 and
    ink 0 whatever the light (the stretch comes from the thumbnail's darkest and
    lightest cells, which a stray pixel cannot move much); `Glance.grey` makes it
    for the crops that need it.
    """
    n = crops.shape[0]
    tall = crops.reshape(n * CROP_H, CROP_W, 3)
    darkest_u8 = cv2.min(cv2.min(tall[:, :, 0], tall[:, :, 1]), tall[:, :, 2])
    darkest = darkest_u8.astype(np.float32).reshape(n, CROP_H, CROP_W)
    # Area resizing of the stacked crops averages whole cells, never across two crops.
    thumb_size = (_THUMB[0], n * _THUMB[1])
    thumb = cv2.resize(darkest.reshape(n * CROP_H, CROP_W), thumb_size,
                       interpolation=cv2.INTER_AREA).reshape(n, _THUMB[1], _THUMB[0])
    low = thumb.min(axis=(1, 2))[:, None, None]
    stretch = 255.0 / np.maximum(thumb.max(axis=(1, 2))[:, None, None] - low, 12.0)
    thumb = np.clip((thumb - low) * stretch, 0, 255)
    # Ink colour from the cells that are mostly ink.
    cell_bgr = cv2.resize(tall.astype(np.float32), thumb_size, interpolation=cv2.INTER_AREA)
    ink = (thumb < 128).astype(np.float32)
    counts = np.maximum(ink.sum(axis=(1, 2)), 1.0)
    mean_bgr = _ink_sum(cell_bgr.reshape(n, -1, 3), ink.reshape(n, -1)) / counts[:, None]
    redness = (mean_bgr[:, 2] - np.maximum(mean_bgr[:, 0], mean_bgr[:, 1])) / 255.0
    colour = np.stack([redness * 3.0, (mean_bgr[:, 2] - mean_bgr[:, 1]) / 255.0 * 3.0,
                       ink.mean(axis=(1, 2))], axis=1)
    thumbs = (thumb.reshape(n, -1) / 255.0 - 0.5) * 0.5
    features = np.concatenate([thumbs, colour], axis=1).astype(np.float32)
    return Glance(features, darkest, low, stretch)


def _ink_sum(cells: np.ndarray, ink: np.ndarray) -> np.ndarray:
    """Per crop, the sum of the cells' colours (n, cells, 3) weighted by `ink` (n, cells).

    The cells are added one after another in their order, the order of a numpy
    sum over the cell axes of (n, rows, columns, 3), so the features stay the
    same to the last bit as the networks were trained on; laid out cell-major,
    each addition is one pass over contiguous memory.
    """
    weighted = np.empty((cells.shape[1], cells.shape[0], 3), np.float32)
    np.multiply(cells.transpose(1, 0, 2), ink.T[:, :, None], out=weighted)
    total: np.ndarray = np.add.reduce(weighted, axis=0)
    return total


def describe_crops(crops: np.ndarray) -> np.ndarray:
    """Feature rows for a batch of colour crops (n, CROP_H, CROP_W, 3): HOG, then the glance."""
    if crops.shape[0] == 0:
        return np.zeros((0, FEATURE_SIZE), np.float32)
    glance, grey = glance_crops(crops)
    return np.concatenate([hog(grey), glance], axis=1).astype(np.float32)


CropSize = tuple[int, int]  # height, width in pixels
CROP_SIZE: CropSize = (CROP_H, CROP_W)


def _grid(pixels: int) -> np.ndarray:
    """Pixel centres' offsets from the crop centre, as shares of the crop's extent."""
    return (np.arange(pixels, dtype=np.float32) - (pixels - 1) / 2) / pixels


REMAP_PAIRS = 800  # pairs cut per cv2.remap call (a busy frame's crops go in slices)


def cut_all(frame: np.ndarray, first: np.ndarray, second: np.ndarray,
            size: CropSize = CROP_SIZE) -> np.ndarray:
    """Upright crops of every candidate, stacked (n, height, width, 3), in one remap.

    Crop pixel (x, y) samples the frame at midpoint + u * right + v * down, with
    u, v the pixel centre's offset from the crop centre scaled to the crop extent,
    so the pair read the other way round gives exactly this crop turned round.
    `size` is the crop's pixels (height, width); the extent is the same at every
    size, so a larger size cuts the same part of the frame more finely.
    """
    n = first.shape[0]
    height, width = size
    if n == 0:
        return np.zeros((0, height, width, 3), np.uint8)
    map_x, map_y = crop_maps(first, second, size)
    # One crop a map row: cv2.remap works faster along long rows than along many short ones.
    crops = np.concatenate([cv2.remap(frame, map_x[k:k + REMAP_PAIRS], map_y[k:k + REMAP_PAIRS],
                                      cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                            for k in range(0, n, REMAP_PAIRS)])
    return crops.reshape(n, height, width, 3)


def crop_maps(first: np.ndarray, second: np.ndarray, size: CropSize = CROP_SIZE
              ) -> tuple[np.ndarray, np.ndarray]:
    """The frame x and y each crop pixel samples, one crop a row: two (n, height * width)
    float32 arrays."""
    n = first.shape[0]
    first = first.astype(np.float32)
    second = second.astype(np.float32)
    down = second - first  # length = the rank-to-suit distance
    right = np.stack([down[:, 1], -down[:, 0]], axis=1)  # so the crop is not mirrored
    middle = (first + second) / 2.0
    height, width = size
    across = _grid(width) * np.float32(2 * HALF_WIDTH)
    along = _grid(height) * np.float32(BOTTOM - TOP)
    maps = np.empty((2, n, height, width), np.float32)
    for axis in range(2):
        # (middle + right * across) + down * along: the two terms are a row and a column
        # of each crop; the column is spread over its map first (numpy adds the row faster).
        row = middle[:, axis, None] + right[:, axis, None] * across[None, :]
        column = down[:, axis, None] * along[None, :]
        maps[axis] = column[:, :, None]
        maps[axis] += row[:, None, :]
    return maps[0].reshape(n, -1), maps[1].reshape(n, -1)


def net_input(crops: np.ndarray) -> np.ndarray:
    """The verifier network's input for colour crops (n, H, W, 3): (n, 3, H, W).

    The three colour channels, stretched as `glance_crops` stretches the grey
    picture (from the thumbnail's darkest and lightest cells of the darkest
    channel, so paper is about 0.5 and ink -0.5 whatever the light), colour kept.
    """
    n, height, width = crops.shape[:3]
    if n == 0:
        return np.zeros((0, 3, height, width), np.float32)
    tall = crops.reshape(n * height, width, 3)
    darkest = cv2.min(cv2.min(tall[:, :, 0], tall[:, :, 1]), tall[:, :, 2])
    thumb = cv2.resize(darkest.astype(np.float32), (_THUMB[0], n * _THUMB[1]),
                       interpolation=cv2.INTER_AREA).reshape(n, -1)
    low = thumb.min(axis=1)[:, None, None, None]
    stretch = 1.0 / np.maximum(thumb.max(axis=1)[:, None, None, None] - low, 12.0)
    out = np.clip((crops.astype(np.float32) - low) * stretch, 0.0, 1.0) - 0.5
    return np.ascontiguousarray(out.transpose(0, 3, 1, 2), dtype=np.float32)


def candidate_features(
        frame: np.ndarray,
        worth_a_look: Callable[[np.ndarray], np.ndarray] | None = None,
        pairs: Candidates | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Features of every (rank glyph, suit pip) order worth trying, the two centres, the crops.

    Each blob pair is cut out once; the order read the other way round gets the
    same features turned half a turn (and the crop turned half a turn). With
    `worth_a_look`, orders whose cheap glance features it turns down are dropped
    before the HOG is computed. `pairs` are read instead of the candidate finder's
    (a benchmark asks what pairs cut at the true glyphs would read).
    """
    if pairs is None:
        pairs = pair_blobs(find_blobs(frame))
    empty = np.zeros((0, 2), np.float32)
    no_crops = np.zeros((0, CROP_H, CROP_W, 3), np.uint8)
    if len(pairs) == 0:
        return np.zeros((0, FEATURE_SIZE), np.float32), empty, empty, no_crops
    crops = cut_all(frame, pairs.first, pairs.second)
    glance = glance_of(crops)
    index, reverse, rank_at, suit_at = pairs.ordered()
    glance_rows = glance.features[index]
    glance_rows[reverse] = turn_glance(glance_rows[reverse])
    if worth_a_look is not None:
        keep = worth_a_look(glance_rows)
        index, reverse, rank_at, suit_at, glance_rows = (
            index[keep], reverse[keep], rank_at[keep], suit_at[keep], glance_rows[keep])
        if index.size == 0:
            return np.zeros((0, FEATURE_SIZE), np.float32), empty, empty, no_crops
    needed, where = np.unique(index, return_inverse=True)
    hog_rows = hog(glance.grey(needed))[where]
    hog_rows[reverse] = turn_hog(hog_rows[reverse])
    rows = np.concatenate([hog_rows, glance_rows], axis=1)
    ordered_crops = crops[index]
    ordered_crops[reverse] = ordered_crops[reverse, ::-1, ::-1]
    return rows, rank_at, suit_at, ordered_crops
