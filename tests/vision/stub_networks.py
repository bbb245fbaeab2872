"""A recognizer reading one candidate pair with its networks stubbed: the classifier and
each call of the verifier give readings a test chooses."""

from __future__ import annotations

import numpy as np
import pytest

from foundation.cards import RANKS, SUITS
from vision.features import FEATURE_SIZE, cut_all
from vision.recognizer import Recognizer

Reading = tuple[np.ndarray, np.ndarray]
RANK_AT, SUIT_AT = np.array([[50.0, 40.0]]), np.array([[50.0, 55.0]])


def reading(card: str, probability: float = 0.95) -> Reading:
    """One row of (rank, suit) probabilities naming `card`, the rest spread evenly."""
    rank = np.full((1, len(RANKS) + 1), (1.0 - probability) / len(RANKS))
    rank[0, RANKS.index(card[0])] = probability
    suit = np.full((1, len(SUITS)), (1.0 - probability) / (len(SUITS) - 1))
    suit[0, SUITS.index(card[1])] = probability
    return rank, suit


def stub_frame() -> np.ndarray:
    """A frame whose every pixel differs from its neighbours, so any two cuts differ."""
    ys, xs = np.mgrid[0:100, 0:100]
    return np.stack([xs * 2, ys * 2, (xs * 7 + ys * 3) % 256], axis=2).astype(np.uint8)


def read_with_stub_networks(monkeypatch: pytest.MonkeyPatch, recognizer: Recognizer,
                            mlp: Reading, verifier_readings: list[Reading]
                            ) -> tuple[list[tuple[str, str]], list[np.ndarray]]:
    """One candidate pair the classifier reads as `mlp`; each call of the verifier gives
    the next of `verifier_readings`. The reads, and the crops each call was given.
    (An unsure corner is not refined and read again: every cut here is the one pair.)"""
    import vision.recognizer as module

    recognizer.refine_unsure = False

    frame = stub_frame()
    first_cut = cut_all(frame, RANK_AT, SUIT_AT)
    monkeypatch.setattr(module, "candidate_features", lambda frame, look, pairs=None: (
        np.zeros((1, FEATURE_SIZE), np.float32), RANK_AT, SUIT_AT, first_cut))
    monkeypatch.setattr(recognizer, "classify", lambda features: (mlp[0].copy(), mlp[1].copy()))
    given: list[np.ndarray] = []
    answers = iter(verifier_readings)

    def verifier(crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, None]:
        given.append(crops.copy())
        rank, suit = next(answers)
        return rank.copy(), suit.copy(), None

    monkeypatch.setattr(recognizer, "verify_and_embed", verifier)
    reads = recognizer.read_candidates(frame, keep_unsure=True)
    return [(r.card, r.reason) for r in reads], given
