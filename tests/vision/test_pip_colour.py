"""A read whose suit is of the other colour than the ink of its pip or rank is not sure.

The measure is checked on drawn crops whose colours are worked out by hand, then
on real deck artwork the networks never saw: every corner read right keeps its
read, and a frame with its colour taken out yields no red card.
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from hwsim.camera.artwork import ArtworkDeck
from hwsim.camera.deck_corpus import ensure_corpus
from hwsim.camera.render import SceneSpec, render_scene

from tests.vision.model_copies import model_copy
from vision.features import CROP_H, CROP_W, cut_all
from vision.pip_colour import (
    BLACK,
    NOT_KNOWN,
    PIP_COLS,
    PIP_ROWS,
    RANK_COLS,
    RANK_ROWS,
    RED,
    contradicted,
    pip_colour,
    rank_colour,
)
from vision.recognizer import ModelError, Recognizer

PAPER = (235, 235, 235)


def _crop(pip: tuple[int, int, int], paper: tuple[int, int, int] = PAPER,
          rank: tuple[int, int, int] | None = None) -> np.ndarray:
    """An upright crop of card stock with a pip (and a rank glyph) of the given B, G, R
    in their places, clear of their windows' edges."""
    crop = np.empty((CROP_H, CROP_W, 3), np.uint8)
    crop[:] = paper
    crop[PIP_ROWS.start + 3:PIP_ROWS.stop - 3, PIP_COLS.start + 3:PIP_COLS.stop - 3] = pip
    if rank is not None:
        crop[RANK_ROWS.start + 3:RANK_ROWS.stop - 3, RANK_COLS.start + 5:RANK_COLS.stop - 5] = rank
    return crop


def _lit(colour: tuple[int, int, int], light: tuple[float, float, float]) -> tuple[int, int, int]:
    b, g, r = (min(255, round(c * k)) for c, k in zip(colour, light, strict=True))
    return b, g, r


def test_red_and_black_print_on_white_stock() -> None:
    assert pip_colour(_crop((40, 40, 200))) == RED
    assert pip_colour(_crop((25, 25, 25))) == BLACK


@pytest.mark.parametrize("light", [(0.6, 0.8, 1.0), (1.0, 0.85, 0.6)],
                         ids=["warm", "cold"])
def test_the_light_colour_does_not_change_the_print_colour(
        light: tuple[float, float, float]) -> None:
    # Warm light makes black ink (25, 25, 25) come out (15, 20, 25): redder than it is
    # green or blue, but no redder than the stock around it.
    paper = _lit(PAPER, light)
    assert pip_colour(_crop(_lit((25, 25, 25), light), paper)) == BLACK
    assert pip_colour(_crop(_lit((40, 40, 200), light), paper)) == RED


def test_a_pale_pip_or_felt_tells_no_colour() -> None:
    assert pip_colour(_crop((205, 205, 235))) == NOT_KNOWN  # blurred pink: neither print
    assert pip_colour(_crop((60, 120, 20))) == NOT_KNOWN  # green felt in the pip's place


def test_only_reads_of_the_other_colour_are_contradicted() -> None:
    crops = np.stack([_crop((40, 40, 200)), _crop((40, 40, 200)), _crop((25, 25, 25)),
                      _crop((25, 25, 25)), _crop((205, 205, 235))])
    verdict = contradicted(crops, ["H", "S", "C", "D", "S"])
    assert verdict.tolist() == [False, True, False, True, False]


def test_the_rank_glyph_is_judged_like_the_pip() -> None:
    red, black, pale = (40, 40, 200), (25, 25, 25), (205, 205, 235)
    assert rank_colour(_crop(pale, rank=red)) == RED
    assert rank_colour(_crop(pale, rank=black)) == BLACK
    assert rank_colour(_crop(pale)) == NOT_KNOWN
    # A black rank over a red pip is no index of one card, whatever suit it is read as;
    # a red rank over a pip too pale to tell still says the suit is red.
    crops = np.stack([_crop(red, rank=black), _crop(red, rank=black), _crop(pale, rank=red),
                      _crop(pale, rank=red), _crop(red, rank=red)])
    verdict = contradicted(crops, ["H", "S", "S", "D", "D"])
    assert verdict.tolist() == [True, True, True, False, False]


def test_an_unknown_pip_colour_rule_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="pip_colour 'maybe' is none of check, off"):
        Recognizer(model_copy(tmp_path, pip_colour="maybe"))


DECK = "kde-nicu-white"  # held out of training and of tuning this measure
HANDS = {"box1": ["TH", "4C"], "box2": ["KS", "AD", "7H"], "box3": ["QC", "9D"],
         "box4": ["2S", "8C", "5H"], "box5": ["JD", "3S"]}


@pytest.fixture(scope="module")
def scene_image(tmp_path_factory: pytest.TempPathFactory) -> tuple[np.ndarray, list, float]:
    folder = tmp_path_factory.mktemp("corpus")
    try:
        ensure_corpus(folder, decks=(DECK,))
    except RuntimeError as error:  # the Debian card packages are missing
        pytest.skip(str(error))
    scene = render_scene(SceneSpec(boxes=HANDS, dealer=["6S", "KD"], card_width=120,
                                   felt_print=False), ArtworkDeck.named(DECK, folder), 3)
    return scene.image, scene.truth, float(scene.card_width)


def test_real_corners_read_right_keep_their_colour(
        scene_image: tuple[np.ndarray, list, float], tmp_path: Path) -> None:
    image, truth, card_width = scene_image
    # Every pass of the finder: its many cuts of each corner are what the shares count.
    unchecked = Recognizer(model_copy(tmp_path, pip_colour="off", lean_finder=False))
    right = []
    for read in unchecked.read_candidates(image):
        near = [t.card for t in truth if t.index_points and min(
            math.dist((read.x, read.y), p) for p in t.index_points) <= 0.25 * card_width]
        if read.card in near:
            right.append(read)
    assert len(right) >= 20
    half = np.array([[r.down[0] * r.scale / 2, r.down[1] * r.scale / 2] for r in right])
    middle = np.array([[r.x, r.y] for r in right])
    crops = cut_all(image, middle - half, middle + half)
    expected = [RED if r.card[1] in "HD" else BLACK for r in right]
    # On the training decks' scenes 85% of the pips and 70% of the rank glyphs tell.
    for measure, share in ((pip_colour, 0.75), (rank_colour, 0.6)):
        colours = [measure(c) for c in crops]
        known = [(c, e, r.card) for c, e, r in zip(colours, expected, right, strict=True)
                 if c != NOT_KNOWN]
        assert len(known) >= share * len(right), measure.__name__
        assert all(c == e for c, e, _ in known), [(c, card) for c, e, card in known if c != e]
    assert not contradicted(crops, [r.card[1] for r in right]).any()


def test_in_a_frame_without_colour_red_reads_are_overruled_and_black_ones_kept(
        scene_image: tuple[np.ndarray, list, float], tmp_path: Path) -> None:
    grey = cv2.cvtColor(cv2.cvtColor(scene_image[0], cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    unchecked_reader = Recognizer(model_copy(tmp_path, pip_colour="off"))
    unchecked = [r.card for r in unchecked_reader.read_candidates(grey)]
    checked = [r.card for r in Recognizer().read_candidates(grey)]
    red_unchecked = [card for card in unchecked if card[1] in "HD"]
    red_checked = [card for card in checked if card[1] in "HD"]
    # The networks alone still name grey pips hearts by their shape; every such pip whose
    # ink shows (not too pale, clear of other print) is found black.
    assert len(red_unchecked) >= 4, unchecked
    assert len(red_checked) <= len(red_unchecked) // 2, (red_unchecked, red_checked)
    assert sorted(c for c in checked if c[1] in "SC") == sorted(
        c for c in unchecked if c[1] in "SC")
    _cards, unknown = Recognizer().detect_all(grey)
    assert "ink colour" in {d.reason for d in unknown}
