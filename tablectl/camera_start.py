"""The camera feed built from the daemon's configuration, its events carried to the table.

`fusion_poster(service, fusion)` makes the `post` and `on_frame` pair that
carries the camera's events to the table through `CardFusion` on the
service's loop thread; `start_camera(config, service, with_shoe=...)` builds
and starts the whole feed (`tablectl.camera_feed.CameraFeed`) from the
daemon's configuration (`source=` reads a given frame source instead of the
configured one).

OpenCV, numpy and the vision package are imported only when a feed is
started: a daemon without a camera never loads them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tablectl.camera_feed import SOURCE, CameraFeed, OnFrame, Post
from tablectl.camera_health import DEFAULT_TIMEOUT_S, CameraHealth
from tablectl.fusion import CardFusion
from tablectl.service import Submission, TableService

if TYPE_CHECKING:
    from table.machine import Table
    from vision.sources import FrameSource
    from vision.tracker import TrackerEvent

log = logging.getLogger("tablectl.camera_feed")  # the camera's lines keep their logger


def fusion_poster(service: TableService, fusion: CardFusion,
                  source: str = SOURCE) -> tuple[Post, OnFrame]:
    """The `post` and `on_frame` of a feed whose events reach the table through `fusion`.

    Every tracker event becomes a submission whose `derive` runs `fusion.observe` on
    the loop thread; after a frame, `fusion.frame` runs there too, but only while the
    fusion waits for something (a card to judge, a card held during a halt), so an idle
    camera adds nothing to the service's queue."""

    def post(event: TrackerEvent) -> None:
        def derive(table: Table) -> list[dict[str, Any]]:
            return fusion.observe(event, table)

        service.submit(Submission(None, source, derive=derive))

    def on_frame(_frame_no: int) -> None:
        if fusion.waiting:
            service.submit(Submission(None, source, derive=fusion.frame))

    return post, on_frame


def start_camera(config: Any, service: TableService, *, with_shoe: bool,
                 source: FrameSource | None = None,
                 clock: Callable[[], float] = time.monotonic) -> CameraFeed:
    """Build and start the camera feed of `config.camera` (a `CameraConfig`).

    With a shoe the camera is its witness (`shoe+camera`), without one it is the card
    source (`camera`). A bad layout file or a missing recognizer model raises (the
    configuration must be fixed); a camera that cannot be opened yet is retried.
    `source` given (a simulated camera, a test's frames): it is read instead of the
    config's `source`, and never reopened; the layout file, fps... still come from
    the config. `clock` times the camera's health (how long since a usable frame)."""
    from vision.layout import load_layout
    from vision.recognizer import Recognizer
    from vision.sources import open_source

    camera = config.camera if hasattr(config, "camera") else config
    layout = load_layout(camera.layout)
    learn = bool(getattr(camera, "learn_house_deck", False)) and with_shoe
    recognizer = Recognizer(house_deck=None if learn else getattr(camera, "house_deck", None),
                            faint_passes=bool(getattr(camera, "faint_passes", False)),
                            proposer=bool(getattr(camera, "proposer", True)))
    for line in recognizer.int8_refused:
        log.warning("camera: int8 copy not run: %s", line)

    def reopen() -> FrameSource:
        return open_source(camera.source, camera.width, camera.height, camera.fps)

    injected = source is not None
    if not injected:
        try:
            source = reopen()
        except Exception as error:
            log.warning("camera: cannot open %r yet (%s); retrying in the background",
                        camera.source, error)
            source = None
    fusion = CardFusion("shoe+camera" if with_shoe else "camera")
    post, on_frame = fusion_poster(service, fusion)
    feed = CameraFeed(source, recognizer, layout, post, camera.fps, on_frame=on_frame,
                      reopen=None if injected else reopen,
                      health=CameraHealth(getattr(camera, "timeout", DEFAULT_TIMEOUT_S),
                                          clock=clock))
    feed.fusion = fusion
    from tablectl.house_deck_learning import shoe_places

    def places() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
        return shoe_places(service.snapshot.view, fusion.matched)

    if learn:
        from tablectl.house_deck_learning import HouseDeckLearning

        feed.learning = HouseDeckLearning(recognizer, camera.house_deck, places=places)
        fusion.on_match = feed.learning.confirm
    doubt = float(getattr(camera, "witness_doubt", 0.0))
    if with_shoe and doubt > 0:
        from tablectl.witness_doubt import WitnessDoubt

        learning = feed.learning
        feed.doubt = WitnessDoubt(
            places, doubt,
            look_alikes=None if learning is None else lambda: learning.look_alikes.pairs())
    return feed.start()
