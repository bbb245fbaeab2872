"""Second chances (`vision.second_chance`): the settings, and unsure corners read again
once the refiner has moved them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.candidates import Candidates
from vision.networks import ModelError
from vision.reads import UNKNOWN_CARD, _Read
from vision.second_chance import reread_unsure, second_chance_settings

INFO = Path("index_classifier.json")


def test_the_settings_give_the_bar_and_the_switch() -> None:
    assert second_chance_settings({"second_chance_confidence": 0.9, "refine_unsure": True},
                                  INFO, 0.6) == (0.9, True)
    # Unset: a second chance needs what a first read needs, and unsure corners stay.
    assert second_chance_settings({}, INFO, 0.6) == (0.6, False)
    # Never easier than a first read.
    assert second_chance_settings({"second_chance_confidence": 0.5}, INFO, 0.6) == (0.6, False)


@pytest.mark.parametrize(("key", "value", "message"), [
    ("second_chance_confidence", 0.0, "second_chance_confidence 0.0 is not a probability"),
    ("second_chance_confidence", 1.5, "second_chance_confidence 1.5 is not a probability"),
    ("second_chance_confidence", "high", "second_chance_confidence 'high' is not"),
    ("second_chance_confidence", True, "second_chance_confidence True is not"),
    ("refine_unsure", "yes", "refine_unsure 'yes' must be true or false"),
])
def test_bad_settings_are_refused_naming_the_file_and_key(key: str, value: object,
                                                         message: str) -> None:
    with pytest.raises(ModelError, match=f"index_classifier.json: {message}"):
        second_chance_settings({key: value}, INFO, 0.6)


def _read(card: str, x: float, y: float) -> _Read:
    # Index scale 20 px, facing down the frame: rank at y - 10, pip at y + 10.
    return _Read(card, x, y, 0.95, 20.0, (0.0, 1.0))


class _ShiftRight:
    """A refiner moving every pair 3 px to the right."""

    def __init__(self) -> None:
        self.given: list[np.ndarray] = []

    def refine(self, frame: np.ndarray, ranks: np.ndarray, pips: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        self.given.append(np.concatenate([ranks, pips], axis=1))
        return ranks + [3.0, 0.0], pips + [3.0, 0.0]


def test_an_unsure_corner_read_surely_once_refined_takes_the_sure_read() -> None:
    refiner = _ShiftRight()
    cut_at: list[Candidates] = []

    def read_pairs(pairs: Candidates) -> list[_Read]:
        cut_at.append(pairs)
        return [_read("7H", float(pairs.first[0, 0]), 100.0)]

    frame = np.zeros((4, 4, 3), np.uint8)
    sure, unsure = _read("KS", 300, 100), _read(UNKNOWN_CARD, 50, 100)
    result = reread_unsure(frame, [sure, unsure], refiner, read_pairs)  # type: ignore[arg-type]
    # Only the unsure corner was refined: rank (50, 90), pip (50, 110).
    np.testing.assert_allclose(refiner.given[0], [[50, 90, 50, 110]])
    np.testing.assert_allclose(cut_at[0].first, [[53, 90]])  # cut where the refiner said
    np.testing.assert_allclose(cut_at[0].second, [[53, 110]])
    assert [r.card for r in result] == ["KS", "7H"]


def test_an_unsure_corner_still_unsure_once_refined_stays_unknown() -> None:
    frame = np.zeros((4, 4, 3), np.uint8)
    reads = [_read("KS", 300, 100), _read(UNKNOWN_CARD, 50, 100)]
    unsure_again = reread_unsure(frame, reads, _ShiftRight(),  # type: ignore[arg-type]
                                 lambda pairs: [_read(UNKNOWN_CARD, 53, 100)])
    assert unsure_again == reads
    nothing = reread_unsure(frame, reads, _ShiftRight(), lambda pairs: [])  # type: ignore[arg-type]
    assert nothing == reads


def test_no_unsure_corner_needs_no_refiner() -> None:
    refiner = _ShiftRight()
    reads = [_read("KS", 300, 100)]
    assert reread_unsure(np.zeros((4, 4, 3), np.uint8), reads, refiner,  # type: ignore[arg-type]
                         lambda pairs: pytest.fail("nothing to read again")) == reads
    assert refiner.given == []
