"""The simulated camera's truth of one card's index corners: where its rank glyph and
suit pip lie, and how open each corner is under a chip."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hwsim.camera.camera_view import CameraView
from hwsim.camera.cards import glyph_boxes, index_boxes
from hwsim.camera.designs import DESIGNS, TUNING_DESIGNS
from hwsim.camera.plane import CHIP_ID, TablePlane, apply, box_quad, shift
from hwsim.camera.render import CardTruth, _PlacedCard, _truth


@pytest.mark.parametrize("rank", ["A", "T", "Q"])
def test_the_rank_glyph_lies_above_the_suit_pip_inside_the_index(rank: str) -> None:
    design = DESIGNS[TUNING_DESIGNS[0]]
    (rank_box, suit_box), (turned_rank, turned_suit) = glyph_boxes(design, 120, rank)
    index, turned_index = index_boxes(design, 120, rank)
    for glyph, box in ((rank_box, index), (suit_box, index), (turned_rank, turned_index),
                       (turned_suit, turned_index)):
        assert box[0] <= glyph[0] < glyph[2] <= box[2] and box[1] <= glyph[1] < glyph[3] <= box[3]
    assert rank_box[3] <= suit_box[1]  # read downwards: rank, then pip
    assert turned_suit[3] <= turned_rank[1]  # the turned corner: pip above rank


def _one_card_truth(hidden_rows: float) -> CardTruth:
    """The truth of one 120 px card alone on a plane seen straight down, with a chip
    over the bottom `hidden_rows` share of its top-left suit pip."""
    design = DESIGNS[TUNING_DESIGNS[0]]
    plane = TablePlane(np.zeros((400, 400, 3), np.uint8), 0)
    m = shift(100, 50)
    plane.owner[50:50 + 168, 100:220] = 1
    (rank_box, suit_box), turned = glyph_boxes(design, 120, "7")
    x0, y0, x1, y1 = (v + d for v, d in zip(suit_box, (100, 50, 100, 50), strict=True))
    plane.owner[int(round(y1 - hidden_rows * (y1 - y0))):int(y1) + 1,
                int(x0) - 2:int(x1) + 3] = CHIP_ID
    placed = _PlacedCard("7H", "box1", 1,
                         [apply(m, box_quad(b)) for b in index_boxes(design, 120, "7")],
                         [(apply(m, box_quad(r)), apply(m, box_quad(s)))
                          for r, s in ((rank_box, suit_box), turned)])
    return _truth([placed], plane, CameraView(np.eye(3), (400, 400)), (400, 400))[0]


def test_a_corner_whose_suit_pip_is_a_third_covered_is_only_partly_open() -> None:
    # The chip covers a third of the pip: well under a fifth of the whole corner, so the
    # corner alone would count as open; the pip no longer tells its suit.
    covered = _one_card_truth(0.34)
    assert len(covered.index_points) == 1 and len(covered.partial_points) == 1
    # The open corner is the bottom-right one (its y is the larger).
    assert covered.index_points[0][1] > 150 > covered.partial_points[0][1]
    grazed = _one_card_truth(0.1)  # a tenth of the pip: still readable
    assert len(grazed.index_points) == 2 and grazed.partial_points == []
    assert covered.hidden_points == [] and grazed.hidden_points == []


def test_a_corner_whose_suit_pip_is_all_covered_is_hidden() -> None:
    # Under 30% of the pip is the card's own: not even partly open, but still listed, so
    # that a read of the card there is not taken for a wrong one.
    hidden = _one_card_truth(1.0)
    assert len(hidden.index_points) == 1 and hidden.partial_points == []
    assert len(hidden.hidden_points) == 1
    assert hidden.index_points[0][1] > 150 > hidden.hidden_points[0][1]


def test_each_open_corner_names_the_centres_of_its_rank_glyph_and_suit_pip() -> None:
    # Seen straight down, the centres are the design's glyph boxes moved to the card's place.
    design = DESIGNS[TUNING_DESIGNS[0]]
    (rank_box, suit_box), (turned_rank, turned_suit) = glyph_boxes(design, 120, "7")

    def centre(box: tuple[float, float, float, float]) -> tuple[float, float]:
        return ((box[0] + box[2]) / 2 + 100, (box[1] + box[3]) / 2 + 50)

    truth = _one_card_truth(0.0)
    assert len(truth.index_glyphs) == len(truth.index_points) == 2
    expected = [(centre(rank_box), centre(suit_box)),
                (centre(turned_rank), centre(turned_suit))]
    for (rank, pip), (want_rank, want_pip) in zip(truth.index_glyphs, expected, strict=True):
        assert math.dist(rank, want_rank) < 1e-6 and math.dist(pip, want_pip) < 1e-6
    # A corner only partly open names no glyphs: the list follows the open points.
    assert len(_one_card_truth(0.34).index_glyphs) == 1
