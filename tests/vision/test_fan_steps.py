"""Places one fan step from the sure reads (`vision.fan_steps`): where they lie, which
reads give them, and how the refiner's moves are kept."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vision.fan_steps import fan_step_candidates, fan_step_pairs, fan_steps_setting
from vision.networks import ModelError
from vision.reads import UNKNOWN_CARD, _Read

WIDTH, HEIGHT = 1280, 720


def _read(card: str, x: float, y: float, scale: float = 20.0, turn: float = 0.0) -> _Read:
    # Facing down the frame, turned `turn` degrees: rank at (x, y - 10), pip at (x, y + 10).
    down = (-math.sin(math.radians(turn)), math.cos(math.radians(turn)))
    return _Read(card, x, y, 0.95, scale, down)


def _places(reads: list[_Read], width: int = WIDTH) -> list[tuple[float, float, float, float]]:
    ranks, pips = fan_step_pairs(reads, width, HEIGHT)
    return [(float(r[0]), float(r[1]), float(p[0]), float(p[1]))
            for r, p in zip(ranks, pips, strict=True)]


def test_two_reads_a_step_apart_give_the_places_one_step_beyond_each() -> None:
    # 40 px apart at an index scale of 20: two scales, one fan step, no gap between.
    places = _places([_read("KS", 100, 100), _read("7H", 140, 100)])
    assert places == [(180, 90, 180, 110), (60, 90, 60, 110)]


def test_two_reads_a_gap_apart_give_the_place_halfway_too() -> None:
    # 60 px: three scales, room for a card missed between them.
    places = _places([_read("KS", 100, 100), _read("7H", 160, 100)])
    assert places == [(220, 90, 220, 110), (40, 90, 40, 110), (130, 90, 130, 110)]


def test_the_places_face_as_the_two_reads_do() -> None:
    # Both turned 90 degrees: rank to pip runs towards -x, 20 px long.
    (first, *_rest) = _places([_read("KS", 100, 100, turn=90), _read("7H", 100, 140, turn=90)])
    np.testing.assert_allclose(first, (110, 180, 90, 180), atol=1e-4)


@pytest.mark.parametrize("second", [
    _read("7H", 140, 100, turn=30),  # turned otherwise: not the same fan
    _read("7H", 140, 100, scale=26.0),  # 1.3 times the size: another card size
    _read("7H", 115, 100),  # under one scale apart: no card fits between
    _read("7H", 240, 100),  # seven scales apart: no fan step
    _read(UNKNOWN_CARD, 140, 100),  # an unsure read gives no step
])
def test_reads_of_no_one_fan_give_no_places(second: _Read) -> None:
    assert _places([_read("KS", 100, 100), second]) == []


def test_a_place_at_a_read_or_outside_the_frame_is_left_out() -> None:
    a, b = _read("KS", 100, 100), _read("7H", 140, 100)
    # An unsure corner 2 px from (180, 100) is that place's corner already.
    assert _places([a, b, _read(UNKNOWN_CARD, 182, 100)]) == [(60, 90, 60, 110)]
    assert _places([a, b], width=170) == [(60, 90, 60, 110)]


def test_three_reads_in_a_row_give_the_places_beyond_the_row() -> None:
    reads = [_read("KS", 100, 100), _read("7H", 140, 100), _read("2C", 180, 100)]
    # Each read steps to its nearest neighbour, two scales away; the first and the third
    # (four scales apart) are no neighbours, so 260, 20 and 140 are not proposed. The
    # first two's places beyond: 180 is the third read, 60 is new; the last two's: 220,
    # and 100 the first read.
    assert [p[0] for p in _places(reads)] == [60, 220]


def test_a_read_steps_to_its_nearest_neighbour_of_the_fan() -> None:
    # The second read is nearer the first than the third is: the first and the third
    # (five scales apart, a gap between) are no pair, so nothing at 150 or beyond 200.
    reads = [_read("KS", 100, 100), _read("7H", 140, 100), _read("2C", 200, 100)]
    places = [p[0] for p in _places(reads)]
    assert 150 not in places and 300 not in places
    # The first two: 180 and 60. The second and the third (three scales, a gap): 260,
    # 80, and halfway 170, within a corner's reach (16 px) of the place at 180 already.
    assert places == [180, 60, 260, 80]


class _Refiner:
    """Moves every pair by `shift` px."""

    def __init__(self, shift: tuple[float, float]) -> None:
        self.shift = np.array(shift, np.float32)
        self.given: list[np.ndarray] = []

    def refine(self, frame: np.ndarray, ranks: np.ndarray, pips: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        self.given.append(np.concatenate([ranks, pips], axis=1))
        return ranks + self.shift, pips + self.shift


def test_the_places_are_cut_where_the_refiner_moves_them() -> None:
    frame = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    refiner = _Refiner((3.0, 0.0))
    pairs = fan_step_candidates(frame, [_read("KS", 100, 100), _read("7H", 140, 100)],
                                refiner)  # type: ignore[arg-type]
    np.testing.assert_allclose(refiner.given[0], [[180, 90, 180, 110], [60, 90, 60, 110]])
    np.testing.assert_allclose(pairs.first, [[183, 90], [63, 90]])
    np.testing.assert_allclose(pairs.second, [[183, 110], [63, 110]])


def test_a_place_the_refiner_moves_onto_a_sure_read_is_dropped() -> None:
    frame = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    # 38 px to the left: the place at 180 lands at 142, on the second read's corner.
    pairs = fan_step_candidates(frame, [_read("KS", 100, 100), _read("7H", 140, 100)],
                                _Refiner((-38.0, 0.0)))  # type: ignore[arg-type]
    np.testing.assert_allclose(pairs.first, [[22, 90]])


def test_no_places_need_no_refiner() -> None:
    refiner = _Refiner((0.0, 0.0))
    pairs = fan_step_candidates(np.zeros((HEIGHT, WIDTH, 3), np.uint8),
                                [_read("KS", 100, 100)], refiner)  # type: ignore[arg-type]
    assert len(pairs) == 0 and refiner.given == []


def test_the_setting_is_off_unless_the_settings_say_true() -> None:
    info = Path("index_classifier.json")
    assert fan_steps_setting({}, info) is False
    assert fan_steps_setting({"fan_steps": True}, info) is True
    with pytest.raises(ModelError, match="index_classifier.json: fan_steps 'yes' is not "
                                         "true or false"):
        fan_steps_setting({"fan_steps": "yes"}, info)


def test_the_shipped_recognizer_reads_fan_steps_and_a_bad_setting_is_refused(
        tmp_path: Any) -> None:
    from tests.vision.model_copies import model_copy
    from vision.recognizer import Recognizer

    assert Recognizer().fan_steps
    with pytest.raises(ModelError, match="fan_steps 1 is not true or false"):
        Recognizer(model_copy(tmp_path, fan_steps=1))
