import pytest

from vision.detection import Detection
from vision.tracker import CardPlaced, CardTracker, Cleared


def det(card: str, x: float, y: float, box: str | None = "box1") -> Detection:
    return Detection(card, x, y, 0.99, box)


def feed(tracker: CardTracker, frames: list[list[Detection]]) -> list[object]:
    events: list[object] = []
    for frame in frames:
        events.extend(tracker.update(frame))
    return events


def test_card_placed_once_after_stable_frames() -> None:
    tracker = CardTracker(stable_frames=3, clear_frames=4)
    assert tracker.update([det("QS", 100, 200)]) == []
    assert tracker.update([det("QS", 101, 199)]) == []
    (event,) = tracker.update([det("QS", 100, 201)])
    assert isinstance(event, CardPlaced)
    assert (event.card, event.box) == ("QS", "box1")
    assert (event.x, event.y) == (pytest.approx(301 / 3), pytest.approx(200))
    assert feed(tracker, [[det("QS", 100, 200)]] * 10) == []


def test_card_seen_in_one_frame_is_ignored() -> None:
    tracker = CardTracker(stable_frames=3)
    frames = [[det("7H", 50, 50)], [], [det("7H", 50, 50)], [], [det("7H", 50, 50)]]
    assert feed(tracker, frames) == []


def test_moving_card_produces_nothing_until_it_settles() -> None:
    tracker = CardTracker(stable_frames=3, place_tolerance_px=10)
    sliding = [[det("9C", 100 + 30 * k, 300)] for k in range(8)]
    assert feed(tracker, sliding) == []
    settled = feed(tracker, [[det("9C", 400, 300)]] * 3)
    assert settled == [CardPlaced("9C", "box1", 400, 300)]


def test_slow_drift_does_not_count_as_stable() -> None:
    tracker = CardTracker(stable_frames=4, place_tolerance_px=10)
    drifting = [[det("2D", 100 + 6 * k, 100)] for k in range(12)]
    assert feed(tracker, drifting) == []


def test_cleared_after_the_felt_is_empty_for_n_frames() -> None:
    tracker = CardTracker(stable_frames=2, clear_frames=3)
    placed = feed(tracker, [[det("AS", 10, 10), det("KH", 60, 10, "box2")]] * 2)
    assert len(placed) == 2
    assert feed(tracker, [[], []]) == []
    assert tracker.update([]) == [Cleared(2)]
    assert tracker.placed == []
    assert feed(tracker, [[]] * 5) == []  # nothing more to clear


def test_hand_over_the_cards_does_not_clear_or_replace_them() -> None:
    tracker = CardTracker(stable_frames=2, clear_frames=3)
    feed(tracker, [[det("5S", 200, 200), det("6S", 230, 205)]] * 2)
    # A hand covers one card for a while, then the other, then leaves.
    frames = [[det("5S", 200, 200)]] * 4 + [[det("6S", 230, 205)]] * 4
    frames += [[det("5S", 200, 200), det("6S", 230, 205)]] * 3
    assert feed(tracker, frames) == []


def test_a_card_pushed_to_a_new_place_is_the_same_card() -> None:
    tracker = CardTracker(stable_frames=2, clear_frames=5)
    assert len(feed(tracker, [[det("JD", 100, 100)]] * 2)) == 1
    assert feed(tracker, [[det("JD", 160, 100)]] * 4) == []
    assert [p.x for p in tracker.placed] == [160]


def test_two_cards_of_one_code_in_a_multi_deck_shoe_are_two_events() -> None:
    tracker = CardTracker(stable_frames=2)
    events = feed(tracker, [[det("8H", 100, 100, "box1"), det("8H", 600, 100, "box4")]] * 2)
    assert sorted(str(e.box) for e in events if isinstance(e, CardPlaced)) == ["box1", "box4"]


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="stable_frames"):
        CardTracker(stable_frames=1)


def test_a_second_copy_dealt_elsewhere_while_the_first_is_pushed_is_a_new_card() -> None:
    # Two decks' 2D: one lies in box 4; as the other is dealt to box 1, the first is
    # pushed (its index read 135 px away, still in box 4). The one in box 1 is new;
    # the one in box 4 is the card already placed, not a second card there.
    tracker = CardTracker(stable_frames=3)
    (first,) = feed(tracker, [[det("2D", 598, 596, "box4")]] * 3)
    assert isinstance(first, CardPlaced) and first.box == "box4"
    frames = [[det("2D", 1133, 331, "box1"), det("2D", 617, 462, "box4")]] * 3
    assert feed(tracker, frames) == [CardPlaced("2D", "box1", 1133, 331)]
    assert sorted((p.box, p.x) for p in tracker.placed) == [("box1", 1133), ("box4", 617)]
    assert feed(tracker, frames * 2) == []


def test_a_pushed_card_pairs_with_its_nearest_settled_read() -> None:
    # Two copies placed in one box, both pushed at once: each goes with the read nearest
    # to it, and no event is made.
    tracker = CardTracker(stable_frames=2)
    assert len(feed(tracker, [[det("9S", 100, 100), det("9S", 400, 100)]] * 2)) == 2
    assert feed(tracker, [[det("9S", 430, 110), det("9S", 130, 110)]] * 2) == []
    assert sorted(p.x for p in tracker.placed) == [130, 430]


def test_a_card_may_miss_one_frame_at_a_time_between_its_reads() -> None:
    other = det("2C", 400, 400)  # another card on the felt: the frames are not empty
    gappy = [[det("8D", 100, 100), other], [other], [det("8D", 100, 100), other],
             [det("8D", 101, 100), other], [other], [det("8D", 100, 101), other]]
    # One frame missed at a time is forgiven (the default): 8D is placed at its third
    # read (frame 4), 2C at its third frame.
    tracker = CardTracker(stable_frames=3)
    events = [tracker.update(frame) for frame in gappy]
    assert [[e.card for e in found if isinstance(e, CardPlaced)] for found in events] == [
        [], [], ["2C"], ["8D"], [], []]
    # With max_missed 0 a card unread in a frame starts over.
    strict = feed(CardTracker(stable_frames=3, max_missed=0), gappy)
    assert [e.card for e in strict if isinstance(e, CardPlaced)] == ["2C"]
    # Two frames missed in a row are not forgiven.
    twice = [[det("8D", 100, 100), other], [other], [other], [det("8D", 100, 100), other],
             [det("8D", 100, 100), other]]
    assert [e.card for e in feed(CardTracker(stable_frames=3), twice)
            if isinstance(e, CardPlaced)] == ["2C"]


def test_a_corner_read_as_another_card_in_between_starts_over() -> None:
    # 6D, then 9D at the same corner, then 6D twice: the corner is contested, and 6D
    # needs three reads after the contest (none of them placed 9D: one read).
    frames = [[det("6D", 100, 100)], [det("9D", 101, 100)], [det("6D", 100, 100)],
              [det("6D", 100, 100)]]
    assert feed(CardTracker(stable_frames=3), frames) == []
    (placed,) = feed(CardTracker(stable_frames=3),
                     [*frames, [det("6D", 100, 100)]])
    assert isinstance(placed, CardPlaced) and placed.card == "6D"
    # Another card read elsewhere in the missed frame contests nothing.
    apart = [[det("6D", 100, 100)], [det("9D", 300, 100)], [det("6D", 100, 100)],
             [det("6D", 100, 100)]]
    assert [e.card for e in feed(CardTracker(stable_frames=3), apart)
            if isinstance(e, CardPlaced)] == ["6D"]


def test_a_negative_miss_allowance_is_refused() -> None:
    with pytest.raises(ValueError, match="max_missed"):
        CardTracker(max_missed=-1)
