"""The learnt refiner's geometry (`vision.refiner`): the window it cuts around a
proposal, the places it answers in, and when its answer is taken."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.refiner import (
    REACH,
    SIZE,
    IndexRefiner,
    from_window,
    window_targets,
    windows,
)


def _pixel_of(u: float, v: float) -> tuple[int, int]:
    """The window pixel (row, column) whose centre lies at window place (u, v)."""
    return (int(round((v / REACH + 1) / 2 * SIZE - 0.5)),
            int(round((u / REACH + 1) / 2 * SIZE - 0.5)))


def test_a_place_named_in_the_window_is_the_place_in_the_frame() -> None:
    ranks = np.array([[100.0, 80.0], [50.0, 60.0]], np.float32)
    pips = np.array([[100.0, 100.0], [70.0, 60.0]], np.float32)
    true_ranks = np.array([[104.0, 75.0], [48.0, 66.0]], np.float32)
    true_pips = np.array([[103.0, 96.0], [69.0, 63.0]], np.float32)
    answer = window_targets(ranks, pips, true_ranks, true_pips)
    back_ranks, back_pips = from_window(ranks, pips, answer)
    np.testing.assert_allclose(back_ranks, true_ranks, atol=1e-4)
    np.testing.assert_allclose(back_pips, true_pips, atol=1e-4)


def test_the_proposal_itself_sits_at_the_windows_middle_rank_above_pip() -> None:
    # Rank (100, 80), pip (100, 100): the rank half a distance up the middle line, the pip
    # half a distance down; "right" is the vector (0, 20) turned a quarter: (20, 0), so
    # this window is the frame unturned.
    ranks, pips = np.array([[100.0, 80.0]]), np.array([[100.0, 100.0]])
    answer = window_targets(ranks, pips, ranks, pips)
    np.testing.assert_allclose(answer, [[0.0, -0.5, 0.0, 0.5]], atol=1e-6)
    right_of_it = window_targets(ranks, pips, np.array([[110.0, 80.0]]), pips)
    assert right_of_it[0, 0] == pytest.approx(0.5)


@pytest.mark.parametrize("turn", [0.0, 40.0, 135.0, 250.0])
def test_the_window_shows_a_dot_where_its_place_says(turn: float) -> None:
    frame = np.full((200, 200, 3), 230, np.uint8)
    dot = (112.0, 87.0)
    cv2.circle(frame, (112, 87), 2, (20, 20, 20), -1)
    angle = np.radians(turn)
    vector = 20 * np.array([np.sin(angle), np.cos(angle)])
    mid = np.array([105.0, 95.0])
    ranks, pips = (mid - vector / 2)[None], (mid + vector / 2)[None]
    u, v, _, _ = window_targets(ranks, pips, np.array([dot]), np.array([dot]))[0]
    cut = windows(frame, ranks.astype(np.float32), pips.astype(np.float32))
    assert cut.shape == (1, SIZE, SIZE, 3)
    darkest = np.unravel_index(int(cut[0, :, :, 0].argmin()), (SIZE, SIZE))
    row, col = _pixel_of(u, v)
    assert abs(int(darkest[0]) - row) <= 1 and abs(int(darkest[1]) - col) <= 1


class _Answers:
    """A stand-in network answering fixed window places (the refiner's arithmetic is
    under test here, not a trained model)."""

    def __init__(self, answer: list[float]) -> None:
        self.answer = np.array([answer], np.float32)
        self.calls = 0

    def run(self, inputs: np.ndarray) -> dict[str, np.ndarray]:
        self.calls += 1
        assert inputs.shape == (1, 3, SIZE, SIZE)
        return {"places": np.repeat(self.answer, inputs.shape[0], axis=0)}


def test_each_round_moves_the_pair_to_the_places_named() -> None:
    frame = np.zeros((50, 50, 3), np.uint8)
    # Each round: the pair moves a quarter distance along (down the frame here).
    refiner = IndexRefiner(_Answers([0.0, -0.25, 0.0, 0.75]), rounds=2)  # type: ignore[arg-type]
    ranks, pips = refiner.refine(frame, np.array([[20.0, 10.0]]), np.array([[20.0, 20.0]]))
    np.testing.assert_allclose(ranks, [[20.0, 15.0]], atol=1e-4)
    np.testing.assert_allclose(pips, [[20.0, 25.0]], atol=1e-4)
    assert refiner.network.calls == 2  # type: ignore[attr-defined]


def test_an_answer_that_changes_the_size_past_twice_is_not_taken() -> None:
    frame = np.zeros((50, 50, 3), np.uint8)
    refiner = IndexRefiner(_Answers([0.0, -1.5, 0.0, 1.5]), rounds=1)  # type: ignore[arg-type]
    ranks, pips = refiner.refine(frame, np.array([[20.0, 10.0]]), np.array([[20.0, 20.0]]))
    np.testing.assert_allclose(ranks, [[20.0, 10.0]])  # three times as far apart: kept
    np.testing.assert_allclose(pips, [[20.0, 20.0]])


def test_no_proposals_need_no_network() -> None:
    answers = _Answers([0.0, -0.5, 0.0, 0.5])
    ranks, pips = IndexRefiner(answers).refine(  # type: ignore[arg-type]
        np.zeros((10, 10, 3), np.uint8), np.zeros((0, 2)), np.zeros((0, 2)))
    assert ranks.shape == (0, 2) and pips.shape == (0, 2) and answers.calls == 0
