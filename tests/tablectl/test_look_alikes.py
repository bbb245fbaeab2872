"""Misreads the table has seen on its own deck (`tablectl.look_alikes`), learnt where the
daemon names a stray corner by elimination, kept with the learnt deck's file."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tablectl.house_deck_learning import STEADY_FRAMES, HouseDeckLearning
from tablectl.look_alikes import MIN_SIGHTINGS, LookAlikeError, LookAlikes, misread_views
from vision.detection import Detection
from vision.house_deck import CARDS, HouseDeck, load_house_deck
from vision.recognizer import Recognizer

PICTURE = np.full((720, 1280, 3), 60, np.uint8)  # felt: no corner to learn from


def test_a_misread_is_a_look_alike_from_its_second_sighting() -> None:
    look_alikes = LookAlikes()
    assert MIN_SIGHTINGS == 2
    assert look_alikes.record("9D", "6D") is False
    assert look_alikes.pairs() == set()
    assert look_alikes.record("9D", "6D") is True  # this one makes it
    assert look_alikes.record("9D", "6D") is False  # already one
    look_alikes.record("4D", "7D")
    assert look_alikes.pairs() == {("9D", "6D")}  # one way only, and 4D once
    look_alikes.record("4D", "7D")
    assert look_alikes.described() == ["9D read as 6D", "4D read as 7D"]  # most seen first


@pytest.mark.parametrize(("card", "read_as"), [("9D", "9D"), ("9D", "??"), ("1D", "6D"),
                                               ("9D", "")])
def test_what_is_no_misread_of_one_card_as_another_is_not_counted(card: str,
                                                                  read_as: str) -> None:
    look_alikes = LookAlikes()
    for _ in range(3):
        assert look_alikes.record(card, read_as) is False
    assert look_alikes.to_json() == []


def test_a_hand_counts_once() -> None:
    """A card's two corners, or a card switched into a hand, are one sighting."""
    look_alikes = LookAlikes()
    assert look_alikes.record("9D", "6D", ("box1", "9S")) is False
    assert look_alikes.record("9D", "6D", ("box1", "9S")) is False  # the other corner
    assert look_alikes.to_json() == [["9D", "6D", 1]]
    assert look_alikes.record("9D", "6D", ("box1", "KH")) is True  # another round's hand


def test_the_sightings_round_trip_through_json() -> None:
    look_alikes = LookAlikes([("9D", "6D", 3), ("KH", "TH", 1)])
    stored = look_alikes.to_json()
    assert stored == [["9D", "6D", 3], ["KH", "TH", 1]]
    again = LookAlikes.from_json(stored)
    assert again.pairs() == {("9D", "6D")} and again.to_json() == stored


@pytest.mark.parametrize("bad", [{"9D": "6D"}, [["9D", "6D"]], [["9D", "6X", 2]],
                                 [["9D", "6D", 0]], [["9D", "6D", True]],
                                 [["9D", "6D", "2"]], ["9D6D2"]])
def test_a_stored_list_that_is_not_one_is_refused_saying_so(bad: Any) -> None:
    with pytest.raises(LookAlikeError, match="look-alikes"):
        LookAlikes.from_json(bad)


# -- another view of a card read already, misread --------------------------------------------

# Box 2 holds 7S, AH, 7H and 3C, all read; box 5 holds 7D, 2S and 8S, all read; box 1
# holds 9S (read) and 9D (not read yet).
ALL_READ = {"box2": (("7S", "AH", "7H", "3C"), ()), "box5": (("7D", "2S", "8S"), ()),
            "box1": (("9S", "9D"), ("9D",))}


def _corner(card: str, x: float, area: str | None) -> tuple[str, float, float, str | None]:
    return (card, x, 300.0, area)


def test_a_stray_sharing_rank_or_suit_with_one_card_of_its_box_is_a_view_of_it() -> None:
    # 6C: of box 2 only 3C is a club and none is a 6. 4H in box 5: no heart, no 4 there.
    corners = [_corner("3C", 100.0, "box2"), _corner("6C", 140.0, "box2"),
               _corner("7D", 500.0, "box5")]
    assert misread_views(ALL_READ, corners) == [("3C", "6C", 140.0, 300.0)]
    assert misread_views(ALL_READ, [_corner("4H", 500.0, "box5")]) == []
    # A rank shared: 7C would be a view of 7S or 7H in box 2: which one is not known.
    assert misread_views(ALL_READ, [_corner("7C", 140.0, "box2")]) == []
    # QS in box 5: two spades there (2S, 8S): not known either.
    assert misread_views(ALL_READ, [_corner("QS", 500.0, "box5")]) == []
    # 8D in box 5: 8S by rank and 7D by suit: two cards, not known.
    assert misread_views(ALL_READ, [_corner("8D", 500.0, "box5")]) == []


@pytest.mark.parametrize("corners", [
    [("6D", 140.0, 300.0, "box1")],  # box 1 has a card not read: elimination's case
    [("6C", 140.0, 300.0, "box2"), ("??", 180.0, 300.0, "box2")],  # two strays
    [("??", 140.0, 300.0, "box2")],  # unknown: no misread to learn
    [("7D", 140.0, 300.0, "box2")],  # 7D is dealt (to box 5): maybe that card, moved
    [("6C", 140.0, 300.0, None)],  # outside every box
])
def test_no_view_is_named_where_it_is_not_clear(corners: Any) -> None:
    assert misread_views(ALL_READ, corners) == []


def test_a_misread_view_held_for_a_while_is_a_sighting_and_no_exemplar(
        tmp_path: Path) -> None:
    places = dict(ALL_READ)
    learning = HouseDeckLearning(Recognizer(), tmp_path / "deck.npz",
                                 places=lambda: places)
    view = Detection("6C", 140.0, 300.0, 0.9, "box2")
    for _ in range(STEADY_FRAMES - 1):
        learning.after_frame(PICTURE, [view], [])
    assert learning.look_alikes.to_json() == []  # not steady yet
    for _ in range(STEADY_FRAMES):
        learning.after_frame(PICTURE, [view], [])
    assert learning.look_alikes.to_json() == [["3C", "6C", 1]]  # once for that corner
    places["box2"] = (("JD", "3C"), ())  # another round
    for _ in range(STEADY_FRAMES):
        learning.after_frame(PICTURE, [dataclasses.replace(view, x=400.0)], [])
    assert learning.status()["look_alikes"] == ["3C read as 6C"]
    assert learning.status()["exemplars"] == 0


# -- learnt by the daemon ------------------------------------------------------------------

def _stray(card: str, x: float, box: str = "box1") -> Detection:
    return Detection(card, x, 300.0, 0.9, box)


def _eliminate(learning: HouseDeckLearning, stray: Detection) -> None:
    for _ in range(STEADY_FRAMES):
        learning.after_frame(PICTURE, [stray], [])


def test_a_stray_read_as_a_card_named_by_elimination_is_a_sighting(tmp_path: Path) -> None:
    """Box 1 holds 9S (read) and 9D (not read); the one stray there reads 6D, dealt
    nowhere: it is named 9D, and 9D has been seen read as 6D."""
    places = {"box1": (("9S", "9D"), ("9D",))}
    learning = HouseDeckLearning(Recognizer(), tmp_path / "deck.npz", places=lambda: places)
    _eliminate(learning, _stray("6D", 400.0))
    assert learning.look_alikes.to_json() == [["9D", "6D", 1]]
    assert learning.status()["look_alikes"] == []  # once is not yet a look-alike
    _eliminate(learning, _stray("6D", 400.0))  # the same corner: named once only
    _eliminate(learning, _stray("6D", 700.0))  # the card's other corner: the same hand
    assert learning.look_alikes.to_json() == [["9D", "6D", 1]]
    places["box1"] = (("KH", "9D"), ("9D",))  # another round
    _eliminate(learning, _stray("6D", 1000.0))
    assert learning.status()["look_alikes"] == ["9D read as 6D"]
    places["box1"] = (("QC", "9D"), ("9D",))
    _eliminate(learning, _stray("??", 1000.0))  # an unknown corner names no misread
    assert learning.look_alikes.to_json() == [["9D", "6D", 2]]
    learning.restart()
    assert learning.status()["look_alikes"] == [] and learning.look_alikes.to_json() == []


def _deck_file(path: Path, recognizer: Recognizer, look_alikes: Any) -> None:
    rng = np.random.default_rng(0)
    embeddings = rng.normal(size=(3 * len(CARDS), 8)).astype(np.float32)
    embeddings /= np.linalg.norm(embeddings, axis=1, keepdims=True)
    labels = np.repeat(np.arange(len(CARDS)), 3)
    HouseDeck(embeddings, labels, "learnt", recognizer.verifier_id,
              extra={"learnt_from_play": True, "look_alikes": look_alikes}).save(path)


def test_a_daemon_started_again_knows_the_look_alikes_of_its_deck(tmp_path: Path) -> None:
    recognizer = Recognizer()
    path = tmp_path / "deck.npz"
    _deck_file(path, recognizer, [["9D", "6D", 2], ["7D", "4D", 1]])
    learning = HouseDeckLearning(recognizer, path)
    assert learning.status()["state"] == "in use"
    assert learning.look_alikes.pairs() == {("9D", "6D")}
    learning.look_alikes.record("7D", "4D")
    assert learning.look_alikes.pairs() == {("9D", "6D"), ("7D", "4D")}


def test_a_damaged_list_of_look_alikes_keeps_the_deck(tmp_path: Path,
                                                      caplog: pytest.LogCaptureFixture
                                                      ) -> None:
    recognizer = Recognizer()
    path = tmp_path / "deck.npz"
    _deck_file(path, recognizer, [["9D", "6D"]])
    learning = HouseDeckLearning(recognizer, path)
    assert learning.status()["state"] == "in use" and recognizer.house_deck is not None
    assert learning.look_alikes.to_json() == []
    assert "look-alikes" in caplog.text and "learnt again" in caplog.text


def test_the_learnt_deck_is_written_with_its_look_alikes(tmp_path: Path) -> None:
    """A deck refreshed in use is written with the sightings so far."""
    recognizer = Recognizer()
    path = tmp_path / "deck.npz"
    _deck_file(path, recognizer, [])
    places = {"box1": (("9S", "9D"), ("9D",))}
    learning = HouseDeckLearning(recognizer, path, places=lambda: places,
                                 clock=lambda: 5000.0)
    for x, first in ((400.0, "9S"), (700.0, "KH")):  # two rounds
        places["box1"] = ((first, "9D"), ("9D",))
        _eliminate(learning, _stray("6D", x))
    deck = recognizer.house_deck
    assert deck is not None
    learning._use(dataclasses.replace(deck))  # a refresh, as after REFRESH_EVERY exemplars
    learning.after_frame(PICTURE, [])
    assert learning.status()["saved"]
    assert load_house_deck(path).extra["look_alikes"] == [["9D", "6D", 2]]
