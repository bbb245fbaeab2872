"""The faint and medium ink passes, and the pairs they add once the finder's pairs are read."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from vision.candidates import (
    Blobs,
    Candidates,
    blobs_on,
    card_stock,
    glyph_components,
    not_covered,
)
from vision.faint_glyphs import (
    AWAY_FROM_READS,
    LOOSE_MAX_GAP,
    LOOSE_MIN_RATIO,
    MERGED_ELONGATION,
    MERGED_LENGTH,
    SCALE_BAND,
    faint_blobs,
    merged_pairs,
    pairs_beside_reads,
)
from vision.features import FEATURE_SIZE
from vision.reads import UNKNOWN_CARD, _Read
from vision.recognizer import Recognizer

PAPER = 220
PIP_CENTRE = (100, 110)


def _corner(rank_level: int) -> tuple[np.ndarray, tuple[float, float]]:
    """Card stock with a dark round pip and a "7" above it printed `rank_level` grey;
    and the centre of the 7's own ink."""
    frame = np.full((160, 200, 3), PAPER, np.uint8)
    cv2.circle(frame, PIP_CENTRE, 7, (30, 30, 30), -1)
    cv2.putText(frame, "7", (91, 90), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (rank_level,) * 3, 2)
    ink = np.zeros(frame.shape[:2], np.uint8)
    cv2.putText(ink, "7", (91, 90), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 255, 2)
    moments = cv2.moments(ink, binaryImage=True)
    return frame, (moments["m10"] / moments["m00"], moments["m01"] / moments["m00"])


def _near(centres: np.ndarray, point: tuple[float, float], within: float = 2.0) -> bool:
    return bool(centres.size) and float(np.hypot(*(centres - point).T).min()) <= within


def test_the_faint_pass_finds_a_rank_too_pale_for_the_finder() -> None:
    # 22 levels under the paper: the finder's loose pass asks for more than that.
    frame, rank_centre = _corner(PAPER - 22)
    stock = card_stock(frame)
    found = blobs_on(stock)
    assert _near(found.centres, PIP_CENTRE) and not _near(found.centres, rank_centre, 8.0)
    added = faint_blobs(stock, found)
    assert _near(added.centres, rank_centre)
    assert not _near(added.centres, PIP_CENTRE, 8.0)  # found already


def test_a_dark_rank_the_finder_found_is_not_added_again() -> None:
    frame, rank_centre = _corner(40)
    stock = card_stock(frame)
    found = blobs_on(stock)
    assert _near(found.centres, rank_centre)
    assert faint_blobs(stock, found).centres.shape[0] == 0


def test_a_component_found_at_half_size_is_given_in_frame_pixels() -> None:
    full = np.zeros((120, 160), np.uint8)
    # A 16 x 22 px frame 2 px thick (a solid block is no glyph), centre (47.5, 40.5).
    cv2.rectangle(full, (40, 30), (55, 51), 255, -1)
    cv2.rectangle(full, (42, 32), (53, 49), 0, -1)
    half = cv2.resize(full, (80, 60), interpolation=cv2.INTER_AREA)
    boxes, longest, centres = glyph_components(half, scale=2)
    np.testing.assert_array_equal(boxes, [[40, 30, 16, 22]])
    assert longest.tolist() == [22]
    np.testing.assert_allclose(centres, [[47.5, 40.5]])


def test_a_box_holding_two_new_centres_is_split_only_when_asked() -> None:
    box = np.array([[0, 0, 30, 30]], np.int32)
    centres = np.array([[10.0, 10.0], [20.0, 20.0], [50.0, 50.0]])
    assert not_covered(centres, box).tolist() == [True, True, True]
    assert not_covered(centres, box, split=False).tolist() == [False, False, True]


def _blobs(centres: list[tuple[float, float]], size: float = 10.0) -> Blobs:
    points = np.array(centres, np.float32).reshape(-1, 2)
    boxes = np.concatenate([points - size / 2, np.full_like(points, size)], axis=1)
    return Blobs(points, np.full(len(centres), size, np.float32), boxes.astype(np.int32))


def _sure_read(rank: tuple[float, float], pip: tuple[float, float], card: str = "7S") -> _Read:
    down = np.subtract(pip, rank)
    scale = float(np.hypot(*down))
    return _Read(card, (rank[0] + pip[0]) / 2, (rank[1] + pip[1]) / 2, 0.99, scale,
                 (float(down[0] / scale), float(down[1] / scale)))


def _pairs(pairs: Candidates) -> set[frozenset[tuple[float, float]]]:
    return {frozenset({tuple(map(float, a)), tuple(map(float, b))})
            for a, b in zip(pairs.first, pairs.second, strict=True)}


def test_added_blobs_pair_with_free_blobs_never_with_a_sure_reads_glyphs() -> None:
    # A card read surely (rank at 100,100, pip 15 px below); a free blob beside it,
    # and an added blob 15 px from both the free blob and the read's pip.
    found = _blobs([(100, 100), (100, 115), (130, 115)])
    added = _blobs([(115, 115)])
    pairs = pairs_beside_reads(found, added, [_sure_read((100, 100), (100, 115))])
    assert _pairs(pairs) == {frozenset({(130.0, 115.0), (115.0, 115.0)})}


def test_an_unsure_read_leaves_its_glyphs_free() -> None:
    found = _blobs([(100, 100), (100, 115)])
    added = _blobs([(110, 108)])  # 12-13 px from both
    unsure = _sure_read((100, 100), (100, 115))
    unsure = _Read(UNKNOWN_CARD, unsure.x, unsure.y, 0.2, unsure.scale, unsure.down)
    pairs = pairs_beside_reads(found, added, [unsure])
    assert _pairs(pairs) == {frozenset({(100.0, 115.0), (110.0, 108.0)}),
                             frozenset({(100.0, 100.0), (110.0, 108.0)})}


def test_pairs_far_from_the_frames_index_scale_are_dropped() -> None:
    # The sure reads' index scale is 15 px. Blobs of 14 px may pair up to 28 px apart,
    # but a pair 25 px apart is over SCALE_BAND's top (1.45 x 15 = 21.75 px).
    assert SCALE_BAND[1] * 15 < 25
    read = _sure_read((300, 300), (300, 315))
    found = _blobs([(300, 300), (300, 315), (100, 100)], size=14.0)
    added = _blobs([(100, 125), (150, 100), (150, 118)], size=14.0)
    pairs = pairs_beside_reads(found, added, [read])
    assert _pairs(pairs) == {frozenset({(150.0, 100.0), (150.0, 118.0)})}
    # With no sure read there is no scale to hold them to.
    assert frozenset({(100.0, 100.0), (100.0, 125.0)}) in _pairs(
        pairs_beside_reads(found, added, []))


def _sized_blobs(blobs: list[tuple[float, float, float]]) -> Blobs:
    """Blobs of (x, y, size), each a square box of its size."""
    return Blobs(np.array([(x, y) for x, y, _ in blobs], np.float32).reshape(-1, 2),
                 np.array([size for _, _, size in blobs], np.float32),
                 np.array([(x - size / 2, y - size / 2, size, size) for x, y, size in blobs],
                          np.int32).reshape(-1, 4))


def _orders(pairs: Candidates) -> set[tuple[tuple[float, float], tuple[float, float]]]:
    """(rank-glyph centre, suit-pip centre) of every order to read."""
    _index, _reverse, rank_at, suit_at = pairs.ordered()
    return {((float(r[0]), float(r[1])), (float(s[0]), float(s[1])))
            for r, s in zip(rank_at, suit_at, strict=True)}


NO_BLOBS = _sized_blobs([])
FAR_READ = _sure_read((300, 300), (300, 315))  # index scale 15 px


def test_a_rank_core_smaller_than_the_finder_allows_pairs_where_nothing_was_read() -> None:
    # A rank glyph of 7 px over its 12 px pip, 15 px apart: 7/12 is under the finder's 0.7
    # but over LOOSE_MIN_RATIO. The pip-first order (12/7) is within the finder's limits
    # and was read with the finder's pairs: only the rank-first order is new.
    assert LOOSE_MIN_RATIO < 7 / 12 < 0.7
    found = _sized_blobs([(100, 100, 7), (100, 115, 12)])
    pairs = pairs_beside_reads(found, NO_BLOBS, [FAR_READ])
    assert _orders(pairs) == {((100.0, 100.0), (100.0, 115.0))}
    # A read (even an unsure one) at that corner already: nothing more is tried there.
    unsure_there = _Read(UNKNOWN_CARD, 100.0, 107.0, 0.3, 15.0, (0.0, 1.0))
    assert len(pairs_beside_reads(found, NO_BLOBS, [FAR_READ, unsure_there])) == 0
    # One index scale (15 px) from the corner's midpoint is far enough.
    assert AWAY_FROM_READS * 15 < 15
    unsure_beside = _Read(UNKNOWN_CARD, 115.0, 107.5, 0.3, 15.0, (0.0, 1.0))
    assert len(pairs_beside_reads(found, NO_BLOBS, [FAR_READ, unsure_beside])) == 1
    # With no sure read there is no index scale, and no loose pair.
    assert len(pairs_beside_reads(found, NO_BLOBS, [])) == 0


def test_glyphs_a_little_farther_apart_than_the_finder_allows_pair_in_both_orders() -> None:
    # 8 px blobs 20 px apart: 2.5 sizes, over the finder's 2.0, within LOOSE_MAX_GAP and
    # within SCALE_BAND of the 15 px index scale.
    assert 2.0 < 20 / 8 <= LOOSE_MAX_GAP and SCALE_BAND[0] * 15 <= 20 <= SCALE_BAND[1] * 15
    found = _sized_blobs([(100, 100, 8), (100, 120, 8)])
    assert _orders(pairs_beside_reads(found, NO_BLOBS, [FAR_READ])) == {
        ((100.0, 100.0), (100.0, 120.0)), ((100.0, 120.0), (100.0, 100.0))}
    # Within the finder's limits, two of its blobs were read already.
    near = _sized_blobs([(100, 100, 10), (100, 115, 10)])
    assert len(pairs_beside_reads(near, NO_BLOBS, [FAR_READ])) == 0


def _merged_blob(angle_deg: float, length: int = 26, width: int = 8
                 ) -> tuple[np.ndarray, Blobs]:
    """The darkest channel of card stock with one dark ellipse (a rank and its pip run
    together) centred at (100, 100), its long axis at `angle_deg`; and its blob."""
    darkest = np.full((200, 200), PAPER, np.uint8)
    cv2.ellipse(darkest, (100, 100), (length // 2, width // 2), angle_deg, 0, 360, 30, -1)
    x, y, w, h = cv2.boundingRect((darkest < 128).astype(np.uint8))
    return darkest, _sized_blobs([(x + w / 2, y + h / 2, max(w, h))])


@pytest.mark.parametrize("angle", [90.0, 30.0])
def test_a_rank_and_pip_run_together_are_cut_in_two_along_the_long_axis(angle: float) -> None:
    darkest, blob = _merged_blob(angle)
    assert MERGED_LENGTH[0] * 15 <= blob.sizes[0] <= MERGED_LENGTH[1] * 15
    pairs = merged_pairs(darkest, blob, NO_BLOBS, [FAR_READ])
    assert len(pairs) == 1 and pairs.forward.all() and pairs.backward.all()
    # Half an index scale (7.5 px) either side of the centre, along the axis.
    along = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
    ends = np.array([pairs.first[0], pairs.second[0]])
    expected = np.array([(100, 100) - 7.5 * along, (100, 100) + 7.5 * along])
    if np.hypot(*(ends[0] - expected[0])) > np.hypot(*(ends[0] - expected[1])):
        expected = expected[::-1]
    np.testing.assert_allclose(ends, expected, atol=0.6)


def test_a_round_blob_a_short_one_or_one_at_a_read_is_not_cut() -> None:
    round_ink, round_blob = _merged_blob(0.0, length=26, width=24)
    assert len(merged_pairs(round_ink, round_blob, NO_BLOBS, [FAR_READ])) == 0
    assert 26 / 24 < MERGED_ELONGATION
    short_ink, short_blob = _merged_blob(90.0, length=16, width=5)
    assert short_blob.sizes[0] < MERGED_LENGTH[0] * 15
    assert len(merged_pairs(short_ink, short_blob, NO_BLOBS, [FAR_READ])) == 0
    darkest, blob = _merged_blob(90.0)
    unsure_there = _Read(UNKNOWN_CARD, 101.0, 100.0, 0.3, 15.0, (0.0, 1.0))
    assert len(merged_pairs(darkest, blob, NO_BLOBS, [FAR_READ, unsure_there])) == 0
    assert len(merged_pairs(darkest, blob, NO_BLOBS, [])) == 0  # no index scale


def _pairs_read(monkeypatch: pytest.MonkeyPatch, recognizer: Recognizer,
                frame: np.ndarray) -> list[Candidates]:
    """The pairs each read of the networks is given (they read none of them as a card)."""
    import vision.recognizer as module

    given: list[Candidates] = []

    def no_index(frame: np.ndarray, look: Any, pairs: Candidates | None = None) -> Any:
        assert pairs is not None
        given.append(pairs)
        empty = np.zeros((0, 2), np.float32)
        return np.zeros((0, FEATURE_SIZE), np.float32), empty, empty, np.zeros(0)

    monkeypatch.setattr(module, "candidate_features", no_index)
    assert recognizer.read_candidates(frame) == []
    return given


def test_the_recognizer_reads_the_pale_rank_with_its_pip_after_the_finders_pairs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    frame, rank_centre = _corner(PAPER - 22)
    recognizer = Recognizer(faint_passes=True)
    finders, faint = _pairs_read(monkeypatch, recognizer, frame)
    assert len(finders) == 0  # the pip alone makes no pair
    assert len(faint) == 1
    index, reverse, rank_at, suit_at = faint.ordered()
    # The order with the rank glyph first is among those read.
    assert any(_near(rank[None], rank_centre) and _near(suit[None], PIP_CENTRE)
               for rank, suit in zip(rank_at, suit_at, strict=True))
    assert len(_pairs_read(monkeypatch, Recognizer(), frame)) == 1  # off unless asked


