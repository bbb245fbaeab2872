"""The witness camera's doubt: a read that may be a card the shoe put in that place is an
unknown corner, not a card the shoe never dealt (docs/fusion.md, "The witness's doubt")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2
import pytest

from tablectl.camera_feed import CameraFeed
from tablectl.camera_start import fusion_poster, start_camera
from tablectl.fusion import CardFusion
from tablectl.house_deck_learning import shoe_places
from tablectl.service import TableService
from tablectl.witness_doubt import SHOE_CARD_POSSIBLE, UNKNOWN, WitnessDoubt, doubt_reads
from tests.tablectl.helpers import Signal, StillPicture, deal_two_boxes, running_service
from vision.detection import Detection
from vision.layout import Layout

WAIT_S = 15.0
# Box 1 holds 9S and 7D (the shoe's), box 2 TC and 8H, the dealer 6C.
PLACES = {"box1": (("9S", "7D"), ("7D",)), "box2": (("TC", "8H"), ()),
          "dealer": (("6C",), ())}


def read(card: str, box: str | None, *alternatives: tuple[str, float]) -> Detection:
    return Detection(card, 100.0, 200.0, 0.9, box, None, tuple(alternatives))


# -- the rule -----------------------------------------------------------------------------

def test_a_read_the_shoes_card_may_be_is_doubted() -> None:
    # 6D read in box 1, where the shoe put 7D, which the networks give 5%.
    kept, doubted = doubt_reads([read("6D", "box1", ("7D", 0.05), ("8D", 0.01))],
                                PLACES, 0.02)
    assert kept == []
    assert [(d.card, d.reason, d.box, d.x, d.y) for d in doubted] == [
        (UNKNOWN, SHOE_CARD_POSSIBLE, "box1", 100.0, 200.0)]


def test_a_read_stands_when_no_card_of_its_place_is_possible_enough() -> None:
    reads = [
        read("6D", "box1", ("7D", 0.0199)),  # under the threshold
        read("6D", "box1", ("8H", 0.5)),  # 8H is the shoe's, but in box 2
        read("6D", "box1"),  # the networks give no other card anything
        read("6D", None, ("7D", 0.5)),  # outside every area
        read("6D", "box5", ("7D", 0.5)),  # a place the shoe put nothing in
    ]
    kept, doubted = doubt_reads(reads, PLACES, 0.02)
    assert kept == reads and doubted == []


def test_a_card_the_shoe_put_there_is_never_doubted() -> None:
    # 9S was read there already (it is not among the unread), and 7D is possible too.
    reads = [read("9S", "box1", ("7D", 0.4)), read("7D", "box1", ("9S", 0.3))]
    kept, doubted = doubt_reads(reads, PLACES, 0.02)
    assert kept == reads and doubted == []


def test_a_card_read_before_counts_as_one_the_shoe_put_there() -> None:
    # 9S is matched already; a later view of it read as 6S (9S possible) is still doubted.
    kept, doubted = doubt_reads([read("6S", "box1", ("9S", 0.2))], PLACES, 0.02)
    assert kept == [] and len(doubted) == 1


def test_the_doubt_counts_and_refuses_a_threshold_out_of_range() -> None:
    doubt = WitnessDoubt(lambda: PLACES, 0.02)
    doubt([read("6D", "box1", ("7D", 0.05)), read("9S", "box1")])
    doubt([read("6D", "box1", ("7D", 0.05))])
    assert doubt.doubted == 2
    for bad in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError, match="between 0 and 1"):
            WitnessDoubt(lambda: PLACES, bad)


def test_reads_without_alternatives_never_ask_for_the_places() -> None:
    def places() -> Any:
        raise AssertionError("the table's places were read for nothing")

    kept, doubted = WitnessDoubt(places)([read("9S", "box1"), read("6C", "dealer")])
    assert [d.card for d in kept] == ["9S", "6C"] and doubted == []


# 7D has been seen misread as 6D on this table; 2C as 3C.
LOOK_ALIKES = frozenset({("7D", "6D"), ("2C", "3C")})


def test_a_misread_seen_on_this_table_is_doubted_however_sure_the_networks_are() -> None:
    # 6D read in box 1 where the shoe put 7D: the networks give 7D nothing at all.
    kept, doubted = doubt_reads([read("6D", "box1")], PLACES, 0.02, LOOK_ALIKES)
    assert kept == [] and [(d.card, d.reason) for d in doubted] == [
        (UNKNOWN, SHOE_CARD_POSSIBLE)]


def test_a_look_alike_doubts_only_where_the_shoe_put_its_card() -> None:
    reads = [
        read("6D", "box2"),  # box 2 holds TC and 8H: no 7D there
        read("3C", "box1"),  # 2C was seen read as 3C, but the shoe put no 2C in box 1
        read("7D", "dealer"),  # the other way round (6D read as 7D) was never seen
        read("9D", "box1"),  # no misread of 9S or 7D as 9D was seen
    ]
    kept, doubted = doubt_reads(reads, PLACES, 0.02, LOOK_ALIKES)
    assert kept == reads and doubted == []


def test_the_doubt_asks_for_the_look_alikes_every_frame() -> None:
    learnt: set[tuple[str, str]] = set()
    doubt = WitnessDoubt(lambda: PLACES, 0.02, look_alikes=lambda: frozenset(learnt))
    assert doubt([read("6D", "box1")]) == ([read("6D", "box1")], [])
    learnt.add(("7D", "6D"))  # learnt meanwhile
    kept, doubted = doubt([read("6D", "box1")])
    assert kept == [] and len(doubted) == 1 and doubt.doubted == 1


def test_places_that_cannot_be_read_leave_the_reads_standing(
        caplog: pytest.LogCaptureFixture) -> None:
    def places() -> Any:
        raise RuntimeError("no snapshot yet")

    reads = [read("6D", "box1", ("7D", 0.5))]
    doubt = WitnessDoubt(places)
    for _ in range(5):
        assert doubt(reads) == (reads, [])
    # Logged the 1st, 2nd and 4th time, not at every frame.
    assert caplog.text.count("no read doubted") == 3 and doubt.failures == 5


# -- on the table --------------------------------------------------------------------------

CHANGED = Signal()


@pytest.fixture
def service(tmp_path: Path) -> Iterator[TableService]:
    with running_service(tmp_path, CHANGED.notify) as running:
        yield running


class MisreadingRecognizer:
    """Reads the round's five cards every frame, 7D (box 1) as 6D with 7D at `p_7d`."""

    def __init__(self, p_7d: float) -> None:
        self.p_7d = p_7d

    def detect(self, frame: Any, layout: Any = None) -> list[Detection]:
        return [Detection("9S", 300.0, 500.0, 0.99, "box1"),
                Detection("6D", 330.0, 510.0, 0.8, "box1", None, (("7D", self.p_7d),)),
                Detection("TC", 600.0, 500.0, 0.99, "box2"),
                Detection("8H", 630.0, 510.0, 0.99, "box2"),
                Detection("6C", 640.0, 150.0, 0.99, "dealer")]


def _witness(service: TableService, layout: Layout, p_7d: float
             ) -> tuple[CameraFeed, CardFusion, WitnessDoubt]:
    fusion = CardFusion("shoe+camera", grace_frames=3)
    post, on_frame = fusion_poster(service, fusion)
    feed = CameraFeed(StillPicture(), MisreadingRecognizer(p_7d), layout, post, fps=50.0,
                      on_frame=on_frame)
    doubt = WitnessDoubt(lambda: shoe_places(service.snapshot.view, fusion.matched), 0.02)
    feed.doubt = doubt
    feed.fusion = fusion
    return feed.start(), fusion, doubt


def test_a_doubted_misread_halts_nothing(service: TableService, layout: Layout) -> None:
    deal_two_boxes(service)
    feed, fusion, doubt = _witness(service, layout, 0.05)
    try:
        CHANGED.wait_until(lambda: fusion.stats.matched == 4, "four cards matched", WAIT_S)
        # Well past the grace a card the shoe never dealt gets (3 frames).
        CHANGED.wait_until(lambda: feed.stats().frames >= 30, "thirty frames", WAIT_S)
    finally:
        assert feed.stop()
    assert not service.table.due().halted
    assert fusion.stats.flags == {}
    assert doubt.doubted >= 30 - 1 and feed.stats().doubted == doubt.doubted
    assert feed.stats().to_json()["doubted"] == doubt.doubted


def test_a_read_the_networks_are_sure_of_still_halts(service: TableService,
                                                     layout: Layout) -> None:
    deal_two_boxes(service)
    feed, fusion, doubt = _witness(service, layout, 0.01)  # 7D under the threshold
    try:
        CHANGED.wait_until(lambda: service.table.due().halted, "the round halted", WAIT_S)
    finally:
        assert feed.stop()
    assert service.table.due().open_flags == ("CARD_NOT_FROM_SHOE",)
    assert doubt.doubted == 0


def test_a_sure_misread_seen_before_on_this_table_halts_nothing(
        service: TableService, layout: Layout) -> None:
    """The networks give 7D under the threshold (the read would halt, as above), but 7D
    has been seen misread as 6D here."""
    deal_two_boxes(service)
    feed, fusion, doubt = _witness(service, layout, 0.01)
    doubt.look_alikes = lambda: LOOK_ALIKES
    try:
        CHANGED.wait_until(lambda: fusion.stats.matched == 4, "four cards matched", WAIT_S)
        CHANGED.wait_until(lambda: feed.stats().frames >= 30, "thirty frames", WAIT_S)
    finally:
        assert feed.stop()
    assert not service.table.due().halted and fusion.stats.flags == {}
    assert doubt.doubted >= 30 - 1


def _config(tmp_path: Path, **camera: Any) -> Any:
    from hwsim.camera.table_frames import render_table_frame

    from vision.layout import layout_from_dict, save_layout

    image, layout_doc = render_table_frame({"box1": ["5S"]}, seed=1)
    stills = tmp_path / "stills"
    stills.mkdir(exist_ok=True)
    cv2.imwrite(str(stills / "frame_0.png"), image)
    save_layout(layout_from_dict(layout_doc), tmp_path / "layout.json")
    return SimpleNamespace(camera=SimpleNamespace(
        source=str(stills), layout=str(tmp_path / "layout.json"), fps=5.0, width=1280,
        height=720, **camera))


@pytest.mark.parametrize(("with_shoe", "threshold", "doubts"),
                         [(True, 0.05, True), (True, 0.0, False), (False, 0.05, False)])
def test_start_camera_doubts_only_beside_a_shoe(tmp_path: Path, service: TableService,
                                                with_shoe: bool, threshold: float,
                                                doubts: bool) -> None:
    feed = start_camera(_config(tmp_path, witness_doubt=threshold), service,
                        with_shoe=with_shoe)
    try:
        assert (feed.doubt is not None) == doubts
        if feed.doubt is not None:
            assert feed.doubt.threshold == threshold
    finally:
        assert feed.stop()


def test_start_camera_doubts_the_misreads_its_deck_learning_has_seen(
        tmp_path: Path, service: TableService) -> None:
    feed = start_camera(_config(tmp_path, witness_doubt=0.05, learn_house_deck=True,
                                house_deck=str(tmp_path / "deck.npz")), service,
                        with_shoe=True)
    try:
        assert feed.doubt is not None and feed.learning is not None
        assert feed.doubt.look_alikes is not None and feed.doubt.look_alikes() == set()
        for _ in range(2):
            feed.learning.look_alikes.record("7D", "6D")
        assert feed.doubt.look_alikes() == {("7D", "6D")}
        feed.learning.restart()  # a new deck: what was seen of the old one goes
        assert feed.doubt.look_alikes() == set()
    finally:
        assert feed.stop()


def test_a_doubted_read_reaches_the_deck_learning_as_an_unknown_corner(
        service: TableService, layout: Layout) -> None:
    """Elimination learns a corner the networks misread from the unknown corners."""

    class Learning:
        def __init__(self) -> None:
            self.unknown: list[Detection] = []
            self.reads: list[Detection] = []

        def after_frame(self, frame: Any, reads: Any, unknown: Any) -> None:
            self.reads, self.unknown = list(reads), list(unknown)

    class Recognizer(MisreadingRecognizer):
        def detect_all(self, frame: Any, layout: Any = None
                       ) -> tuple[list[Detection], list[Detection]]:
            return self.detect(frame, layout), []

    deal_two_boxes(service)
    learning = Learning()
    fusion = CardFusion("shoe+camera", grace_frames=3)
    post, on_frame = fusion_poster(service, fusion)
    feed = CameraFeed(StillPicture(), Recognizer(0.05), layout, post, fps=50.0,
                      on_frame=on_frame)
    feed.doubt = WitnessDoubt(lambda: shoe_places(service.snapshot.view, fusion.matched))
    feed.learning = learning  # type: ignore[assignment]
    feed.start()
    try:
        CHANGED.wait_until(lambda: feed.stats().frames >= 3, "three frames", WAIT_S)
    finally:
        assert feed.stop()
    assert [(d.card, d.reason, d.x) for d in learning.unknown] == [
        (UNKNOWN, SHOE_CARD_POSSIBLE, 330.0)]
    assert "6D" not in [d.card for d in learning.reads]
