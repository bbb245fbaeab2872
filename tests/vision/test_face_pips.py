"""The pips on a card's face, counted between its two index corners, on real artwork.

The counts are checked against what every French-suited deck prints (an ace
shows one pip, a nine nine), on Adrian Kennard's public-domain deck (committed
here, never trained on), each card alone in its box so that its whole face
shows.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from hwsim.camera.artwork import ArtworkDeck
from hwsim.camera.render import CardTruth, RenderedScene, SceneSpec, render_scene

from tests.vision.real_scenes import corpus_with
from vision.face_pips import count_face_pips, face_check
from vision.networks import ModelError
from vision.reads import FACE_DISAGREES, UNKNOWN_CARD, _Read
from vision.recognizer import MODEL_FILE, MODEL_INFO, Recognizer

DECK = "cc0-kennard"
NUMBER_CARDS = {"2H": 2, "3D": 3, "4C": 4, "5S": 5, "6H": 6, "7D": 7, "8C": 8, "9S": 9}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> list[RenderedScene]:
    """The cards alone in their boxes, seven to a scene."""
    deck = ArtworkDeck.named(DECK, corpus_with(tmp_path_factory, [DECK]))
    cards = [*NUMBER_CARDS, "AS", "KH"]
    return [render_scene(SceneSpec(boxes={f"box{k + 1}": [card] for k, card in enumerate(part)},
                                   card_width=130, felt_print=False), deck, seed)
            for seed, part in enumerate((cards[:7], cards[7:]), start=3)]


def corner_reads(truth: CardTruth, card: str) -> list[_Read]:
    """Reads of `card` at both of the card's index corners, cut at its true glyphs."""
    reads = []
    for (rank_x, rank_y), (pip_x, pip_y) in truth.index_glyphs:
        scale = math.dist((rank_x, rank_y), (pip_x, pip_y))
        reads.append(_Read(card, (rank_x + pip_x) / 2, (rank_y + pip_y) / 2, 0.99, scale,
                           ((pip_x - rank_x) / scale, (pip_y - rank_y) / scale)))
    return reads


def face_of(scenes: list[RenderedScene], card: str) -> tuple[np.ndarray, list[_Read]]:
    """The picture holding `card`, and reads of it at both its corners."""
    scene, truth = next((s, t) for s in scenes for t in s.truth if t.card == card)
    assert len(truth.index_glyphs) == 2, f"{card}: both corners should show"
    return scene.image, corner_reads(truth, card)


def count(image: np.ndarray, reads: list[_Read]) -> tuple[int, str]:
    face = count_face_pips(image, *reads)
    assert face is not None, "the two corners lie as one card's"
    return face.count, face.reason


@pytest.mark.parametrize("card", sorted(NUMBER_CARDS))
def test_a_number_card_shows_as_many_pips_as_its_rank(scenes: list[RenderedScene],
                                                       card: str) -> None:
    image, reads = face_of(scenes, card)
    assert count(image, reads) == (NUMBER_CARDS[card], "")


def test_a_single_pip_decides_nothing(scenes: list[RenderedScene]) -> None:
    # An ace's, or one printed on every card by a design that shows one large pip.
    image, (first, second) = face_of(scenes, "AS")
    assert count(image, [first, second]) == (1, "one pip")
    misread = _Read("4S", second.x, second.y, 0.99, second.scale, second.down)
    kept, unknown = face_check(image, [first, misread])
    assert len(kept) == 2 and not unknown


def test_a_court_card_is_not_counted(scenes: list[RenderedScene]) -> None:
    image, reads = face_of(scenes, "KH")
    pips, reason = count(image, reads)
    assert reason, f"a king's picture was taken for {pips} pips"


def test_a_chip_over_the_face_stops_the_count(scenes: list[RenderedScene]) -> None:
    image, reads = face_of(scenes, "6H")
    image = image.copy()
    middle = np.mean([(r.x, r.y) for r in reads], axis=0)
    centre = (int(middle[0]), int(middle[1]))
    cv2.circle(image, centre, int(1.2 * reads[0].scale), (40, 40, 40), -1)
    cv2.circle(image, centre, int(0.7 * reads[0].scale), (230, 230, 230), -1)
    assert count(image, reads)[1]


def test_a_corner_misread_against_its_face_becomes_unknown(scenes: list[RenderedScene]) -> None:
    # The 9's other corner read as a 6 (as a corner printed upright, where other
    # decks turn it round, is read): the face shows nine pips, so the 6 goes.
    image, (first, second) = face_of(scenes, "9S")
    misread = _Read("6S", second.x, second.y, 0.999, second.scale, second.down)
    kept, unknown = face_check(image, [first, misread])
    assert [read.card for read in kept] == ["9S"]
    assert [(read.card, read.reason, read.x) for read in unknown] == [
        (UNKNOWN_CARD, FACE_DISAGREES, misread.x)]


def test_a_read_one_pip_off_or_of_a_court_stands(scenes: list[RenderedScene]) -> None:
    # One pip off is what a blurred face may miscount; a ten's crowded pips and a
    # court's picture decide nothing.
    image, (first, second) = face_of(scenes, "8C")
    for card in ("9C", "TC", "KC"):
        other = _Read(card, second.x, second.y, 0.99, second.scale, second.down)
        kept, unknown = face_check(image, [first, other])
        assert len(kept) == 2 and not unknown, card


def test_corners_of_two_suits_are_not_taken_for_one_card(scenes: list[RenderedScene]) -> None:
    image, (first, second) = face_of(scenes, "9S")
    other_suit = _Read("6H", second.x, second.y, 0.99, second.scale, second.down)
    kept, unknown = face_check(image, [first, other_suit])
    assert len(kept) == 2 and not unknown


def test_the_check_is_on_unless_the_settings_switch_it_off(tmp_path: Path) -> None:
    folder = _model_copy(tmp_path, face_pips="off")
    assert Recognizer(folder / MODEL_FILE.name).face_pips == "off"
    assert Recognizer().face_pips == "check"


def test_a_face_pips_setting_of_no_known_rule_is_refused(tmp_path: Path) -> None:
    folder = _model_copy(tmp_path, face_pips="maybe")
    with pytest.raises(ModelError, match="face_pips 'maybe' is none of check, off"):
        Recognizer(folder / MODEL_FILE.name)


def _model_copy(tmp_path: Path, **settings: str) -> Path:
    """The shipped model folder, linked file by file, with its settings changed."""
    folder = tmp_path / "model"
    folder.mkdir()
    for path in MODEL_FILE.parent.iterdir():
        if path.is_file() and path != MODEL_INFO:
            (folder / path.name).symlink_to(path)
    info = json.loads(MODEL_INFO.read_text(encoding="utf-8"))
    (folder / MODEL_INFO.name).write_text(json.dumps({**info, **settings}), encoding="utf-8")
    return folder
