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
        changed = threading.Condition()
        seen = [0]

        def wake() -> None:
            with changed:
                seen[0] += 1
                changed.notify_all()

        self.add(wake)
        try:
            deadline = time.monotonic() + timeout_s
            while True:
                with changed:
                    before = seen[0]
                if condition():
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                with changed:
                    if seen[0] == before:
                        changed.wait(left)
        finally:
            self.remove(wake)
