"""The places one fan step from the sure reads, on a scene of real artwork: two cards of
a tight fan that neither the finder nor the proposer gives a readable pair are read
there, and only there.

The scene is scene 74 of the choosing set's seed 502: a Dondorf deck from Debian's
aisleriot package (a training deck: this checks the mechanism, not unseen designs).
Which cards lie where is the renderer's truth, not the recognizer's.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hwsim.camera.artwork import TRAINING_DECKS, ArtworkDeck
from hwsim.camera.dataset import generate_scenes
from hwsim.camera.render import RenderedScene

from tests.vision.model_copies import model_copy
from tests.vision.real_scenes import corpus_with
from vision.detection import Detection
from vision.layout import layout_from_dict
from vision.recognizer import Recognizer

DECK = "aisleriot-dondorf"
FOUND_ONE_STEP_ON = {"7S", "JC"}
MATCH_RADIUS = 0.25  # card widths, as the benchmarks match a read to a visible corner


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> RenderedScene:
    assert DECK in TRAINING_DECKS
    corpus: Path = corpus_with(tmp_path_factory, [DECK])
    return next(generate_scenes(1, 502, [ArtworkDeck.named(DECK, corpus)], start=74))


def _read_right(scene: RenderedScene, detections: list[Detection]) -> set[str]:
    reach = MATCH_RADIUS * scene.card_width
    return {truth.card for truth in scene.truth for d in detections
            if d.card == truth.card
            and any(math.hypot(d.x - x, d.y - y) <= reach for x, y in truth.index_points)}


def test_cards_missed_by_the_finder_and_proposer_are_read_one_fan_step_on(
        scene: RenderedScene, tmp_path: Path) -> None:
    visible = {truth.card for truth in scene.truth if truth.index_points}
    assert FOUND_ONE_STEP_ON <= visible
    layout = layout_from_dict(scene.layout)
    shipped = Recognizer()
    without = Recognizer(model_copy(tmp_path, fan_steps=False))
    assert shipped.fan_steps and not without.fan_steps
    with_steps = shipped.detect(scene.image, layout)
    read_without = _read_right(scene, without.detect(scene.image, layout))
    read_with = _read_right(scene, with_steps)
    assert not FOUND_ONE_STEP_ON & read_without
    assert FOUND_ONE_STEP_ON <= read_with
    assert read_without <= read_with  # nothing read before is lost
    # Every card read is a card of the scene, at one of its visible corners.
    assert {d.card for d in with_steps} == read_with
