"""Shared helpers of the daemon's tests: waiting for a condition, never for a time."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest


def wait_for(condition: Callable[[], object], what: str, timeout_s: float = 10.0) -> None:
    """Poll `condition` until it holds; fail naming `what` after a generous timeout."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.002)
