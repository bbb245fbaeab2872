"""Is the camera delivering usable frames? What the daemon reports on /state and /health.

`frame_problem(frame)` (`vision.images`) says what is wrong with a frame a
source handed out (not a BGR picture, too small or too large, black, one flat
colour), or None for a frame worth reading cards from. Such a frame is never
given to the recognizer: a black frame (a lens covered, the light off) looks
like a felt swept empty.

`CameraHealth` keeps the time of the last usable frame and the last problem;
`report()` says `ok`, or `degraded` with the reason once no usable frame has
come for `timeout_s` (a source that returns nothing, raises, hands out garbage
or black frames, or whose read hangs). It recovers by itself with the next
usable frame. Each change is logged once and told to `watchers`.

Only numpy is used (no OpenCV); it is imported when a frame is checked.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tablectl.watchers import Watchers
from vision.images import frame_problem

__all__ = ["DEFAULT_TIMEOUT_S", "CameraHealth", "HealthReport", "frame_problem"]

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class HealthReport:
    state: str  # "ok" or "degraded"
    reason: str | None  # why it is degraded
    last_frame_age_s: float | None  # since the last usable frame; None before the first
    problem: str | None  # the last problem seen, even while still ok

    @property
    def degraded(self) -> bool:
        return self.state == "degraded"

    def to_json(self) -> dict[str, Any]:
        age = self.last_frame_age_s
        return {"state": self.state, "reason": self.reason,
                "last_frame_age_s": None if age is None else round(age, 1),
                "last_problem": self.problem}


class CameraHealth:
    """Thread-safe: the feed's thread reports frames and problems, any thread asks."""

    def __init__(self, timeout_s: float = DEFAULT_TIMEOUT_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not timeout_s > 0:
            raise ValueError(f"the camera's timeout must be positive, got {timeout_s!r}")
        self.timeout_s = float(timeout_s)
        self._clock = clock
        self._lock = threading.Lock()
        self._started = clock()
        self._last_good: float | None = None
        self._problem: str | None = None
        self._reading_since: float | None = None
        self._degraded = False
        # Told when the state changes, ok to degraded or back (on the thread that saw
        # it: the feed's, its watch or a reader of the report; `tablectl.watchers`).
        self.watchers = Watchers()

    def good_frame(self) -> None:
        with self._lock:
            self._last_good = self._clock()
            self._problem = None
        self.report()

    def bad(self, problem: str) -> None:
        with self._lock:
            self._problem = problem
        self.report()

    def reading(self, started: bool) -> None:
        """A frame read begins (True) or has returned (False): a read that never returns
        is a camera that hangs."""
        with self._lock:
            self._reading_since = self._clock() if started else None

    def report(self) -> HealthReport:
        with self._lock:
            now = self._clock()
            since = self._last_good if self._last_good is not None else self._started
            age = now - since
            problem = self._problem
            # A read that has hung for the whole timeout, or one that has hung a while when
            # no usable frame came for the timeout (it began a moment after the last one).
            hanging = None if self._reading_since is None else now - self._reading_since
            if hanging is not None and (hanging > self.timeout_s or (
                    age > self.timeout_s and problem is None
                    and hanging >= min(1.0, self.timeout_s / 2))):
                problem = (f"a frame read has not returned for "
                           f"{hanging:.0f} s (the camera hangs)")
            reason = None
            if age > self.timeout_s:
                what = (f"no usable frame for {age:.0f} s" if self._last_good is not None
                        else f"no usable frame since the camera started {age:.0f} s ago")
                reason = f"{what}: {problem or 'the camera delivers nothing'}"
            changed = (reason is not None) != self._degraded
            self._degraded = reason is not None
            last_age = None if self._last_good is None else age
        if changed:
            if reason is not None:
                log.warning("camera degraded: %s", reason)
            else:
                log.info("camera: usable frames again; no longer degraded")
            self.watchers()
        return HealthReport("degraded" if reason else "ok", reason, last_age, problem)
