"""Scenes of real deck artwork: the decks' index corners, the held-out split, the truth."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hwsim.camera import artwork, dataset
from hwsim.camera.artwork import (
    DESIGN_FAMILIES,
    HELD_OUT_DECKS,
    NOT_TRAINED_DECKS,
    TRAINING_DECKS,
    ArtworkDeck,
    deck_index_boxes,
)
from hwsim.camera.deck_corpus import LEFT_OUT, ensure_corpus
from hwsim.camera.faces import card_geometry, design_named, glyph_boxes, render_back, render_card
from hwsim.camera.render import SceneSpec, render_scene

RANKS = "A23456789TJQK"
SUITS = "SHDC"
# Two kept decks of different families and index styles: a classic corner index, and
# a large rounded index over a large pip.
DECKS = ("kde-standard", "aisleriot-tango")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    try:
        ensure_corpus(folder, decks=DECKS, install=False)
    except RuntimeError as error:  # the Debian card packages are not installed
        pytest.skip(str(error))
    return folder


def test_held_out_decks_are_apart_from_training_and_kept() -> None:
    assert len(HELD_OUT_DECKS) >= 6
    assert not set(HELD_OUT_DECKS) & set(TRAINING_DECKS)
    for name in (*HELD_OUT_DECKS, *TRAINING_DECKS):
        assert name not in LEFT_OUT, name
        assert "bellot" not in name.lower()
    # Decks of one design family stay on one side: Nicu's white and ornamental decks,
    # Tigullio's two packagings.
    for family in ("nicu", "tigullio", "oxygen", "anglo", "tango"):
        sides = {name in HELD_OUT_DECKS for name in (*HELD_OUT_DECKS, *TRAINING_DECKS)
                 if family in name}
        assert len(sides) <= 1, family


def test_no_design_family_is_split_between_training_and_held_out() -> None:
    known = {*TRAINING_DECKS, *HELD_OUT_DECKS, *NOT_TRAINED_DECKS, *LEFT_OUT}
    for family, members in DESIGN_FAMILIES.items():
        assert set(members) <= known, family
        trained = set(members) & set(TRAINING_DECKS)
        held = set(members) & set(HELD_OUT_DECKS)
        assert not (trained and held), (family, trained, held)
    # The decks built on orell's source say why they may not be trained on.
    for name in ("aisleriot-berlin", "aisleriot-lattmann", "aisleriot-rheinland",
                 "aisleriot-tarocco"):
        assert "aisleriot-orell (held out)" in LEFT_OUT[name], name


def test_groups_name_the_real_decks() -> None:
    with pytest.raises(ValueError, match="corpus"):
        dataset.resolve_designs(["no-such-deck"])


@pytest.mark.parametrize("deck", DECKS)
def test_every_card_has_its_index_found_in_the_top_left_corner(corpus: Path, deck: str) -> None:
    boxes = deck_index_boxes(corpus / deck)
    assert sorted(boxes) == sorted(r + s for r in RANKS for s in SUITS)
    for card, found in boxes.items():
        assert found.found, card
        rx0, ry0, rx1, ry1 = found.rank
        sx0, sy0, sx1, sy1 = found.suit
        # An index lies in the card's top-left corner: rank above the suit pip.
        assert rx1 < 0.35 and sx1 < 0.35 and sy1 < 0.45, card
        assert ry1 <= sy0 + 0.02, card
        assert min(rx1, sx1) > max(rx0, sx0), card  # they overlap across the card


@pytest.mark.parametrize("deck", DECKS)
def test_ten_is_two_glyphs_wide(corpus: Path, deck: str) -> None:
    boxes = deck_index_boxes(corpus / deck)
    for suit in SUITS:
        ten, nine = boxes["T" + suit].rank, boxes["9" + suit].rank
        assert ten[2] - ten[0] > 1.3 * (nine[2] - nine[0]), suit


def test_cards_backs_and_the_bottom_corner(corpus: Path) -> None:
    deck = ArtworkDeck.named("kde-standard", corpus)
    face = render_card("QH", deck, 100)
    assert face.shape == (140, 100, 4)
    assert face[0, 0, 3] < 128 and face[70, 50, 3] == 255  # rounded corner, solid middle
    (rank, suit), (rank_turned, _) = glyph_boxes(deck, 100, "QH")
    # The bottom-right index is the top-left one turned half a turn about the centre.
    assert rank_turned == pytest.approx((100 - rank[2], 140 - rank[3], 100 - rank[0],
                                         140 - rank[1]))
    region = face[int(suit[1]):int(suit[3]) + 1, int(suit[0]):int(suit[2]) + 1, :3]
    red = (region[:, :, 2].astype(int) - region[:, :, :2].max(axis=2)) > 80
    assert red.mean() > 0.15  # the heart pip is red ink
    assert render_back(deck, 100).shape == (140, 100, 4)
    geometry = card_geometry(deck, 100)
    assert geometry.top_left[0] <= rank[0] and geometry.top_left[3] >= suit[3]


def test_a_scene_of_real_artwork_puts_truth_on_index_ink(corpus: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(artwork.CORPUS_ENV, str(corpus))
    deck = design_named("aisleriot-tango")
    spec = SceneSpec(boxes={"box1": ["TS", "4H"], "box2": ["KD", "AC", "7S"]}, dealer=["QC"],
                     card_width=120, felt_print=False)
    scene = render_scene(spec, deck, seed=3)
    points = [p for t in scene.truth for p in t.index_points]
    assert len(points) >= 6  # every card shows at least one corner
    grey = scene.image.min(axis=2)
    for x, y in points:
        window = grey[int(y) - 8:int(y) + 9, int(x) - 8:int(x) + 9]
        assert (window < 120).mean() > 0.05, (x, y)  # ink of the index under the point
        assert (window > 180).mean() > 0.2, (x, y)  # on card stock
    assert np.unique(scene.image.reshape(-1, 3), axis=0).shape[0] > 1000


def test_a_back_showing_card_faces_is_not_dealt_face_down(tmp_path: Path) -> None:
    folder = tmp_path / "kde-nicu-white"
    folder.mkdir()
    back = np.full((140, 100, 4), 255, np.uint8)
    import cv2

    for name in ("AS", "back"):
        cv2.imwrite(str(folder / f"{name}.png"), back)
    deck = ArtworkDeck.named("kde-nicu-white", tmp_path)
    assert artwork.artwork_back(deck, 100) is None  # its back shows four aces
    from hwsim.camera import cards
    from hwsim.camera.designs import DESIGNS
    from hwsim.camera.faces import PLAIN_BACK_DESIGN

    drawn = cards.render_back(DESIGNS[PLAIN_BACK_DESIGN], 100)
    assert np.array_equal(render_back(deck, 100), drawn)


def test_a_deck_whose_index_the_finder_cannot_see_takes_the_boxes_it_records_as_drawn(
        tmp_path: Path) -> None:
    import json

    import cv2

    blank = np.full((360, 250, 4), 255, np.uint8)  # cards with no print the finder could see
    cards = [r + s for r in RANKS for s in SUITS]
    for folder in (tmp_path / "recorded", tmp_path / "bare"):
        folder.mkdir()
        for card in cards:
            cv2.imwrite(str(folder / f"{card}.png"), blank)
    drawn = {card: {"rank": [0.06, 0.05, 0.17, 0.18], "suit": [0.06, 0.21, 0.14, 0.28]}
             for card in cards}
    (tmp_path / "recorded" / "deck.json").write_text(json.dumps({"index_boxes": drawn}))
    boxes = deck_index_boxes(tmp_path / "recorded")
    assert sorted(boxes) == sorted(cards)
    assert boxes["QH"].rank == (0.06, 0.05, 0.17, 0.18)
    assert boxes["QH"].suit == (0.06, 0.21, 0.14, 0.28)
    with pytest.raises(ValueError, match="no index corner found on any card"):
        deck_index_boxes(tmp_path / "bare")
    # A record missing a card is no record: the deck is refused as before.
    del drawn["7C"]
    (tmp_path / "bare" / "deck.json").write_text(json.dumps({"index_boxes": drawn}))
    deck_index_boxes.cache_clear()
    with pytest.raises(ValueError, match="no index corner found on any card"):
        deck_index_boxes(tmp_path / "bare")
