"""The daemon learning the house deck from play, on a held-out deck of real artwork.

The scenes deal every card of `aisleriot-simplistic` (never trained or tuned on)
at changing places; the shoe's word for each visible corner is what the fusion
would confirm. The camera thread's part (`after_frame`) runs on the frames with
the networks' own reads of them, as the camera feed calls it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hwsim.camera.artwork import ArtworkDeck
from hwsim.camera.render import RenderedScene

from table.machine import Table
from table.profiles import load_profile
from tablectl.house_deck_learning import (
    REFRESH_EVERY,
    SAVE_EVERY_S,
    STEADY_FRAMES,
    TRIES,
    HouseDeckLearning,
    shoe_places,
)
from tests.vision.real_scenes import corpus_with, deals, dealt_scene, index_corners
from vision.detection import Detection
from vision.house_deck import CARDS, load_house_deck
from vision.layout import layout_from_dict
from vision.recognizer import Recognizer

DECK = "aisleriot-simplistic"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> list[RenderedScene]:
    """Every card dealt four times, each time at another place."""
    deck = ArtworkDeck.named(DECK, corpus_with(tmp_path_factory, [DECK]))
    return [dealt_scene(deck, cards, seed) for cards, seed in deals(CARDS, 4)]


def _play(learning: HouseDeckLearning, scenes: list[RenderedScene]) -> Iterator[dict]:
    """Each scene confirmed corner by corner, then its frame; the status after each."""
    reader = Recognizer()  # the frame's reads, as the camera feed passes them on
    for scene in scenes:
        for card, x, y in index_corners(scene):
            learning.confirm(card, x, y)
        learning.after_frame(scene.image, reader.detect(scene.image))
        yield learning.status()


def _learn_all(learning: HouseDeckLearning, scenes: list[RenderedScene]) -> list[int]:
    progress = []
    for status in _play(learning, scenes):
        progress.append(status["cards_learnt"])
        if status["state"] == "in use":
            break
    return progress


def test_play_teaches_the_whole_deck_then_it_is_read_and_written(
        scenes: list[RenderedScene], tmp_path: Path) -> None:
    recognizer = Recognizer()
    path = tmp_path / "decks" / "house-deck.npz"
    learning = HouseDeckLearning(recognizer, path)
    assert learning.status() == {
        "state": "learning", "from": None, "cards_learnt": 0, "cards": 52, "exemplars": 0,
        "exemplars_per_card": {}, "missing": list(CARDS), "look_alikes": [], "path": str(path),
        "saved": False, "problem": None}
    progress = _learn_all(learning, scenes)
    assert progress == sorted(progress) and progress[-1] == 52
    status = learning.status()
    assert status["state"] == "in use" and status["from"] == "learnt"
    assert status["saved"] and status["missing"] == []
    assert recognizer.house_deck is not None and set(recognizer.house_deck.cards) == set(CARDS)
    saved = load_house_deck(path, recognizer.verifier_id)
    assert saved.extra["learnt_from_play"] is True and set(saved.cards) == set(CARDS)
    assert saved.extra["look_alikes"] == []  # nothing was eliminated: no misread seen
    # A daemon started again reads the deck of the file, without learning it again.
    again = HouseDeckLearning(Recognizer(), path)
    assert again.status()["state"] == "in use" and again.status()["from"] == "file"
    assert again.status()["saved"]


def test_only_a_card_the_networks_read_where_the_shoe_put_it_is_learnt(
        scenes: list[RenderedScene], tmp_path: Path) -> None:
    recognizer = Recognizer()
    learning = HouseDeckLearning(recognizer, tmp_path / "deck.npz")
    scene = scenes[0]
    corners = index_corners(scene)
    named = {card for card, _, _ in corners}
    wrong = next(card for card in CARDS if card not in named)
    # The shoe's card for every corner but one, which the shoe says is another card.
    card, x, y = corners[0]
    learning.confirm(wrong, x, y)
    for other in corners[1:]:
        if other[0] != card:
            learning.confirm(*other)
    reads = Recognizer().detect(scene.image)
    learning.after_frame(scene.image, reads)
    counts = learning._learner.counts()
    assert counts[wrong] == 0  # the networks read `card` there: no agreement, not learnt
    assert counts[card] == 0  # never confirmed
    learnt = {c for c, n in counts.items() if n}
    assert learnt and learnt <= {d.card for d in reads} & named


def test_a_confirmed_card_not_read_is_looked_for_a_few_frames_then_let_go(
        scenes: list[RenderedScene], tmp_path: Path) -> None:
    learning = HouseDeckLearning(Recognizer(), tmp_path / "deck.npz")
    scene = scenes[0]
    learning.confirm("AS", 5.0, 5.0)  # nothing lies there
    for _ in range(TRIES):
        assert len(learning._pending) == 1
        learning.after_frame(scene.image, [])
    assert len(learning._pending) == 0
    assert sum(learning._learner.counts().values()) == 0


def test_the_pit_restarts_learning_for_a_new_deck(scenes: list[RenderedScene],
                                                  tmp_path: Path) -> None:
    recognizer = Recognizer()
    path = tmp_path / "house-deck.npz"
    learning = HouseDeckLearning(recognizer, path)
    _learn_all(learning, scenes)
    assert recognizer.house_deck is not None
    written = path.stat().st_mtime_ns
    learning.restart()
    assert recognizer.house_deck is None  # the networks read alone again
    status = learning.status()
    assert status["state"] == "learning" and status["cards_learnt"] == 0
    assert status["from"] is None and not status["saved"]
    # The old file stays until the new deck is complete, then is replaced.
    assert path.stat().st_mtime_ns == written
    for status in _play(learning, scenes[:3]):
        assert status["state"] == "learning"
    assert learning.status()["exemplars"] > 0
    assert path.stat().st_mtime_ns == written


def test_a_deck_that_cannot_be_written_is_used_and_written_later(
        scenes: list[RenderedScene], tmp_path: Path) -> None:
    clock = Clock()
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the deck's folder should be")
    path = blocker / "house-deck.npz"
    recognizer = Recognizer()
    learning = HouseDeckLearning(recognizer, path, clock=clock)
    _learn_all(learning, scenes)
    status = learning.status()
    assert status["state"] == "in use" and not status["saved"]
    assert "could not be written" in status["problem"] and str(path) in status["problem"]
    assert recognizer.house_deck is not None  # in use all the same
    blocker.unlink()
    blocker.mkdir()
    learning.after_frame(scenes[0].image, [])
    assert not path.exists()  # not before the retry is due
    clock.now += 61.0
    learning.after_frame(scenes[0].image, [])
    assert path.exists() and learning.status()["saved"]
    assert learning.status()["problem"] is None
    assert list(blocker.iterdir()) == [path]  # no partial file left behind


def test_a_saved_deck_that_no_longer_fits_is_learnt_again(tmp_path: Path) -> None:
    path = tmp_path / "house-deck.npz"
    path.write_bytes(b"not a deck at all")
    recognizer = Recognizer()
    learning = HouseDeckLearning(recognizer, path)
    status = learning.status()
    assert status["state"] == "learning" and recognizer.house_deck is None
    assert "cannot be used" in status["problem"] and "learning a new one" in status["problem"]


# -- by elimination ------------------------------------------------------------------------


def _box_of_two(scene: RenderedScene) -> tuple[str, str, str, Detection]:
    """A box of the scene holding two cards, both read: (box, first, second, the
    detection of the second)."""
    reads = Recognizer().detect(scene.image, layout_from_dict(scene.layout))
    for truth in scene.truth:
        pair = [t.card for t in scene.truth if t.box == truth.box]
        found = {d.card: d for d in reads if d.box == truth.box}
        if len(pair) == 2 and set(pair) <= set(found):
            return truth.box, pair[0], pair[1], found[pair[1]]
    raise AssertionError("no box of two cards read")


def _frames(learning: HouseDeckLearning, scene: RenderedScene, reads: list[Detection],
            unknown: list[Detection], count: int) -> None:
    for _ in range(count):
        learning.after_frame(scene.image, reads, unknown)


def _as(detection: Detection, card: str) -> Detection:
    return dataclasses.replace(detection, card=card)


@pytest.mark.parametrize("seen_as", ["??", "5H"])
def test_the_one_card_of_a_box_not_read_is_learnt_from_the_one_stray_corner(
        scenes: list[RenderedScene], tmp_path: Path, seen_as: str) -> None:
    """The box's second card is seen as unknown, or misread as a card the shoe dealt
    nowhere: it is the card the shoe dealt there that the camera has not read."""
    scene = scenes[0]
    box, first, second, detection = _box_of_two(scene)
    assert "5H" not in {t.card for t in scene.truth}
    places = {box: ((first, second), (second,))}
    learning = HouseDeckLearning(Recognizer(), tmp_path / "deck.npz", places=lambda: places)
    stray = _as(detection, seen_as)
    reads, unknown = ([], [stray]) if seen_as == "??" else ([stray], [])
    _frames(learning, scene, reads, unknown, STEADY_FRAMES - 1)
    assert learning.status()["exemplars"] == 0  # not steady yet
    _frames(learning, scene, reads, unknown, 1)
    learnt = learning.status()["exemplars_per_card"]
    assert set(learnt) == {second} and learnt[second] >= 1
    _frames(learning, scene, reads, unknown, 2 * STEADY_FRAMES)
    assert learning.status()["exemplars_per_card"] == learnt  # a corner is learnt once


@pytest.mark.parametrize("case", ["read as a card dealt elsewhere", "two strays",
                                  "two cards not read", "a gap in the frames"])
def test_no_corner_is_named_where_elimination_is_not_sure(
        scenes: list[RenderedScene], tmp_path: Path, case: str) -> None:
    scene = scenes[0]
    box, first, second, detection = _box_of_two(scene)
    elsewhere = next(t for t in scene.truth if t.box != box)
    places: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
        box: ((first, second), (second,)),
        elsewhere.box: ((elsewhere.card,), (elsewhere.card,))}
    stray = _as(detection, "??")
    unknown = [stray]
    if case == "read as a card dealt elsewhere":  # maybe that card, moved here
        places[elsewhere.box] = ((elsewhere.card,), ())
        unknown = [_as(detection, elsewhere.card)]
    elif case == "two strays":
        unknown = [stray, dataclasses.replace(stray, x=stray.x + 60.0)]
    elif case == "two cards not read":
        places[box] = ((first, second), (first, second))
    learning = HouseDeckLearning(Recognizer(), tmp_path / "deck.npz", places=lambda: places)
    if case == "a gap in the frames":
        _frames(learning, scene, [], unknown, STEADY_FRAMES - 1)
        _frames(learning, scene, [], [], 1)  # the corner hidden for a frame
        _frames(learning, scene, [], unknown, STEADY_FRAMES - 1)
    else:
        _frames(learning, scene, [], unknown, 2 * STEADY_FRAMES)
    assert learning.status()["exemplars"] == 0


def test_the_places_are_the_shoes_cards_less_those_the_camera_read_there() -> None:
    """Worked out by hand: box 1 and box 3 bet; the shoe deals 9S (box 1), 4D (box 3),
    KC (dealer), 9S (box 1, a second copy), 7H (box 3). The camera has read one 9S and
    the 7H where they lie, and a KC in box 3 (no card of box 3: not counted there)."""
    table = Table(load_profile("casinos-austria"))
    events: list[dict[str, Any]] = [
        {"bet": {"box": 1, "amount": 100}}, {"bet": {"box": 3, "amount": 100}}, {"deal": {}},
        {"card": "9S"}, {"card": "4D"}, {"card": "KC"}, {"card": "9S"}, {"card": "7H"}]
    for event in events:
        assert table.apply(event).accepted, event
    view = table.view()
    matched = (view.round, ((1, "9S"), (3, "7H"), (3, "KC")))
    assert shoe_places(view, matched) == {
        "box1": (("9S", "9S"), ("9S",)),
        "box3": (("4D", "7H"), ("4D",)),
        "dealer": (("KC",), ("KC",)),
    }
    # Matches of another round count for nothing.
    assert shoe_places(view, (view.round - 1, matched[1]))["box1"] == (("9S", "9S"),
                                                                       ("9S", "9S"))
    assert shoe_places(Table(load_profile("casinos-austria")).view(), (None, ())) == {}


def test_learning_goes_on_with_the_deck_in_use_and_the_file_follows(
        scenes: list[RenderedScene], tmp_path: Path) -> None:
    clock = Clock()
    recognizer = Recognizer()
    path = tmp_path / "house-deck.npz"
    learning = HouseDeckLearning(recognizer, path, clock=clock)
    progress = _learn_all(learning, scenes)
    first = recognizer.house_deck
    assert first is not None and path.exists()
    written = len(load_house_deck(path).labels)
    assert written == len(first.labels)
    # The last turn of dealing again: its corners are learnt into the deck in use.
    for status in _play(learning, scenes[len(progress):] or scenes[-5:]):
        assert status["state"] == "in use"
    deck = recognizer.house_deck
    assert deck is not first and len(deck.labels) >= len(first.labels) + REFRESH_EVERY
    assert learning.status()["exemplars"] > len(first.labels)
    assert len(load_house_deck(path).labels) == written  # written at most once a minute
    assert not learning.status()["saved"]
    clock.now += SAVE_EVERY_S + 1.0
    learning.after_frame(scenes[0].image, [])
    assert learning.status()["saved"] and recognizer.house_deck is not None
    in_use = len(recognizer.house_deck.labels)
    assert len(load_house_deck(path).labels) == in_use > written
    # A daemon started again goes on from the file's exemplars.
    again = HouseDeckLearning(Recognizer(), path)
    assert again.status()["exemplars"] == in_use
