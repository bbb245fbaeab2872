"""Shared helpers of the tests: waiting for a condition, woken by what changes it,
never for a time."""

from __future__ import annotations

import os
import select
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import numpy as np
import pytest

from journal import Journal
from table.machine import Table
from table.profiles import load_profile
from tablectl.service import TableService
from tablectl.watchers import Wakeup, Watchers


class Signal(Wakeup):
    """Woken by a device's or a component's callback (`signal.notify` as the callback,
    or called from one); a test waits on it for a condition, with a timeout."""

    def wait_until(self, condition: Callable[[], object], what: str,
                   timeout_s: float = 10.0) -> None:
        """Wait until `condition` holds, looked at again each time the signal is
        notified; fail naming `what` after `timeout_s`."""
        if not self.wait(condition, timeout_s):
            pytest.fail(f"timed out waiting for {what}")


def wait_watched(watchers: Watchers, condition: Callable[[], object], what: str,
                 timeout_s: float = 10.0) -> None:
    """Wait until `condition` holds, looked at again each time the component whose
    `watchers` these are tells them of a change; fail naming `what` after `timeout_s`."""
    if not watchers.wait_until(condition, timeout_s):
        pytest.fail(f"timed out waiting for {what}")


class OutputLines:
    """A child process's output, read line by line on a thread of its own (a blocking
    read of the pipe): the lines so far, and `changed` woken by each line and by the
    end of the output (the process gone). `copy_to` keeps a copy in a file."""

    def __init__(self, stream: IO[str] | IO[bytes], copy_to: Path | None = None,
                 changed: Signal | None = None) -> None:
        """`changed`: a signal to wake (shared with other outputs); a new one by default."""
        self.lines: list[str] = []
        self.ended = False
        self.changed = changed if changed is not None else Signal()
        self._copy = copy_to
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str] | IO[bytes]) -> None:
        copy = self._copy.open("a", encoding="utf-8") if self._copy is not None else None
        try:
            for raw in stream:
                line = raw.decode(errors="replace") if isinstance(raw, bytes) else raw
                if copy is not None:
                    copy.write(line)
                    copy.flush()
                self.lines.append(line)
                self.changed.notify()
        finally:
            if copy is not None:
                copy.close()
            self.ended = True
            self.changed.notify()

    def wait_until(self, condition: Callable[[], object], what: str,
                   timeout_s: float = 10.0) -> None:
        self.changed.wait_until(condition, what, timeout_s)

    def wait_for_line(self, matches: Callable[[str], object], what: str,
                      timeout_s: float = 10.0) -> str:
        """The first line that `matches`; fails if the output ends without one."""
        def found() -> bool:
            return self.ended or any(matches(line) for line in self.lines)

        self.wait_until(found, what, timeout_s)
        for line in list(self.lines):
            if matches(line):
                return line
        pytest.fail(f"the output ended without {what}: {''.join(self.lines)[-2000:]}")

    def join(self, timeout_s: float = 10.0) -> None:
        self._thread.join(timeout_s)


def wait_process_gone(pid: int, what: str, timeout_s: float = 30.0) -> None:
    """Wait for a process that is not our child to end: its pidfd becomes readable
    when it does (it is gone, or a zombie no one reaped)."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        readable, _, _ = select.select([pidfd], [], [], timeout_s)
    finally:
        os.close(pidfd)
    if not readable:
        pytest.fail(f"timed out waiting for {what}")


def wait_on_clock(condition: Callable[[], object], what: str, timeout_s: float = 10.0,
                  every_s: float = 0.05) -> None:
    """For the few states that nothing reports to this process: an answer of another
    process's HTTP API (a port that opens, a page that fills), a row count in another
    process's SQLite file. Nothing can wake the test when they change, so the condition
    is looked at again each time the clock says `every_s` went by (a condition variable
    that only its timeout wakes); fail naming `what` after `timeout_s`.
    Wherever a callback, an output line or a stream reports the state, wait on that."""
    clock = threading.Condition()
    deadline = time.monotonic() + timeout_s
    while not condition():
        left = deadline - time.monotonic()
        if left <= 0:
            pytest.fail(f"timed out waiting for {what}")
        with clock:
            clock.wait(min(every_s, left))


def signal_when(process: subprocess.Popen[str], ready: Callable[[list[str]], object],
                what: str, signal_number: int, timeout_s: float = 120.0,
                ) -> subprocess.CompletedProcess[str]:
    """Read the process's output line by line until `ready(lines)`, then send it
    `signal_number` and wait for it to end: its status, whole output and errors.
    Killed if it does not end (or the wait fails)."""
    assert process.stdout is not None and process.stderr is not None
    output = OutputLines(process.stdout)
    try:
        output.wait_until(lambda: output.ended or ready(output.lines), what, timeout_s)
        assert not output.ended, f"the output ended without {what}: {output.lines}"
        process.send_signal(signal_number)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    output.join(10)
    return subprocess.CompletedProcess(process.args, process.returncode,
                                       "".join(output.lines), process.stderr.read())


@contextmanager
def running_service(folder: Path, on_change: Callable[[], None]) -> Iterator[TableService]:
    """A casinos-austria table service on its loop thread, journaled in `folder`;
    `on_change` is called after each batch the loop applied."""
    journal = Journal(folder / "journal.db", profile="casinos-austria")
    service = TableService(Table(load_profile("casinos-austria")), journal)
    service.on_change(on_change)
    loop = threading.Thread(target=service.run, name="table-loop", daemon=True)
    loop.start()
    try:
        yield service
    finally:
        service.stop()
        service.wait_stopped(5.0)
        loop.join(5.0)
        journal.close()


class StillPicture:
    """A camera source that hands out the same noisy picture (no black frame) forever."""

    PICTURE = np.random.default_rng(0).integers(0, 256, (72, 128, 3), dtype=np.uint8)

    def read(self) -> np.ndarray:
        return self.PICTURE.copy()

    def close(self) -> None:
        pass


def deal_two_boxes(service: TableService) -> None:
    """Bets on boxes 1 and 2 and the shoe deals: box 1 9S 7D, box 2 TC 8H, the dealer 6C."""
    setup: list[dict[str, object]] = [{"bet": {"box": 1, "amount": 100}},
                                      {"bet": {"box": 2, "amount": 100}}, {"deal": {}}]
    for event in setup:
        assert service.submit_and_wait(event, "terminal").accepted
    for card in ("9S", "TC", "6C", "7D", "8H"):
        assert service.submit_and_wait({"card": card}, "shoe").accepted
