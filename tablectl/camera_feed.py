"""The camera feed: frames -> recognizer -> tracker -> the table service.

`CameraFeed` runs its own thread: it reads a frame at most `fps` times a
second, runs the recognizer and the tracker, and hands every tracker event to
`post` (then calls `on_frame`, if given, once per frame). A source that fails
(raises, or has no frame) is logged and retried with a growing back-off, and
reopened when a `reopen` callable is given; a frame that is no usable picture
(garbage, black, `camera_health.frame_problem`) is skipped, never recognised.
`health` (`CameraHealth`) reports the camera degraded once no usable frame has
come for its timeout, a read that hangs included; nothing the camera does stops
the daemon.

`tablectl.camera_start` builds and starts a feed from the daemon's
configuration and carries its events to the table through `CardFusion`.

OpenCV, numpy and the vision package are imported only when a feed is
started: a daemon without a camera never loads them.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from tablectl.camera_health import DEFAULT_TIMEOUT_S, CameraHealth, frame_problem
from tablectl.fusion import CardFusion
from tablectl.watchers import Watchers

if TYPE_CHECKING:
    from tablectl.house_deck_learning import HouseDeckLearning
    from tablectl.witness_doubt import WitnessDoubt
    from vision.sources import FrameSource
    from vision.tracker import TrackerEvent

log = logging.getLogger(__name__)

SOURCE = "camera"
DETECT_WINDOW = 1000  # detect times kept for the percentiles
INDEX_WINDOW = 500  # index sizes of the cards read last, kept for their median


class Recognizes(Protocol):
    def detect(self, frame: Any, layout: Any = None) -> Sequence[Any]: ...


class Tracks(Protocol):
    def update(self, detections: Sequence[Any]) -> list[TrackerEvent]: ...


Post = Callable[["TrackerEvent"], None]
OnFrame = Callable[[int], None]


@dataclass(frozen=True)
class FeedStats:
    frames: int  # frames read and recognised
    events: int  # tracker events posted
    source_errors: int  # failed reads (exceptions or no frame) and failed reopens
    detect_errors: int  # frames the recognizer or tracker failed on
    detect_ms_p50: float | None
    detect_ms_p99: float | None
    running: bool
    last_error: str | None
    bad_frames: int = 0  # frames read that were no usable picture (garbage, black)
    doubted: int = 0  # reads taken as unknown: a card the shoe put there was possible
    reclaimed: int = 0  # corners a house deck stopped, read as nothing ties them to the shoe
    # The median index size (rank glyph to suit pip, pixels) of the cards read last: under
    # about 14 px the recognizer misses several times more cards (docs/vision.md).
    index_px_p50: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "frames": self.frames, "events": self.events,
            "source_errors": self.source_errors, "detect_errors": self.detect_errors,
            "bad_frames": self.bad_frames, "doubted": self.doubted,
            "reclaimed": self.reclaimed,
            "index_px_p50": None if self.index_px_p50 is None else round(self.index_px_p50, 1),
            "detect_ms_p50": None if self.detect_ms_p50 is None else round(self.detect_ms_p50, 1),
            "detect_ms_p99": None if self.detect_ms_p99 is None else round(self.detect_ms_p99, 1),
            "running": self.running, "last_error": self.last_error,
        }


def _percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100.0 * len(ordered)))
    return ordered[rank - 1]


class CameraFeed:
    """One camera, read on its own thread. `start()`, then `stop()` (joins the thread)."""

    def __init__(
        self,
        source: FrameSource | None,
        recognizer: Recognizes,
        layout: Any,
        post: Post,
        fps: float,
        *,
        tracker: Tracks | None = None,
        on_frame: OnFrame | None = None,
        reopen: Callable[[], FrameSource] | None = None,
        backoff_s: float = 0.5,
        max_backoff_s: float = 10.0,
        name: str = "camera-feed",
        health: CameraHealth | None = None,
    ) -> None:
        """`source` None: open it with `reopen` on the feed's thread (a camera that is not
        there yet at start). `tracker` defaults to `vision.tracker.CardTracker()`;
        `health` to a `CameraHealth` of the default timeout."""
        if not fps > 0:
            raise ValueError(f"fps must be positive, got {fps!r}")
        if source is None and reopen is None:
            raise ValueError("a camera feed needs a source or a way to open one (reopen)")
        if tracker is None:
            from vision.tracker import CardTracker

            tracker = CardTracker()
        self.source = source
        self.recognizer = recognizer
        self.layout = layout
        self.tracker = tracker
        self.post = post
        self.on_frame = on_frame
        self.reopen = reopen
        self.fps = float(fps)
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.name = name
        self.health = health or CameraHealth(DEFAULT_TIMEOUT_S)
        # The fusion the events go through, when `start_camera` built the feed.
        self.fusion: CardFusion | None = None
        # Learns the house deck from the frames, when the config asks for it.
        self.learning: HouseDeckLearning | None = None
        # Beside a shoe: the reads that may be a card the shoe put there become unknown.
        self.doubt: WitnessDoubt | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._frames = 0
        self._events = 0
        self._source_errors = 0
        self._detect_errors = 0
        self._bad_frames = 0
        self._detect_ms: deque[float] = deque(maxlen=DETECT_WINDOW)
        self._index_px: deque[float] = deque(maxlen=INDEX_WINDOW)
        self._last_error: str | None = None
        # Told on the feed's thread after each read: a frame recognised, skipped or
        # failed (`stats()` has moved; `tablectl.watchers`).
        self.watchers = Watchers()

    # -- control ------------------------------------------------------------------------

    def start(self) -> CameraFeed:
        if self._thread is not None:
            raise RuntimeError("the camera feed is started already")
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()
        # Notices (and logs) a camera gone quiet even while a read hangs.
        threading.Thread(target=self._watch, name=f"{self.name}-watch", daemon=True).start()
        return self

    def stop(self, timeout_s: float = 5.0) -> bool:
        """Stop reading, wait for the thread (at most `timeout_s`) and close the source.
        True when the thread has ended."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout_s)
        ended = thread is None or not thread.is_alive()
        if ended:
            self._close_source()
        else:
            log.warning("camera: the feed did not stop within %.1f s (a frame read hangs); "
                        "its source is closed when the read returns", timeout_s)
        return ended

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stats(self) -> FeedStats:
        with self._lock:
            times = list(self._detect_ms)
            return FeedStats(self._frames, self._events, self._source_errors,
                             self._detect_errors, _percentile(times, 50),
                             _percentile(times, 99), self.running, self._last_error,
                             self._bad_frames,
                             self.doubt.doubted if self.doubt is not None else 0,
                             self.doubt.reclaimed if self.doubt is not None else 0,
                             _percentile(list(self._index_px), 50))

    # -- the feed's thread --------------------------------------------------------------

    def _run(self) -> None:
        period = 1.0 / self.fps
        next_at = time.monotonic()
        failures = 0
        try:
            while not self._stop.is_set():
                delay = next_at - time.monotonic()
                if delay > 0 and self._stop.wait(delay):
                    break
                next_at = max(next_at + period, time.monotonic())
                frame, problem = self._read()
                if frame is None:
                    failures += 1
                    self._source_failed(problem or "no frame", failures)
                    self.watchers()
                    if self._stop.wait(self._backoff(failures)):
                        break
                    next_at = time.monotonic()
                    continue
                if failures:
                    log.info("camera: frames again after %d failed read(s)", failures)
                    failures = 0
                problem = frame_problem(frame)
                if problem is not None:
                    self._bad_frame(problem)
                    self.watchers()
                    continue
                self._process(frame)
                self.watchers()
        finally:
            if self._stop.is_set():
                self._close_source()

    def _watch(self) -> None:
        interval = min(1.0, max(0.05, self.health.timeout_s / 4))
        while not self._stop.wait(interval):
            self.health.report()

    def _read(self) -> tuple[Any, str | None]:
        self.health.reading(True)
        try:
            if self.source is None:
                assert self.reopen is not None
                self.source = self.reopen()
                log.info("camera: source opened")
            return self.source.read(), None
        except Exception as error:  # a camera fault must never stop the daemon
            return None, f"{type(error).__name__}: {error}"
        finally:
            self.health.reading(False)

    def _bad_frame(self, problem: str) -> None:
        with self._lock:
            self._bad_frames += 1
            count = self._bad_frames
            self._last_error = problem
        self.health.bad(problem)
        if count & (count - 1) == 0:  # the 1st, 2nd, 4th, 8th...
            log.warning("camera: frame skipped: %s (%d so far)", problem, count)

    def _source_failed(self, problem: str, failures: int) -> None:
        with self._lock:
            self._source_errors += 1
            repeated = problem == self._last_error
            self._last_error = problem
        self.health.bad(f"no frame ({problem})")
        delay = self._backoff(failures)
        if not repeated or failures & (failures - 1) == 0:  # new, or the 1st, 2nd, 4th, 8th...
            log.warning("camera: no frame (%s); try %d, retrying in %.1f s%s", problem,
                        failures, delay, " after reopening the source" if self.reopen else "")
        if self.reopen is not None:
            self._close_source()

    def _backoff(self, failures: int) -> float:
        return float(min(self.max_backoff_s, self.backoff_s * 2 ** (failures - 1)))

    def _close_source(self) -> None:
        source, self.source = self.source, None
        if source is None:
            return
        try:
            source.close()
        except Exception:
            log.exception("camera: closing the source failed")

    def _process(self, frame: Any) -> None:
        started = time.perf_counter()
        unknown: Sequence[Any] = ()
        try:
            detect_all = getattr(self.recognizer, "detect_all", None)
            if detect_all is not None and (self.learning is not None or self.doubt is not None):
                # Learning learns from the unknown corners too; the doubt judges them.
                detections, unknown = detect_all(frame, self.layout)
            else:
                detections = self.recognizer.detect(frame, self.layout)
            if self.doubt is not None:
                detections, unknown = self.doubt.judge(detections, unknown)
            elapsed_ms = (time.perf_counter() - started) * 1000.0
            events = self.tracker.update(detections)
        except Exception as error:
            with self._lock:
                self._detect_errors += 1
                count = self._detect_errors
                self._last_error = f"{type(error).__name__}: {error}"
            self.health.bad(f"the recognizer failed on a frame ({type(error).__name__})")
            if count & (count - 1) == 0:
                log.exception("camera: recognising a frame failed (%d so far)", count)
            return
        self.health.good_frame()
        with self._lock:
            self._frames += 1
            frame_no = self._frames
            self._detect_ms.append(elapsed_ms)
            self._events += len(events)
            self._index_px.extend(size for size in (getattr(d, "index_px", None)
                                                    for d in detections) if size is not None)
        for event in events:
            try:
                self.post(event)
            except Exception:
                log.exception("camera: posting %r failed", event)
        if self.on_frame is not None:
            try:
                self.on_frame(frame_no)
            except Exception:
                log.exception("camera: the frame callback failed")
        if self.learning is not None:
            try:
                self.learning.after_frame(frame, detections, unknown)
            except Exception:  # learning must never stop the camera
                log.exception("camera: learning the house deck from a frame failed")
