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
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.candidates import find_blobs, pair_blobs
from vision.detection import RANKS, SUITS, Detection
from vision.features import FEATURE_SIZE, cut_all, describe_crops, turn_features
from vision.layout import Layout

MODEL_DIR = Path(__file__).resolve().parent / "models"
MODEL_FILE = MODEL_DIR / "index_classifier.onnx"
MODEL_INFO = MODEL_DIR / "index_classifier.json"
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
                 info_path: Path | str = MODEL_INFO, min_confidence: float | None = None) -> None:
        model_path, info_path = Path(model_path), Path(info_path)
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

    def detect(self, frame: np.ndarray, layout: Layout | None = None) -> list[Detection]:
        """Every card index read in the frame, one detection per card."""
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"expected a BGR uint8 frame (HxWx3), got {frame.dtype} "
                             f"{frame.shape}")
        reads = merge_reads(self.read_candidates(frame))
        if layout is not None and tuple(layout.image_size) != (frame.shape[1], frame.shape[0]):
            layout = layout.scaled_to(frame.shape[1], frame.shape[0])
        return [Detection(r.card, r.x, r.y, r.confidence,
                          layout.area_of(r.x, r.y) if layout is not None else None)
                for r in reads]

    def read_candidates(self, frame: np.ndarray) -> list[_Read]:
        """Every candidate pair the classifier accepts, before merging."""
        features, rank_at, suit_at = candidate_features(frame)
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

    def classify(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank (14 classes, last = not an index) and suit (4) probabilities per row."""
        self._net.setInput(np.ascontiguousarray(features, dtype=np.float32))
        rank_logits, suit_logits = self._net.forward(["rank", "suit"])
        return _softmax(rank_logits), _softmax(suit_logits)


def candidate_features(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features of every (rank glyph, suit pip) order worth trying, with the two centres.

    Each blob pair is cut out and described once; the order read the other way
    round gets the same features turned half a turn.
    """
    pairs = pair_blobs(find_blobs(frame))
    if len(pairs) == 0:
        empty = np.zeros((0, 2), np.float32)
        return np.zeros((0, FEATURE_SIZE), np.float32), empty, empty
    features = describe_crops(cut_all(frame, pairs.first, pairs.second))
    index, reverse, rank_at, suit_at = pairs.ordered()
    ordered = features[index]
    if reverse.any():
        ordered[reverse] = turn_features(ordered[reverse])
    return ordered, rank_at, suit_at


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
