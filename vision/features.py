"""Cut a candidate index out of the frame, upright and to scale, and describe it.

A candidate is an ordered pair of blob centres: the rank glyph's and the suit
pip's. The vector between them is the card's "down" direction and its length
the index scale, so the crop comes out upright and the same size whatever the
card's rotation, the camera distance or the card size.
"""

from __future__ import annotations

import cv2
import numpy as np

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
FEATURE_SIZE = _HOG_SIZE + _THUMB[0] * _THUMB[1] + 3


def turn_features(features: np.ndarray) -> np.ndarray:
    """Features of the crops turned half a turn (the pairs read the other way round).

    Unsigned gradient orientations do not change under a half turn; the cells
    swap places: blocks in reverse order, and the four cells in each block too.
    """
    n = features.shape[0]
    hog_part = features[:, :_HOG_SIZE].reshape(n, _CELLS_Y - 1, _CELLS_X - 1, 4, BINS)
    thumb_end = _HOG_SIZE + _THUMB[0] * _THUMB[1]
    thumb = features[:, _HOG_SIZE:thumb_end].reshape(n, _THUMB[1], _THUMB[0])
    return np.concatenate([hog_part[:, ::-1, ::-1, ::-1, :].reshape(n, -1),
                           thumb[:, ::-1, ::-1].reshape(n, -1), features[:, thumb_end:]],
                          axis=1)


def crop_transform(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """2x3 affine matrix from frame to crop coordinates for one candidate."""
    down = second - first
    scale = float(np.hypot(down[0], down[1]))
    down = down / max(scale, 1e-6)
    right = np.array([-down[1], down[0]], dtype=np.float64)
    middle = (first + second) / 2.0
    origin = middle - HALF_WIDTH * scale * right + TOP * scale * down
    corner_right = origin + 2 * HALF_WIDTH * scale * right
    corner_down = origin + (BOTTOM - TOP) * scale * down
    src = np.array([origin, corner_right, corner_down], dtype=np.float32)
    # Pixel centres: the crop's centre pixel position (W-1)/2, (H-1)/2 is the midpoint.
    dst = np.array([[-0.5, -0.5], [CROP_W - 0.5, -0.5], [-0.5, CROP_H - 0.5]], dtype=np.float32)
    return cv2.getAffineTransform(src, dst)


def cut_crop(frame: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The upright colour crop (CROP_H x CROP_W x 3) of one candidate."""
    matrix = crop_transform(first.astype(np.float64), second.astype(np.float64))
    return cv2.warpAffine(frame, matrix, (CROP_W, CROP_H), flags=cv2.INTER_AREA,
                          borderMode=cv2.BORDER_REPLICATE)


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


def describe_crops(crops: np.ndarray) -> np.ndarray:
    """Feature rows for a batch of colour crops (n, CROP_H, CROP_W, 3).

    The grey picture is the darkest channel stretched so that paper is 255 and
    ink 0 whatever the light.
    """
    n = crops.shape[0]
    if n == 0:
        return np.zeros((0, FEATURE_SIZE), np.float32)
    darkest = np.minimum(np.minimum(crops[..., 0], crops[..., 1]), crops[..., 2])
    darkest = darkest.astype(np.float32)
    count = CROP_W * CROP_H
    kth = (int(count * 0.03), int(count * 0.97))
    ranked = np.partition(darkest.reshape(n, -1), kth, axis=1)
    low = ranked[:, kth[0]][:, None, None]
    high = ranked[:, kth[1]][:, None, None]
    grey = np.clip((darkest - low) * (255.0 / np.maximum(high - low, 12.0)), 0, 255)
    grey = grey.astype(np.float32)
    thumbs = np.stack([cv2.resize(g, _THUMB, interpolation=cv2.INTER_AREA) for g in grey])
    thumbs = (thumbs.reshape(n, -1) / 255.0 - 0.5) * 0.5
    ink = grey < 110
    ink_weights = ink.reshape(n, -1).astype(np.float32)
    counts = np.maximum(ink_weights.sum(axis=1), 1.0)
    pixels = crops.reshape(n, -1, 3).astype(np.float32)
    mean_bgr = np.einsum("np,npc->nc", ink_weights, pixels) / counts[:, None]
    redness = (mean_bgr[:, 2] - np.maximum(mean_bgr[:, 0], mean_bgr[:, 1])) / 255.0
    colour = np.stack([redness * 3.0, (mean_bgr[:, 2] - mean_bgr[:, 1]) / 255.0 * 3.0,
                       ink_weights.mean(axis=1)], axis=1)
    return np.concatenate([hog(grey), thumbs, colour], axis=1).astype(np.float32)


def crop_transforms(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The (n, 2, 3) affine matrices of `crop_transform` for many candidates at once."""
    first = first.astype(np.float64)
    second = second.astype(np.float64)
    down = second - first
    # Crop axes in frame pixels per crop pixel.
    step_right = np.stack([-down[:, 1], down[:, 0]], axis=1) * (2 * HALF_WIDTH / CROP_W)
    step_down = down * ((BOTTOM - TOP) / CROP_H)
    middle = (first + second) / 2.0
    origin = (middle - HALF_WIDTH * np.stack([-down[:, 1], down[:, 0]], axis=1)
              + TOP * down)
    # Inverse of [step_right step_down] (a rotation times a scale).
    det = step_right[:, 0] * step_down[:, 1] - step_down[:, 0] * step_right[:, 1]
    inv = np.empty((first.shape[0], 2, 2))
    inv[:, 0, 0] = step_down[:, 1] / det
    inv[:, 0, 1] = -step_down[:, 0] / det
    inv[:, 1, 0] = -step_right[:, 1] / det
    inv[:, 1, 1] = step_right[:, 0] / det
    matrices = np.empty((first.shape[0], 2, 3))
    matrices[:, :, :2] = inv
    matrices[:, :, 2] = -np.einsum("nij,nj->ni", inv, origin) - 0.5
    return matrices


def cut_all(frame: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Crops of every candidate, stacked (n, CROP_H, CROP_W, 3)."""
    out = np.empty((first.shape[0], CROP_H, CROP_W, 3), np.uint8)
    for k, matrix in enumerate(crop_transforms(first, second)):
        out[k] = cv2.warpAffine(frame, matrix, (CROP_W, CROP_H), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    return out
