"""Read every visible card index (rank and suit) in a camera frame.

Pipeline (see docs/vision.md):
1. `candidates`: ink blobs of glyph size on card-white ground, paired with
   every nearby blob of similar size (rank glyph -> suit pip, both orders);
2. `features`: each pair cut out upright and to scale, described by HOG, a
   thumbnail and the ink colour;
3. the index classifier (an MLP trained by `tools/train_vision.py`, run by
   `cv2.dnn` from `vision/models/index_classifier.onnx`) gives rank (or "not an
   index") and suit probabilities;
4. overlapping reads of one index are merged, and the two corners of one card
   (read upside down from each other) count once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.candidates import find_blobs, pair_blobs
from vision.detection import RANKS, SUITS, Detection
from vision.features import (
    FEATURE_SIZE,
    GLANCE_START,
    cut_all,
    glance_crops,
    hog,
    turn_features,
)
from vision.layout import Layout

MODEL_DIR = Path(__file__).resolve().parent / "models"
MODEL_FILE = MODEL_DIR / "index_classifier.onnx"
MODEL_INFO = MODEL_DIR / "index_classifier.json"
FILTER_FILE = MODEL_DIR / "index_filter.onnx"
NOT_INDEX = len(RANKS)  # the rank head's last class


class ModelError(RuntimeError):
    """The classifier file is missing or does not match this code."""


@dataclass(frozen=True)
class _Read:
    card: str
    x: float
    y: float
    confidence: float
    scale: float
    down: tuple[float, float]


class Recognizer:
    """Finds card indices in BGR frames; one instance per camera (not thread-safe)."""

    def __init__(self, model_path: Path | str = MODEL_FILE,
                 info_path: Path | str | None = None,
                 min_confidence: float | None = None) -> None:
        model_path = Path(model_path)
        info_path = Path(info_path) if info_path is not None else model_path.with_suffix(".json")
        if not model_path.exists() or not info_path.exists():
            raise ModelError(f"index classifier {model_path.name} not found in "
                             f"{model_path.parent}: train it with `python tools/train_vision.py`")
        info = json.loads(info_path.read_text(encoding="utf-8"))
        if info.get("feature_size") != FEATURE_SIZE:
            raise ModelError(f"{info_path.name} was trained on {info.get('feature_size')} "
                             f"features, this code makes {FEATURE_SIZE}: retrain with "
                             "`python tools/train_vision.py`")
        self._net = cv2.dnn.readNetFromONNX(str(model_path))
        self.min_confidence = float(min_confidence if min_confidence is not None
                                    else info.get("min_confidence", 0.5))
        # The quick first look that spares most non-index pairs the full features.
        self._filter: cv2.dnn.Net | None = None
        self.filter_threshold = float(info.get("filter_threshold", 0.0))
        filter_name = info.get("filter_model")
        if filter_name:
            filter_path = model_path.parent / str(filter_name)
            if not filter_path.exists():
                raise ModelError(f"{filter_path.name} (named in {info_path.name}) not found: "
                                 "retrain with `python tools/train_vision.py`")
            self._filter = cv2.dnn.readNetFromONNX(str(filter_path))

    def detect(self, frame: np.ndarray, layout: Layout | None = None) -> list[Detection]:
        """Every card index read in the frame, one detection per card."""
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"expected a BGR uint8 frame (HxWx3), got {frame.dtype} "
                             f"{frame.shape}")
        reads = merge_reads(self.read_candidates(frame))
        if layout is not None and tuple(layout.image_size) != (frame.shape[1], frame.shape[0]):
            layout = layout.scaled_to(frame.shape[1], frame.shape[0])
        # An index just outside its box (a hand laid over the line) still belongs to it.
        return [Detection(r.card, r.x, r.y, r.confidence,
                          layout.area_of(r.x, r.y, reach=3.0 * r.scale)
                          if layout is not None else None)
                for r in reads]

    def read_candidates(self, frame: np.ndarray) -> list[_Read]:
        """Every candidate pair the classifier accepts, before merging."""
        features, rank_at, suit_at = candidate_features(frame, self.looks_like_index)
        if features.shape[0] == 0:
            return []
        rank_p, suit_p = self.classify(features)
        rank = rank_p.argmax(axis=1)
        suit = suit_p.argmax(axis=1)
        confidence = rank_p.max(axis=1) * suit_p.max(axis=1)
        keep = np.flatnonzero((rank != NOT_INDEX) & (confidence >= self.min_confidence))
        reads: list[_Read] = []
        for k in keep:
            down = suit_at[k] - rank_at[k]
            scale = float(np.hypot(down[0], down[1]))
            middle = (rank_at[k] + suit_at[k]) / 2.0
            reads.append(_Read(RANKS[rank[k]] + SUITS[suit[k]], float(middle[0]),
                               float(middle[1]), float(confidence[k]), scale,
                               (float(down[0] / scale), float(down[1] / scale))))
        return reads

    def looks_like_index(self, glance: np.ndarray) -> np.ndarray:
        """Which rows of glance features (thumbnail, colour) are worth the full look."""
        if self._filter is None or glance.shape[0] == 0:
            return np.ones(glance.shape[0], bool)
        self._filter.setInput(np.ascontiguousarray(glance, dtype=np.float32))
        logits = self._filter.forward("index")
        keep: np.ndarray = _softmax(logits)[:, 1] >= self.filter_threshold
        return keep

    def classify(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank (14 classes, last = not an index) and suit (4) probabilities per row."""
        self._net.setInput(np.ascontiguousarray(features, dtype=np.float32))
        rank_logits, suit_logits = self._net.forward(["rank", "suit"])
        return _softmax(rank_logits), _softmax(suit_logits)


def candidate_features(
        frame: np.ndarray,
        worth_a_look: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features of every (rank glyph, suit pip) order worth trying, with the two centres.

    Each blob pair is cut out once; the order read the other way round gets the
    same features turned half a turn. With `worth_a_look`, orders whose cheap
    glance features it turns down are dropped before the HOG is computed.
    """
    pairs = pair_blobs(find_blobs(frame))
    empty = np.zeros((0, 2), np.float32)
    if len(pairs) == 0:
        return np.zeros((0, FEATURE_SIZE), np.float32), empty, empty
    glance, grey = glance_crops(cut_all(frame, pairs.first, pairs.second))
    index, reverse, rank_at, suit_at = pairs.ordered()
    # Glance features of the turned crop: the HOG part of turn_features is left empty.
    rows = np.zeros((index.size, FEATURE_SIZE), np.float32)
    rows[:, GLANCE_START:] = glance[index]
    rows[reverse] = turn_features(rows[reverse])
    if worth_a_look is not None:
        keep = worth_a_look(rows[:, GLANCE_START:])
        index, reverse, rank_at, suit_at, rows = (index[keep], reverse[keep], rank_at[keep],
                                                  suit_at[keep], rows[keep])
        if index.size == 0:
            return np.zeros((0, FEATURE_SIZE), np.float32), empty, empty
    needed, where = np.unique(index, return_inverse=True)
    hog_rows = hog(grey[needed])[where]
    hog_rows[reverse] = turn_features(
        np.concatenate([hog_rows[reverse], rows[reverse, GLANCE_START:]], axis=1)
    )[:, :GLANCE_START]
    rows[:, :GLANCE_START] = hog_rows
    return rows, rank_at, suit_at


def merge_reads(reads: list[_Read]) -> list[_Read]:
    """One read per index (best first), then one per card (its two corners merged)."""
    ordered = sorted(reads, key=lambda r: -r.confidence)
    kept: list[_Read] = []
    for read in ordered:
        duplicate = False
        for other in kept:
            distance = float(np.hypot(read.x - other.x, read.y - other.y))
            if distance < 0.8 * max(read.scale, other.scale):
                duplicate = True  # the same index read from another blob pair
            elif (read.card == other.card and distance < 9.0 * other.scale
                  and read.down[0] * other.down[0] + read.down[1] * other.down[1] < -0.7):
                duplicate = True  # the opposite corner of the same card
            if duplicate:
                break
        if not duplicate:
            kept.append(read)
    return kept


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    result: np.ndarray = exp / exp.sum(axis=1, keepdims=True)
    return result
