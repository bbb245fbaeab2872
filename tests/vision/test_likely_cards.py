"""The other cards a read could be (`Detection.alternatives`), which the witness camera's
doubt weighs (tablectl.witness_doubt)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hwsim.camera.artwork import ArtworkDeck
from hwsim.camera.render import SceneSpec, render_scene

from tests.vision.real_scenes import corpus_with
from vision.reads import likely_cards
from vision.recognizer import Recognizer

DECK = "kde-ancient-egyptians"  # held out of training; its diamonds are often unsure


def _rank(**given: float) -> np.ndarray:
    """Rank probabilities: 13 ranks (A23456789TJQK), then "not an index"."""
    p = np.zeros(14, np.float32)
    for rank, value in given.items():
        p["A23456789TJQKN".index(rank.lstrip("_"))] = value
    return p


def test_the_other_cards_come_likeliest_first_without_the_read() -> None:
    rank_p = _rank(_6=0.6, _9=0.3, N=0.1)
    suit_p = np.array([0.0, 0.1, 0.9, 0.0], np.float32)  # S H D C
    # Cards: 6D 0.54 (the read), 9D 0.27, 6H 0.06, 9H 0.03; "not an index" is no card.
    got = likely_cards(rank_p, suit_p, "6D")
    assert [card for card, _ in got] == ["9D", "6H", "9H"]
    assert [round(p, 4) for _, p in got] == [0.27, 0.06, 0.03]


def test_cards_under_a_thousandth_are_left_out_and_at_most_five_kept() -> None:
    rank_p = _rank(K=0.9995, Q=0.0005)
    suit_p = np.array([1.0, 0.0, 0.0, 0.0], np.float32)
    assert likely_cards(rank_p, suit_p, "KS") == ()
    even = np.full(14, 1 / 14, np.float32)
    assert len(likely_cards(even, np.full(4, 0.25, np.float32), "AS")) == 5
    # An unknown corner ("??") lists its likeliest card too.
    assert likely_cards(rank_p, suit_p, "??")[0][0] == "KS"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return corpus_with(tmp_path_factory, [DECK])


def test_the_recognizer_gives_each_read_its_alternatives(corpus: Path) -> None:
    deck = ArtworkDeck.named(DECK, corpus)
    recognizer = Recognizer()
    reads = unknown = with_alternatives = 0
    for seed in range(4):
        scene = render_scene(SceneSpec(boxes={"box1": ["9D", "6D", "3C"], "box2": ["QS", "TS"],
                                              "box3": ["8H", "5H", "2C"]},
                                       dealer=["7D"], card_width=85), deck, seed)
        found, unsure = recognizer.detect_all(scene.image)
        reads += len(found)
        unknown += len(unsure)
        for detection in [*found, *unsure]:
            cards = [card for card, _ in detection.alternatives]
            chances = [p for _, p in detection.alternatives]
            with_alternatives += bool(cards)
            assert detection.card not in cards and len(set(cards)) == len(cards) <= 5
            assert chances == sorted(chances, reverse=True) and min(chances, default=1) >= 1e-3
            # The read card and its alternatives share one probability distribution.
            if detection.card != "??":
                assert detection.confidence + sum(chances) <= 1.0 + 1e-5
    assert reads >= 20 and with_alternatives >= 1
