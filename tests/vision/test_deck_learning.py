"""A house deck learnt from play, on real artwork the networks never trained on.

Scenes of a held-out deck are drawn; every visible index corner is named by
its card, as a shoe names the cards it deals. The deck learnt from them must
read fresh scenes of the same deck, and bad input must be refused with a
message that says what is wrong.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hwsim.camera.artwork import HELD_OUT_DECKS, ArtworkDeck

from tests.vision.real_scenes import corpus_with, deals, score_reads
from tests.vision.real_scenes import dealt_scene as _scene
from tests.vision.real_scenes import index_corners as _corners
from vision.deck_learning import DeckLearner
from vision.house_deck import CARDS
from vision.layout import layout_from_dict
from vision.recognizer import Recognizer

DECK = "aisleriot-simplistic"
RADIUS = 0.12  # card widths


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> ArtworkDeck:
    return ArtworkDeck.named(DECK, corpus_with(tmp_path_factory, [DECK]))


def _learnt(deck: ArtworkDeck, recognizer: Recognizer,
            leave_out: tuple[str, ...] = ()) -> DeckLearner:
    """Every card but those left out dealt in three scenes, each time at another place."""
    learner = DeckLearner(recognizer, "test")
    for cards, seed in deals([card for card in CARDS if card not in leave_out], 3):
        scene = _scene(deck, cards, seed)
        learner.add(scene.image, _corners(scene), RADIUS * scene.card_width)
    return learner


def test_the_deck_here_is_held_out_of_training() -> None:
    assert DECK in HELD_OUT_DECKS


def test_a_deck_learnt_from_play_reads_fresh_scenes_of_it(deck: ArtworkDeck) -> None:
    recognizer = Recognizer()
    learner = _learnt(deck, recognizer)
    assert learner.missing() == [], learner.counts()
    house = learner.house_deck()
    assert house.cards == list(CARDS)
    assert house.model == recognizer.verifier_id
    reader = Recognizer(house_deck=house)
    scenes = [_scene(deck, list(cards), 900 + seed)
              for seed, cards in enumerate((CARDS[3:14], CARDS[20:31], CARDS[40:51]))]
    right, visible, wrong = score_reads(reader, scenes)
    assert visible >= 30
    assert wrong == []
    assert right >= math.ceil(0.9 * visible), f"{right} of {visible} read"


def test_a_card_the_shoe_names_is_learnt_as_that_card_even_where_misread(
        deck: ArtworkDeck) -> None:
    """The learnt deck takes the shoe's word: the corners of the queen of hearts named
    "KH" are exemplars of the king, never of the queen."""
    recognizer = Recognizer()
    learner = DeckLearner(recognizer, "test")
    scene = _scene(deck, ["QH", "4C", "7D", "9S", "2H", "JC", "5S", "8H", "AD"], 3)
    named = [("KH" if card == "QH" else card, x, y) for card, x, y in _corners(scene)]
    assert learner.add(scene.image, named, RADIUS * scene.card_width) > 0
    counts = learner.counts()
    assert counts["QH"] == 0 and counts["KH"] >= 1
    assert counts["4C"] >= 1 and counts["AS"] == 0
    assert "AS" in learner.missing() and "KH" in learner.missing(at_least=counts["KH"] + 1)


def test_a_card_not_learnt_yet_is_read_by_the_networks(deck: ArtworkDeck) -> None:
    recognizer = Recognizer()
    learner = _learnt(deck, recognizer, leave_out=("7C", "JD"))
    assert set(learner.missing(at_least=1)) == {"7C", "JD"}
    scene = _scene(deck, ["7C", "3H", "JD", "6S", "TD"], 11)
    cold = {d.card for d in Recognizer().detect(scene.image, layout_from_dict(scene.layout))}
    learnt = {d.card for d in Recognizer(house_deck=learner.house_deck()).detect(
        scene.image, layout_from_dict(scene.layout))}
    assert {"7C", "JD"} <= cold  # the networks alone read both
    # The two cards the deck lacks are read all the same, by the networks.
    assert {"7C", "JD"} <= learnt, learnt


def test_bad_input_is_refused_with_what_is_wrong(deck: ArtworkDeck) -> None:
    learner = DeckLearner(Recognizer(), "test")
    scene = _scene(deck, ["QH", "4C"], 5)
    with pytest.raises(ValueError, match="nothing learnt yet"):
        learner.house_deck()
    with pytest.raises(ValueError, match="unknown card 'ZZ'"):
        learner.add(scene.image, [("ZZ", 10.0, 10.0)], 12.0)
    with pytest.raises(ValueError, match="radius"):
        learner.add(scene.image, _corners(scene), 0.0)
    with pytest.raises(ValueError, match="BGR uint8 frame"):
        learner.add(np.zeros((720, 1280), np.uint8), _corners(scene), 12.0)
    with pytest.raises(ValueError, match="max_exemplars"):
        DeckLearner(Recognizer(), max_exemplars=0)
    assert learner.add(scene.image, [], 12.0) == 0
    assert sum(learner.counts().values()) == 0


def test_a_card_keeps_at_most_its_cap_of_exemplars(deck: ArtworkDeck) -> None:
    learner = DeckLearner(Recognizer(), "test", max_exemplars=2)
    for seed in range(3):
        scene = _scene(deck, ["9D", "5C"], seed)
        learner.add(scene.image, _corners(scene), RADIUS * scene.card_width)
    assert learner.counts()["9D"] == 2 and learner.counts()["5C"] == 2


def test_a_learnt_deck_file_says_so(deck: ArtworkDeck, tmp_path: Path) -> None:
    from vision.house_deck import load_house_deck

    recognizer = Recognizer()
    learner = DeckLearner(recognizer, "table 4")
    scene = _scene(deck, ["QH", "4C", "7D"], 7)
    learner.add(scene.image, _corners(scene), RADIUS * scene.card_width)
    path = learner.house_deck().save(tmp_path / "learnt.npz")
    loaded = load_house_deck(path, recognizer.verifier_id)
    assert loaded.name == "table 4" and loaded.extra["learnt_from_play"] is True
    assert set(loaded.cards) == {"QH", "4C", "7D"}
