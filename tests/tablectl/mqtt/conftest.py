"""A Mosquitto broker per test (Debian's `mosquitto`, tools/install-test-deps.sh)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tablectl.mqtt.broker import MOSQUITTO, Mosquitto


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    if not Path(MOSQUITTO).exists():
        pytest.fail("mosquitto is not installed: run tools/install-test-deps.sh")
    folder = tmp_path / "broker"
    folder.mkdir()
    running = Mosquitto(folder)
    running.start()
    try:
        yield running
    finally:
        running.stop()
