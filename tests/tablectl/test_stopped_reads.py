"""A witness camera with a house deck: a corner the networks read surely but the deck
stopped is read all the same where nothing ties it to the shoe's cards of its place, so
a card switched in is flagged however little the deck knows its view (docs/fusion.md,
"Corners the house deck stopped")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablectl.camera_feed import CameraFeed
from tablectl.camera_start import fusion_poster
from tablectl.fusion import CardFusion
from tablectl.house_deck_learning import shoe_places
from tablectl.service import TableService
from tablectl.witness_doubt import WitnessDoubt, reclaim_stopped
from tests.tablectl.helpers import Signal, StillPicture, deal_two_boxes, running_service
from vision.detection import Detection
from vision.layout import Layout
from vision.reads import DECK_DISAGREES, DECK_UNSURE, UNKNOWN_CARD, UNSURE

WAIT_S = 15.0
# Box 1 holds 9S and 7D (the shoe's), box 2 TC and 8H, the dealer 6C.
PLACES = {"box1": (("9S", "7D"), ("7D",)), "box2": (("TC", "8H"), ()),
          "dealer": (("6C",), ())}


def stopped(box: str | None, deck_card: str, *networks: tuple[str, float],
            reason: str = DECK_UNSURE) -> Detection:
    """An unknown corner the house deck stopped: the networks' cards, likeliest first."""
    return Detection(UNKNOWN_CARD, 100.0, 200.0, 0.0, box, reason, tuple(networks),
                     deck_card)


def test_a_stopped_corner_nothing_ties_to_the_shoe_is_read_as_the_networks_read_it() -> None:
    corners = [stopped("box1", "QS", ("AD", 0.98), ("4D", 0.01)),
               stopped("box2", "5C", ("KH", 0.9), reason=DECK_DISAGREES)]
    reclaimed, left = reclaim_stopped(corners, PLACES, 0.02)
    assert left == []
    assert [(d.card, d.confidence, d.box, d.reason, d.alternatives, d.deck_card, d.x)
            for d in reclaimed] == [
        ("AD", 0.98, "box1", None, (("4D", 0.01),), None, 100.0),
        ("KH", 0.9, "box2", None, (), None, 100.0)]


def test_a_stopped_corner_anything_ties_to_the_shoe_stays_unknown() -> None:
    corners = [
        stopped("box1", "QS", ("7D", 0.97)),  # the networks read the shoe's card there
        stopped("box1", "7D", ("6D", 0.99), reason=DECK_DISAGREES),  # the deck reads it
        stopped("box1", "QS", ("6D", 0.9), ("9S", 0.05)),  # the shoe's 9S is possible
        stopped("box2", "QS", ("6D", 0.99)),  # 8H is seen misread as 6D here (below)
    ]
    reclaimed, left = reclaim_stopped(corners, PLACES, 0.02, {("8H", "6D")})
    assert reclaimed == [] and left == corners


def test_only_corners_the_deck_stopped_are_reclaimed() -> None:
    unsure = Detection(UNKNOWN_CARD, 1.0, 2.0, 0.4, "box1", UNSURE, (("AD", 0.4),))
    no_networks = stopped("box1", "QS")  # nothing the networks give: nothing to read
    reclaimed, left = reclaim_stopped([unsure, no_networks], PLACES, 0.02)
    assert reclaimed == [] and left == [unsure, no_networks]


def test_the_doubt_judges_reads_and_corners_in_one_look_at_the_places() -> None:
    asked = []

    def places() -> Any:
        asked.append(1)
        return PLACES

    doubt = WitnessDoubt(places, 0.02)
    misread = Detection("6D", 5.0, 6.0, 0.8, "box1", None, (("7D", 0.3),))
    switched_in = stopped("box2", "QS", ("AD", 0.99))
    kept, unknown = doubt.judge([misread], [switched_in])
    assert [d.card for d in kept] == ["AD"]
    assert [(d.card, d.x) for d in unknown] == [(UNKNOWN_CARD, 5.0)]
    assert (doubt.doubted, doubt.reclaimed, len(asked)) == (1, 1, 1)
    doubt.reclaim = False  # as before the rule, for a benchmark to compare with
    kept, unknown = doubt.judge([], [switched_in])
    assert kept == [] and unknown == [switched_in] and doubt.reclaimed == 1


# -- on the table --------------------------------------------------------------------------

CHANGED = Signal()


@pytest.fixture
def service(tmp_path: Path) -> Iterator[TableService]:
    with running_service(tmp_path, CHANGED.notify) as running:
        yield running


class DeckReader:
    """Reads the round's cards every frame but one corner of box 1, which the house deck
    stopped: the networks read `networks`, the deck's nearest card is `deck_card`."""

    def __init__(self, networks: str, deck_card: str) -> None:
        self.corner = Detection(UNKNOWN_CARD, 330.0, 510.0, 0.0, "box1", DECK_UNSURE,
                                ((networks, 0.99),), deck_card)

    def detect(self, frame: Any, layout: Any = None) -> list[Detection]:
        return self.detect_all(frame, layout)[0]

    def detect_all(self, frame: Any, layout: Any = None
                   ) -> tuple[list[Detection], list[Detection]]:
        return [Detection("9S", 300.0, 500.0, 0.99, "box1"),
                Detection("TC", 600.0, 500.0, 0.99, "box2"),
                Detection("8H", 630.0, 510.0, 0.99, "box2"),
                Detection("6C", 640.0, 150.0, 0.99, "dealer")], [self.corner]


def _deal_and_watch(service: TableService, layout: Layout, reader: DeckReader
                    ) -> tuple[CameraFeed, CardFusion]:
    deal_two_boxes(service)
    fusion = CardFusion("shoe+camera", grace_frames=3)
    post, on_frame = fusion_poster(service, fusion)
    feed = CameraFeed(StillPicture(), reader, layout, post, fps=50.0, on_frame=on_frame)
    feed.doubt = WitnessDoubt(lambda: shoe_places(service.snapshot.view, fusion.matched), 0.02)
    feed.fusion = fusion
    return feed.start(), fusion


def test_a_card_switched_in_that_the_deck_does_not_know_halts_the_round(
        service: TableService, layout: Layout) -> None:
    """AD lies where the shoe put 7D: the deck names no card surely (its nearest QS),
    the networks read AD; neither is a card the shoe put in box 1."""
    feed, fusion = _deal_and_watch(service, layout, DeckReader("AD", "QS"))
    try:
        CHANGED.wait_until(lambda: service.table.due().halted, "the round halted", WAIT_S)
    finally:
        assert feed.stop()
    assert service.table.due().open_flags == ("CARD_NOT_FROM_SHOE",)
    assert feed.stats().to_json()["reclaimed"] >= 1


def test_a_corner_the_deck_takes_for_the_shoes_card_halts_nothing(
        service: TableService, layout: Layout) -> None:
    """The networks read 6D surely, the deck's nearest is 7D, the shoe's card there: a
    sure misread of the networks (as on a deck whose 6 and 7 they confuse)."""
    feed, fusion = _deal_and_watch(service, layout, DeckReader("6D", "7D"))
    try:
        CHANGED.wait_until(lambda: fusion.stats.matched == 4, "four cards matched", WAIT_S)
        CHANGED.wait_until(lambda: feed.stats().frames >= 30, "thirty frames", WAIT_S)
    finally:
        assert feed.stop()
    assert not service.table.due().halted and fusion.stats.flags == {}
    assert feed.doubt is not None and feed.doubt.reclaimed == 0
