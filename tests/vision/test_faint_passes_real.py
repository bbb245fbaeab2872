"""The faint passes and the learnt proposer on a scene of real artwork: cards the
finder's own pairs lose are read.

The scene is scene 164 of the choosing set's seed 502 (`vision_real_decks.py --decks
<the training decks> --seed 502`): a Dondorf deck from Debian's aisleriot package,
cards 91 px wide, blurred. There the finder's own pairs lose the five and the nine
of hearts (a rank blob holding only the glyph's dark core, under 0.7 of its pip's
size) and the three of clubs (the rank and its pip run together into one blob).
Both the faint passes (`vision.faint_glyphs`) and the learnt proposer
(`vision.proposer`) are meant for such corners; each is checked alone.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hwsim.camera.artwork import TRAINING_DECKS, ArtworkDeck
from hwsim.camera.dataset import generate_scenes
from hwsim.camera.render import RenderedScene

from tests.vision.real_scenes import corpus_with
from vision.detection import Detection
from vision.recognizer import Recognizer

DECK = "aisleriot-dondorf"
LOST_BY_THE_FINDER = {"5H", "9H", "3C"}


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> RenderedScene:
    assert DECK in TRAINING_DECKS  # a check of the mechanism, not of unseen designs
    corpus: Path = corpus_with(tmp_path_factory, [DECK])
    return next(generate_scenes(1, 502, [ArtworkDeck.named(DECK, corpus)], start=164))


def _read_right(scene: RenderedScene, cards: list[Detection]) -> tuple[set[str], list[str]]:
    """The visible cards read at one of their index corners, and the reads at a visible
    corner of another card."""
    radius = 0.25 * scene.card_width
    right: set[str] = set()
    wrong: list[str] = []
    for det in cards:
        at = [t.card for t in scene.truth if t.index_points
              and min(math.dist((det.x, det.y), p) for p in t.index_points) <= radius]
        if det.card in at:
            right.add(det.card)
        elif at:
            wrong.append(f"{det.card} at {at}")
    return right, wrong


def test_the_faint_passes_read_cards_the_finders_pairs_lose(scene: RenderedScene) -> None:
    shown = {t.card for t in scene.truth if t.index_points}
    assert LOST_BY_THE_FINDER <= shown
    right_off, wrong_off = _read_right(scene, Recognizer(proposer=False).detect(scene.image))
    right_on, wrong_on = _read_right(
        scene, Recognizer(faint_passes=True, proposer=False).detect(scene.image))
    assert not LOST_BY_THE_FINDER & right_off
    assert LOST_BY_THE_FINDER <= right_on
    # Nothing read before is lost, and nothing is read wrong.
    assert right_off <= right_on
    assert wrong_on == wrong_off == []


def test_the_learnt_proposer_reads_cards_the_finders_pairs_lose(scene: RenderedScene) -> None:
    with_proposer = Recognizer()
    assert with_proposer.proposer is not None  # the shipped settings name it
    right_off, wrong_off = _read_right(scene, Recognizer(proposer=False).detect(scene.image))
    right_on, wrong_on = _read_right(scene, with_proposer.detect(scene.image))
    assert not LOST_BY_THE_FINDER & right_off
    assert LOST_BY_THE_FINDER <= right_on
    assert right_off <= right_on
    assert wrong_on == wrong_off == []
