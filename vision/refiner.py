"""A learnt refiner of index places: moves a proposed rank and pip onto the glyphs.

The learnt proposer (`vision.proposer`) places an index's rank and pip from an 8-pixel
grid of a half-size frame; on a small index it misses them by a third of the
rank-to-pip distance or more, and the reading networks, trained on crops cut at the
glyphs, then call the corner no index. This network looks at a window of the frame
around each proposal, turned and scaled by the proposal (rank above pip), and says
where in that window the rank's and the pip's centres really lie. Read twice, its
answer lands near the glyphs.

Trained by `tools/train_index_refiner.py` on scenes of the training decks only.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.networks import Network

REFINER_FILE = "index_refiner.onnx"
SIZE = 32  # window pixels a side
# The window reaches this many rank-to-pip distances from the proposal's midpoint, across
# and along: room for a proposal that missed by a whole distance.
REACH = 1.5
ROUNDS = 2
# A refined pair whose rank-to-pip distance changed more than this factor is no better
# placed: the proposal is kept as it was.
MAX_SPAN_CHANGE = 2.0

_GRID = ((np.arange(SIZE, dtype=np.float32) + 0.5) / SIZE * 2.0 - 1.0) * REACH


def window_maps(ranks: np.ndarray, pips: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The frame x and y each window pixel samples, one window a row of SIZE * SIZE:
    pixel (i, j) lies at midpoint + u_j * right + v_i * down, with down the rank-to-pip
    vector and right that vector turned a quarter (so a window is never mirrored)."""
    down = (pips - ranks).astype(np.float32)
    right = np.stack([down[:, 1], -down[:, 0]], axis=1)
    middle = ((ranks + pips) / 2.0).astype(np.float32)
    maps = np.empty((2, len(ranks), SIZE, SIZE), np.float32)
    for axis in range(2):
        row = middle[:, axis, None] + right[:, axis, None] * _GRID[None, :]
        maps[axis] = (down[:, axis, None] * _GRID[None, :])[:, :, None]
        maps[axis] += row[:, None, :]
    return maps[0].reshape(len(ranks), -1), maps[1].reshape(len(ranks), -1)


def windows(frame: np.ndarray, ranks: np.ndarray, pips: np.ndarray) -> np.ndarray:
    """The windows of each proposal, stacked (n, SIZE, SIZE, 3) uint8."""
    if len(ranks) == 0:
        return np.zeros((0, SIZE, SIZE, 3), np.uint8)
    map_x, map_y = window_maps(ranks, pips)
    cut = cv2.remap(frame, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return cut.reshape(len(ranks), SIZE, SIZE, 3)


def network_input(cut: np.ndarray) -> np.ndarray:
    """(n, 3, SIZE, SIZE) float input: each window stretched from its darkest to its
    lightest level, so the light does not matter."""
    values = cut.astype(np.float32)
    low = values.min(axis=(1, 2, 3), keepdims=True)
    high = values.max(axis=(1, 2, 3), keepdims=True)
    stretched = (values - low) / np.maximum(high - low, 12.0) - 0.5
    return np.ascontiguousarray(stretched.transpose(0, 3, 1, 2))


def window_targets(ranks: np.ndarray, pips: np.ndarray, true_ranks: np.ndarray,
                   true_pips: np.ndarray) -> np.ndarray:
    """(n, 4): the true rank's and pip's places (u, v) in each proposal's window, in
    rank-to-pip distances of the proposal: what the network answers."""
    down = (pips - ranks).astype(np.float64)
    right = np.stack([down[:, 1], -down[:, 0]], axis=1)
    middle = (ranks + pips) / 2.0
    length2 = np.maximum((down ** 2).sum(axis=1), 1e-6)
    out = np.empty((len(ranks), 4), np.float32)
    for k, point in enumerate((true_ranks, true_pips)):
        rel = point - middle
        out[:, 2 * k] = (rel * right).sum(axis=1) / length2
        out[:, 2 * k + 1] = (rel * down).sum(axis=1) / length2
    return out


def from_window(ranks: np.ndarray, pips: np.ndarray, answer: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """The frame places of the rank and pip the network's (n, 4) `answer` names."""
    down = (pips - ranks).astype(np.float32)
    right = np.stack([down[:, 1], -down[:, 0]], axis=1)
    middle = ((ranks + pips) / 2.0).astype(np.float32)
    rank = middle + answer[:, 0:1] * right + answer[:, 1:2] * down
    pip = middle + answer[:, 2:3] * right + answer[:, 3:4] * down
    return rank.astype(np.float32), pip.astype(np.float32)


class IndexRefiner:
    """`refine(frame, ranks, pips)`: the proposals moved onto their glyphs."""

    def __init__(self, network: Network, rounds: int = ROUNDS) -> None:
        self.network = network
        self.rounds = rounds

    def refine(self, frame: np.ndarray, ranks: np.ndarray, pips: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        ranks = np.asarray(ranks, np.float32).reshape(-1, 2)
        pips = np.asarray(pips, np.float32).reshape(-1, 2)
        for _ in range(self.rounds):
            if len(ranks) == 0:
                break
            answer = next(iter(self.network.run(network_input(windows(frame, ranks, pips)))
                               .values()))
            new_ranks, new_pips = from_window(ranks, pips, np.asarray(answer, np.float32))
            before = np.hypot(*(pips - ranks).T)
            after = np.hypot(*(new_pips - new_ranks).T)
            change = after / np.maximum(before, 1e-3)
            fits = (change <= MAX_SPAN_CHANGE) & (change >= 1.0 / MAX_SPAN_CHANGE)
            ranks = np.where(fits[:, None], new_ranks, ranks)
            pips = np.where(fits[:, None], new_pips, pips)
        return ranks, pips
