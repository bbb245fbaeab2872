"""The shipped refiner on a scene of real artwork: proposals cut off their glyphs are
moved back onto them.

The scene is scene 164 of the choosing set's seed 502: a Dondorf deck from Debian's
aisleriot package (a training deck: this checks the mechanism, not unseen designs).
The renderer knows each open corner's rank and pip centres; each pair is moved off by
0.4 of its rank-to-pip distance and turned by 20 degrees, about as far as the
proposer misses the corners it loses, and the refiner must bring it back.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hwsim.camera.artwork import TRAINING_DECKS, ArtworkDeck
from hwsim.camera.dataset import generate_scenes
from hwsim.camera.render import RenderedScene

from tests.vision.real_scenes import corpus_with
from vision.recognizer import Recognizer

DECK = "aisleriot-dondorf"


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> RenderedScene:
    assert DECK in TRAINING_DECKS
    corpus: Path = corpus_with(tmp_path_factory, [DECK])
    return next(generate_scenes(1, 502, [ArtworkDeck.named(DECK, corpus)], start=164))


def _missed(ranks: np.ndarray, pips: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    vector = pips - ranks
    span = np.hypot(vector[:, 0], vector[:, 1])[:, None]
    across = np.stack([vector[:, 1], -vector[:, 0]], axis=1) / span
    turn = math.radians(20)
    turned = np.stack([vector[:, 0] * math.cos(turn) - vector[:, 1] * math.sin(turn),
                       vector[:, 0] * math.sin(turn) + vector[:, 1] * math.cos(turn)], axis=1)
    middle = (ranks + pips) / 2 + 0.4 * span * across
    return middle - turned / 2, middle + turned / 2


def test_pairs_cut_off_their_glyphs_are_moved_back(scene: RenderedScene) -> None:
    glyphs = [g for t in scene.truth for g in t.index_glyphs]
    assert len(glyphs) >= 15
    ranks = np.array([g[0] for g in glyphs], np.float32)
    pips = np.array([g[1] for g in glyphs], np.float32)
    span = np.hypot(*(pips - ranks).T)
    off_ranks, off_pips = _missed(ranks, pips)
    proposer = Recognizer().proposer
    assert proposer is not None and proposer.refiner is not None
    new_ranks, new_pips = proposer.refiner.refine(scene.image, off_ranks, off_pips)
    before = np.maximum(np.hypot(*(off_ranks - ranks).T), np.hypot(*(off_pips - pips).T))
    after = np.maximum(np.hypot(*(new_ranks - ranks).T), np.hypot(*(new_pips - pips).T))
    assert np.median(before / span) > 0.4
    # Back within a fifth of the rank-to-pip distance at nine corners in ten or more.
    assert np.mean(after / span < 0.2) >= 0.9
    assert np.median(after / span) < 0.1
