"""Shared helpers of the tests: waiting for a condition, never for a time."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

# How often `wait_for` looks again at a state that no callback reports.
POLL_S = 0.002


class Signal:
    """Woken by a device's or a component's callback (`signal.notify` as the callback,
    or called from one); a test waits on it for a condition, with a timeout.

    The condition is looked at outside the signal's lock: a callback may notify
    while it holds a lock of its own that the condition takes too."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._notified = 0

    def notify(self, *_: object) -> None:
        with self._changed:
            self._notified += 1
            self._changed.notify_all()

    def wait_until(self, condition: Callable[[], object], what: str,
                   timeout_s: float = 10.0) -> None:
        """Wait until `condition` holds, looked at again each time the signal is
        notified; fail naming `what` after `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while True:
            with self._changed:
                seen = self._notified
            if condition():
                return
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"timed out waiting for {what}")
            with self._changed:
                if self._notified == seen:
                    self._changed.wait(left)


def wait_for(condition: Callable[[], object], what: str, timeout_s: float = 10.0) -> None:
    """Look at `condition` until it holds; fail naming `what` after a generous timeout.
    For a state that no callback reports (an HTTP answer, a lamp's pin, a count
    kept by another process); where a callback reports it, wait on a `Signal`."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(POLL_S)
