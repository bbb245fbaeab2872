"""Who wants to hear that a component's state changed: a counter went up, a mark
moved, the broker connected, the camera went degraded.

A component keeps a `Watchers` and calls it where its state changes, on its own
thread; a watcher reads the component's state itself (a status page, a stop that
waits for what is in flight, a test waiting for a count). A watcher must return
quickly; one that raises is logged and never stops the component.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

Watcher = Callable[[], None]


class Watchers:
    def __init__(self) -> None:
        self._watchers: list[Watcher] = []

    def add(self, watcher: Watcher) -> None:
        self._watchers.append(watcher)

    def remove(self, watcher: Watcher) -> None:
        self._watchers.remove(watcher)

    def __call__(self) -> None:
        for watcher in list(self._watchers):
            try:
                watcher()
            except Exception:
                log.exception("a watcher failed")

    def wait_until(self, condition: Callable[[], object], timeout_s: float) -> bool:
        """Block until `condition` holds, looked at again at each change; False once
        `timeout_s` passed without it."""
        wakeup = Wakeup()
        self.add(wakeup.notify)
        try:
            return wakeup.wait(condition, timeout_s)
        finally:
            self.remove(wakeup.notify)


class Wakeup:
    """A waiter's wake-up call: `notify` (from any thread, as a callback) wakes whoever
    `wait`s for a condition to look at it again.

    The condition is looked at outside the wake-up's lock: a callback may notify
    while it holds a lock of its own that the condition takes too; a notification
    that comes while it is looked at is not lost."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._notified = 0

    def notify(self, *_: object) -> None:
        with self._changed:
            self._notified += 1
            self._changed.notify_all()

    def wait(self, condition: Callable[[], object], timeout_s: float) -> bool:
        """True once `condition` holds; False after `timeout_s` without it."""
        deadline = time.monotonic() + timeout_s
        while True:
            with self._changed:
                seen = self._notified
            if condition():
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            with self._changed:
                if self._notified == seen:
                    self._changed.wait(left)
