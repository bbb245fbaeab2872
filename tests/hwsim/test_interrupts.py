"""Ctrl-C stops a long simulator loop even where its KeyboardInterrupt is lost."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hwsim import interrupts
from hwsim.camera import dataset


@pytest.fixture
def sigint_handler(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """SIGINT handled by Python as at start-up, and put back afterwards, with no press
    remembered once the test is over."""
    monkeypatch.setattr(interrupts, "_pressed", False)
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def _press_ctrl_c_and_lose_it() -> None:
    """SIGINT arrives while code that drops every KeyboardInterrupt is running."""
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.5)  # the handler runs here, in the main thread
    except KeyboardInterrupt:
        pass


def test_a_lost_interrupt_still_stops_the_scene_loop(
        sigint_handler: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written: list[int] = []

    def write_and_swallow(scene: object, out: Path, number: int) -> Path:
        written.append(number)
        if number == 2:
            _press_ctrl_c_and_lose_it()
        return out / f"scene_{number:04d}.png"

    monkeypatch.setattr(dataset, "write_scene", write_and_swallow)
    interrupts.install()
    with pytest.raises(KeyboardInterrupt):
        dataset.main(["--out", str(tmp_path), "--n", "6", "--seed", "3"])
    assert written == [1, 2]  # stopped right after the scene in hand


def test_without_a_press_the_loop_runs_to_the_end(
        sigint_handler: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written: list[int] = []
    monkeypatch.setattr(dataset, "write_scene",
                        lambda scene, out, number: written.append(number) or out)
    interrupts.install()
    assert dataset.main(["--out", str(tmp_path), "--n", "3", "--seed", "3"]) == 0
    assert written == [1, 2, 3]


def test_an_ignored_sigint_stays_ignored() -> None:
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        interrupts.install()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
