"""Fixtures of the tests of the composition root: the camera's recognizer and the
simulated felt's layout, loaded once per module that uses them; the daemon's test
bench (tests/tablectl/daemon_bench.py), one per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.tablectl.daemon_bench import Bench
    from vision.layout import Layout
    from vision.recognizer import Recognizer


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    from vision.recognizer import Recognizer

    return Recognizer()


@pytest.fixture(scope="module")
def layout() -> Layout:
    from hwsim.camera.table_frames import table_layout

    from vision.layout import layout_from_dict

    return layout_from_dict(table_layout())


@pytest.fixture
def bench(tmp_path: Path) -> Iterator[Bench]:
    from tests.tablectl.daemon_bench import bench_in

    yield from bench_in(tmp_path)
