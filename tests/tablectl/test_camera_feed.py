"""The camera feed's thread: frames at a bounded rate, faults survived, a clean stop,
and the feed wired to the table service through the fusion."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
import pytest
from hwsim.camera.felt import Felt, FeltCamera

from tablectl.camera_feed import CameraFeed
from tablectl.camera_start import fusion_poster, start_camera
from tablectl.fusion import CardFusion
from tablectl.service import TableService
from tests.tablectl.helpers import Signal, running_service
from vision.layout import Layout, layout_from_dict, save_layout
from vision.recognizer import Recognizer
from vision.tracker import CardPlaced

SEED = 1  # the felts of these tests are read exactly at this render seed
ROOT = Path(__file__).resolve().parents[2]
# A small picture with something in it (a black or flat frame is skipped unread).
PICTURE = np.random.default_rng(0).integers(0, 256, (72, 128, 3), dtype=np.uint8)


WAIT_S = 15.0


class Collector:
    """What a feed posts and the frames it read; `changed` wakes a test's wait."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.frames: list[int] = []
        self._lock = threading.Lock()
        self.changed = Signal()

    def post(self, event: Any) -> None:
        with self._lock:
            self.events.append(event)
        self.changed.notify()

    def on_frame(self, number: int) -> None:
        with self._lock:
            self.frames.append(number)
        self.changed.notify()

    def placed(self) -> list[tuple[str, str | None]]:
        with self._lock:
            return [(e.card, e.box) for e in self.events if isinstance(e, CardPlaced)]


class FlakySource:
    """A camera that fails now and then: `script` says what each read does
    ("raise", "none" or "frame"); after the script, every read gives a frame."""

    def __init__(self, inner: Any, script: list[str]) -> None:
        self.inner = inner
        self.script = list(script)
        self.reads = 0
        self.closed = False

    def read(self) -> np.ndarray | None:
        self.reads += 1
        step = self.script.pop(0) if self.script else "frame"
        if step == "raise":
            raise OSError("the camera went away (USB reset)")
        if step == "none":
            return None
        frame: np.ndarray | None = self.inner.read()
        return frame

    def close(self) -> None:
        self.closed = True


class PictureSource:
    """A camera that hands out the same small picture at every read."""

    def read(self) -> np.ndarray:
        return PICTURE.copy()

    def close(self) -> None:
        pass


class BrokenSource:
    def __init__(self) -> None:
        self.closed = False
        self.reads = 0
        self.read_once = threading.Event()

    def read(self) -> np.ndarray | None:
        self.reads += 1
        self.read_once.set()
        raise OSError("no such device")

    def close(self) -> None:
        self.closed = True


def test_the_feed_survives_a_failing_source_and_stops_cleanly(
        recognizer: Recognizer, layout: Layout) -> None:
    felt = Felt({"box1": ["AS"]})
    source = FlakySource(FeltCamera(felt, seed=SEED), ["frame", "raise", "none", "raise"])
    got = Collector()
    feed = CameraFeed(source, recognizer, layout, got.post, fps=50.0, on_frame=got.on_frame,
                      backoff_s=0.01, max_backoff_s=0.05).start()
    try:
        got.changed.wait_until(lambda: got.placed() == [("AS", "box1")], "AS on box 1", WAIT_S)
        assert feed.running
        stats = feed.stats()
        assert stats.source_errors == 3
        assert stats.last_error is not None and "USB reset" in stats.last_error
        assert stats.frames >= 3 and stats.events == 1
        assert stats.detect_ms_p50 is not None and stats.detect_ms_p99 is not None
        assert stats.detect_ms_p50 <= stats.detect_ms_p99
        assert got.frames[:3] == [1, 2, 3]  # once per frame recognised
    finally:
        assert feed.stop(timeout_s=5.0)
    assert not feed.running and source.closed
    assert feed.stats().to_json()["running"] is False


def test_a_source_that_keeps_failing_is_reopened(recognizer: Recognizer,
                                                 layout: Layout) -> None:
    broken = BrokenSource()
    felt = Felt({"box2": ["KD"]})
    opened: list[Any] = []

    def reopen() -> Any:
        if not opened:
            opened.append("refused")
            raise OSError("device busy")
        camera = FeltCamera(felt, seed=SEED)
        opened.append(camera)
        return camera

    got = Collector()
    feed = CameraFeed(broken, recognizer, layout, got.post, fps=50.0, reopen=reopen,
                      backoff_s=0.01, max_backoff_s=0.02).start()
    try:
        got.changed.wait_until(lambda: got.placed() == [("KD", "box2")], "KD on box 2", WAIT_S)
    finally:
        assert feed.stop()
    assert broken.closed  # closed before reopening
    assert opened[0] == "refused" and feed.stats().source_errors == 2
    assert opened[1].read() is None  # the feed closed its source on stop


def test_stop_does_not_wait_out_a_long_back_off(recognizer: Recognizer,
                                                layout: Layout) -> None:
    broken = BrokenSource()
    feed = CameraFeed(broken, recognizer, layout, lambda event: None, fps=10.0,
                      backoff_s=30.0, max_backoff_s=60.0).start()
    assert broken.read_once.wait(WAIT_S)  # the feed now backs off for 30 s
    started = time.monotonic()
    assert feed.stop(timeout_s=5.0)
    assert time.monotonic() - started < 1.0


def test_frames_are_read_at_most_at_the_frame_rate(layout: Layout) -> None:
    class CountingRecognizer:
        def detect(self, frame: Any, layout: Any = None) -> list[Any]:
            return []

    frame = PICTURE
    read_at: list[float] = []
    read = Signal()

    class StillSource:
        def read(self) -> np.ndarray:
            read_at.append(time.monotonic())
            read.notify()
            return frame

        def close(self) -> None:
            pass

    feed = CameraFeed(StillSource(), CountingRecognizer(), layout, lambda event: None,
                      fps=20.0).start()
    read.wait_until(lambda: len(read_at) >= 11, "eleven frames read", WAIT_S)
    assert feed.stop()
    # Ten intervals at 20 fps: half a second at least (a late frame is not made up
    # for by a burst; a tick of the clock's resolution aside).
    assert read_at[10] - read_at[0] >= 10 / 20.0 - 0.01


def test_a_recognizer_fault_skips_the_frame(layout: Layout) -> None:
    class FailingOnce:
        calls = 0

        def detect(self, frame: Any, layout: Any = None) -> list[Any]:
            self.calls += 1
            if self.calls == 1:
                raise ValueError("bad frame")
            return []

    got = Collector()
    feed = CameraFeed(PictureSource(), FailingOnce(), layout, lambda event: None,
                      on_frame=got.on_frame,
                      fps=100.0).start()
    try:
        got.changed.wait_until(lambda: feed.stats().frames >= 3, "three frames", WAIT_S)
    finally:
        feed.stop()
    assert feed.stats().detect_errors == 1


def test_the_stats_give_the_median_index_size_of_the_cards_read(layout: Layout) -> None:
    from vision.detection import Detection

    class Sizes:
        """Frame 1: indices of 10, 30 and 12 px (and a read of unknown size); then none."""
        calls = 0

        def detect(self, frame: Any, layout: Any = None) -> list[Any]:
            self.calls += 1
            if self.calls > 1:
                return []
            return [Detection("AS", 10.0, 10.0, 0.9, index_px=10.0),
                    Detection("KD", 50.0, 10.0, 0.9, index_px=30.0),
                    Detection("7C", 90.0, 10.0, 0.9),
                    Detection("2H", 130.0, 10.0, 0.9, index_px=12.0)]

    got = Collector()
    feed = CameraFeed(PictureSource(), Sizes(), layout, lambda event: None,
                      on_frame=got.on_frame, fps=100.0)
    assert feed.stats().index_px_p50 is None  # nothing read yet
    feed.start()
    try:
        got.changed.wait_until(lambda: feed.stats().frames >= 2, "two frames", WAIT_S)
    finally:
        feed.stop()
    # The middle of 10, 12 and 30; the read of unknown size does not count.
    assert feed.stats().index_px_p50 == 12.0
    assert feed.stats().to_json()["index_px_p50"] == 12.0


def test_bad_arguments_are_refused(recognizer: Recognizer, layout: Layout) -> None:
    with pytest.raises(ValueError, match="fps"):
        CameraFeed(BrokenSource(), recognizer, layout, lambda event: None, fps=0)
    with pytest.raises(ValueError, match="source"):
        CameraFeed(None, recognizer, layout, lambda event: None, fps=10)


# -- wired to the table -------------------------------------------------------------------

# Woken after each batch the table's loop applied.
CHANGED = Signal()


@pytest.fixture
def service(tmp_path: Path) -> Iterator[TableService]:
    with running_service(tmp_path, CHANGED.notify) as running:
        yield running


def test_the_feed_checks_the_shoe_through_the_fusion(service: TableService,
                                                     recognizer: Recognizer,
                                                     layout: Layout) -> None:
    for event in [{"bet": {"box": 1, "amount": 100}}, {"bet": {"box": 2, "amount": 100}},
                  {"deal": {}}]:
        assert service.submit_and_wait(event, "terminal").accepted
    for card in ("9S", "TC", "6C", "7D", "8H"):
        assert service.submit_and_wait({"card": card}, "shoe").accepted
    felt = Felt({"box1": ["9S", "7D"], "box2": ["TC", "8H"], "dealer": ["6C"]})
    fusion = CardFusion("shoe+camera", grace_frames=3)
    post, on_frame = fusion_poster(service, fusion)
    feed = CameraFeed(FeltCamera(felt, seed=SEED), recognizer, layout, post, fps=30.0,
                      on_frame=on_frame).start()
    try:
        CHANGED.wait_until(lambda: fusion.stats.matched == 5, "five cards matched", WAIT_S)
        felt.put(1, "QH")  # never left the shoe
        CHANGED.wait_until(lambda: service.table.due().halted, "the round halted", WAIT_S)
    finally:
        assert feed.stop()
    assert service.table.due().open_flags == ("CARD_NOT_FROM_SHOE",)
    assert fusion.stats.flags == {"CARD_NOT_FROM_SHOE": 1}


@pytest.mark.parametrize(("faint_passes", "proposer"), [(False, True), (True, False)])
def test_start_camera_builds_the_feed_from_the_config(tmp_path: Path, service: TableService,
                                                      faint_passes: bool, proposer: bool) -> None:
    from hwsim.camera.table_frames import render_table_frame

    image, layout_doc = render_table_frame({"box1": ["5S"]}, seed=SEED)
    stills = tmp_path / "stills"
    stills.mkdir()
    for k in range(4):
        cv2.imwrite(str(stills / f"frame_{k}.png"), image)
    save_layout(layout_from_dict(layout_doc), tmp_path / "layout.json")
    config = SimpleNamespace(camera=SimpleNamespace(
        source=str(stills), layout=str(tmp_path / "layout.json"), fps=30.0, width=1280,
        height=720, faint_passes=faint_passes, proposer=proposer))
    assert service.submit_and_wait({"bet": {"box": 1, "amount": 100}}, "terminal").accepted
    assert service.submit_and_wait({"deal": {}}, "terminal").accepted
    feed = start_camera(config, service, with_shoe=False)
    try:
        assert feed.fusion is not None and feed.fusion.mode == "camera"
        assert feed.recognizer.faint_passes is faint_passes
        assert (feed.recognizer.proposer is not None) is proposer
        CHANGED.wait_until(lambda: service.table.view().boxes[0].hands[0].cards == ("5S",),
                           "5S on box 1", WAIT_S)
    finally:
        assert feed.stop()


def test_a_table_without_a_camera_never_loads_opencv() -> None:
    code = ("import sys, tablectl.fusion, tablectl.camera_feed, tablectl.camera_start; "
            "print(sorted(m for m in ('cv2', 'numpy', 'vision.recognizer', 'vision.sources') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"
