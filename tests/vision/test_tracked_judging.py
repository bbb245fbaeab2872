"""How `benchmarks/vision_tracked_decks.py` judges a card placed or read at a place: by the
card truly there, as `vision_real_decks.py` scores a single frame."""

from __future__ import annotations

import numpy as np

from tests.vision.benchmark_modules import benchmark_module


def _filmed() -> object:
    tracked = benchmark_module("vision_tracked_decks")
    # A 100 px card: a card is at a corner within 15 px. 8C's index at (100, 100) is open;
    # 3H's at (300, 100) is partly open; QS's at (500, 100) hidden under a chip.
    return tracked.Filmed("d", [], 100.0, [("8C", [(100.0, 100.0)])],
                          {"box1": {"8C"}}, None,
                          [("3H", [(300.0, 100.0)]), ("QS", [(500.0, 100.0)])])


def test_a_card_at_its_own_corner_less_than_open_is_judged_neither_way() -> None:
    tracked = benchmark_module("vision_tracked_decks")
    filmed = _filmed()
    assert tracked._judge("8C", 104.0, 100.0, filmed) == "8C"
    assert tracked._judge("3H", 305.0, 100.0, filmed) == ""
    assert tracked._judge("QS", 500.0, 110.0, filmed) == ""


def test_another_card_at_a_corner_less_than_open_is_a_stray_read() -> None:
    tracked = benchmark_module("vision_tracked_decks")
    filmed = _filmed()
    # Half of 3H's index taken for 5H: not excused, placed where no index is open.
    assert tracked._judge("5H", 305.0, 100.0, filmed) is None
    verdicts = tracked._verdicts(filmed, [("8C", 100.0, 100.0), ("5H", 305.0, 100.0),
                                          ("3H", 300.0, 100.0), ("KD", 100.0, 110.0)])
    assert verdicts == [("right", "8C", "8C"), ("stray", "", "5H"), ("wrong", "8C", "KD")]
    # The stray 5H in box1 spoils the hand; 3H at its own partly open corner does not.
    assert tracked._hands_right(filmed, [("8C", "box1", 100.0, 100.0),
                                         ("3H", "box1", 300.0, 100.0)]) == 1
    assert tracked._hands_right(filmed, [("8C", "box1", 100.0, 100.0),
                                         ("5H", "box1", 305.0, 100.0)]) == 0
    assert np.isclose(tracked.NEAR, 0.15)
