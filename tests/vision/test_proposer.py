"""The learnt proposer's arithmetic (`vision.proposer`): its input, the decoding of its
output map into rank and pip centres, and which proposals are read."""

from __future__ import annotations

import numpy as np
import pytest

from vision.networks import ModelError
from vision.proposer import (
    STRIDE,
    IndexProposer,
    decode,
    input_scale,
    network_input,
    output_stride,
)
from vision.reads import UNKNOWN_CARD, _Read

QUIET = -10.0  # a logit far under any threshold


def _map(rows: int = 4, cols: int = 6) -> np.ndarray:
    out = np.zeros((5, rows, cols), np.float32)
    out[0] = QUIET
    return out


def _peak(out: np.ndarray, row: int, col: int, logit: float, place: tuple[float, float],
          vector: tuple[float, float]) -> None:
    out[:, row, col] = (logit, *place, *vector)


def test_a_peak_becomes_the_rank_and_pip_centres_it_describes() -> None:
    out = _map()
    # Cell (row 1, col 2), the midpoint a quarter cell right and three quarters down in
    # it: (2.25 * 8, 1.75 * 8) = (18, 14) px; the vector 1.5 units of 16 px to the right.
    _peak(out, 1, 2, 2.0, (0.25, 0.75), (1.5, 0.0))
    ranks, pips, scores = decode(out, threshold=0.5)
    assert STRIDE == 8
    np.testing.assert_allclose(ranks, [[6.0, 14.0]])  # 18 - 24 / 2
    np.testing.assert_allclose(pips, [[30.0, 14.0]])  # 18 + 24 / 2
    np.testing.assert_allclose(scores, [1 / (1 + np.exp(-2.0))], rtol=1e-6)


def test_a_weaker_neighbour_is_the_same_peak_and_a_distant_one_is_another() -> None:
    out = _map()
    _peak(out, 1, 2, 2.0, (0.5, 0.5), (0.0, 1.5))
    _peak(out, 1, 3, 1.0, (0.5, 0.5), (0.0, 1.5))  # beside the first, weaker: dropped
    _peak(out, 3, 5, 1.0, (0.5, 0.5), (0.0, -1.5))  # two cells away: kept
    ranks, pips, _ = decode(out, threshold=0.5)
    assert len(ranks) == 2
    # Rank above pip for the first (vector down), below it for the second (vector up).
    np.testing.assert_allclose(ranks, [[20.0, 0.0], [44.0, 40.0]])
    np.testing.assert_allclose(pips, [[20.0, 24.0], [44.0, 16.0]])


def test_a_finer_map_places_its_peaks_by_its_own_cells() -> None:
    out = _map()
    # At 4 px a cell the same peak as above: (2.25 * 4, 1.75 * 4) = (9, 7) px; the
    # vector is in 16 px units whatever the cell.
    _peak(out, 1, 2, 2.0, (0.25, 0.75), (1.5, 0.0))
    ranks, pips, _ = decode(out, threshold=0.5, stride=4)
    np.testing.assert_allclose(ranks, [[-3.0, 7.0]])  # 9 - 24 / 2
    np.testing.assert_allclose(pips, [[21.0, 7.0]])


def test_a_zoomed_map_places_its_peaks_in_frame_pixels() -> None:
    out = _map()
    # The frame shown at 1.5 times shrunk instead of 2 (zoom 0.75): a cell of the map
    # is 6 frame pixels, a vector unit 12. Midpoint (2.25 * 6, 1.75 * 6) = (13.5, 10.5),
    # the vector 1.5 units = 18 px.
    _peak(out, 1, 2, 2.0, (0.25, 0.75), (1.5, 0.0))
    ranks, pips, _ = decode(out, threshold=0.5, zoom=0.75)
    np.testing.assert_allclose(ranks, [[4.5, 10.5]])
    np.testing.assert_allclose(pips, [[22.5, 10.5]])


def test_frames_of_small_indices_are_shown_larger() -> None:
    small = [_read("AS", 0, 0, 9.0), _read("KD", 0, 0, 12.0), _read("2C", 0, 0, 30.0)]
    assert input_scale(small, None) == 2.0  # not asked
    assert input_scale(small, 18.0) == pytest.approx(2 * 12 / 18)  # median 12 px
    assert input_scale([_read("AS", 0, 0, 20.0)], 18.0) == 2.0  # large enough
    assert input_scale([_read("AS", 0, 0, 6.0)], 18.0) == 1.0  # never past full size
    assert input_scale([_read(UNKNOWN_CARD, 0, 0, 6.0)], 18.0) == 2.0  # sure reads only
    assert network_input(np.zeros((720, 1280, 3), np.uint8), 1.5).shape == (1, 3, 480, 856)


class _MapOfWidth:
    """A network whose output map has `parts` columns for every 8 frame pixels."""

    def __init__(self, per_8px: float) -> None:
        self.per_8px = per_8px

    def run(self, x: np.ndarray) -> dict[str, np.ndarray]:
        cols = int(x.shape[3] * 2 / 8 * self.per_8px)
        return {"cells": np.zeros((1, 5, max(cols, 1), max(cols, 1)), np.float32)}


@pytest.mark.parametrize(("per_8px", "stride"), [(1, 8), (2, 4)])
def test_the_stride_is_told_by_the_size_of_the_map(per_8px: float, stride: int) -> None:
    assert output_stride(_MapOfWidth(per_8px)) == stride  # type: ignore[arg-type]


def test_a_map_of_no_known_stride_is_refused_at_load() -> None:
    with pytest.raises(ModelError, match="no stride of 8, 4 frame pixels"):
        output_stride(_MapOfWidth(0.5))  # type: ignore[arg-type]


def test_peaks_under_the_threshold_or_of_no_index_size_are_not_proposed() -> None:
    out = _map()
    _peak(out, 0, 0, -1.0, (0.5, 0.5), (1.5, 0.0))  # 0.27 likely: under 0.5
    _peak(out, 2, 2, 3.0, (0.5, 0.5), (0.1, 0.0))  # 1.6 px from rank to pip
    _peak(out, 2, 5, 3.0, (0.5, 0.5), (4.0, 0.0))  # 64 px
    ranks, _, _ = decode(out, threshold=0.5)
    assert len(ranks) == 0
    assert len(decode(out, threshold=0.2)[0]) == 1  # the first, at a lower threshold


@pytest.mark.parametrize(("size", "shape"), [((720, 1280), (360, 640)),
                                             ((730, 1290), (368, 648))])
def test_the_input_is_half_size_padded_to_whole_cells(size: tuple[int, int],
                                                      shape: tuple[int, int]) -> None:
    frame = np.full((*size, 3), 255, np.uint8)
    x = network_input(frame)
    assert x.shape == (1, 3, *shape)
    assert x.dtype == np.float32
    assert x[0, :, : size[0] // 2, : size[1] // 2].min() == 1.0  # white stays 1
    if shape != (size[0] // 2, size[1] // 2):
        assert x[0, 0, -1, -1] == pytest.approx(128 / 255)  # the padding is grey


class _FixedProposer(IndexProposer):
    def __init__(self, ranks: np.ndarray, pips: np.ndarray, recut_unsure: bool = False
                 ) -> None:
        self.ranks, self.pips, self.recut_unsure = ranks, pips, recut_unsure
        self.refiner = None
        self.zoom_below = None

    def propose(self, frame: np.ndarray, scale: float = 2.0
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.ranks, self.pips, np.ones(len(self.ranks), np.float32)


def _read(card: str, x: float, y: float, scale: float) -> _Read:
    return _Read(card, x, y, 0.9, scale, (0.0, 1.0))


def test_proposals_at_a_sure_read_are_not_read_again() -> None:
    # Midpoints (100, 100) and (300, 100); a sure read at (110, 100) with an index scale
    # of 20 px reaches 16 px: the first is its corner, the second is not.
    proposer = _FixedProposer(np.array([[100, 90], [300, 90]], np.float32),
                              np.array([[100, 110], [300, 110]], np.float32))
    frame = np.zeros((8, 8, 3), np.uint8)
    pairs = proposer.pairs_beside(frame, [_read("AS", 110, 100, 20)])
    np.testing.assert_allclose(pairs.first, [[300, 90]])
    np.testing.assert_allclose(pairs.second, [[300, 110]])
    assert pairs.forward.all() and not pairs.backward.any()
    # 17 px away is beyond the reach: both are read.
    assert len(proposer.pairs_beside(frame, [_read("AS", 117, 100, 20)])) == 2


def test_an_unsure_corner_is_cut_again_only_where_asked() -> None:
    ranks, pips = np.array([[100, 90]], np.float32), np.array([[100, 110]], np.float32)
    frame = np.zeros((8, 8, 3), np.uint8)
    unsure = [_read(UNKNOWN_CARD, 100, 100, 20)]
    assert len(_FixedProposer(ranks, pips).pairs_beside(frame, unsure)) == 0
    assert len(_FixedProposer(ranks, pips, recut_unsure=True).pairs_beside(frame, unsure)) == 1


class _CountingProposer(_FixedProposer):
    def __init__(self) -> None:
        super().__init__(np.zeros((0, 2), np.float32), np.zeros((0, 2), np.float32))
        self.frames = 0

    def propose(self, frame: np.ndarray, scale: float = 2.0
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        self.frames += 1
        return super().propose(frame)


def test_the_proposer_looks_only_where_no_house_deck_reads() -> None:
    from vision.house_deck import HouseDeck
    from vision.recognizer import Recognizer

    recognizer = Recognizer()
    counting = _CountingProposer()
    recognizer.proposer = counting
    frame = np.full((120, 160, 3), 200, np.uint8)
    recognizer.detect(frame)
    assert counting.frames == 1
    # The deck's exemplars are of the finder's cuts: its frames get no proposals.
    recognizer.house_deck = HouseDeck(np.eye(2, 8, dtype=np.float32), np.array([0, 1]))
    recognizer.detect(frame)
    assert counting.frames == 1
