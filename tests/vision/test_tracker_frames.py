"""The recognizer and tracker together on frames of a dealt round from the simulator."""

from __future__ import annotations

from typing import Any

from hwsim.camera import table_frames

from vision.layout import layout_from_dict
from vision.recognizer import Recognizer
from vision.tracker import CardPlaced, CardTracker, Cleared


def _frames(table: dict[str, list[str]], count: int, **extra: Any) -> list[Any]:
    return [table_frames.render_table_frame(table, seed=0, **extra)[0] for _ in range(count)]


def test_a_dealt_round_gives_one_event_per_card_and_one_clear() -> None:
    recognizer = Recognizer()
    layout = layout_from_dict(table_frames.table_layout())
    tracker = CardTracker(stable_frames=3, clear_frames=3)
    round_frames: list[Any] = []
    round_frames += _frames({}, 2)
    round_frames += [table_frames.render_table_frame({}, seed=k, moving=["KD"])[0]
                     for k in range(3)]  # a card sliding across the felt
    round_frames += _frames({"box1": ["AS"]}, 3)
    round_frames += _frames({"box1": ["AS"], "dealer": ["9C"]}, 3)
    round_frames += _frames({"box1": ["AS", "7D"], "dealer": ["9C"]}, 4)
    round_frames += _frames({"box1": ["AS", "7D"], "dealer": ["9C"]}, 2, arms=1)
    round_frames += _frames({"box1": ["AS", "7D"], "dealer": ["9C"]}, 2)
    round_frames += _frames({}, 3)
    events: list[object] = []
    for frame in round_frames:
        events += tracker.update(recognizer.detect(frame, layout))
    placed = [(e.card, e.box) for e in events if isinstance(e, CardPlaced)]
    assert sorted(placed) == [("7D", "box1"), ("9C", "dealer"), ("AS", "box1")]
    assert events[-1] == Cleared(3)
    assert sum(isinstance(e, Cleared) for e in events) == 1
