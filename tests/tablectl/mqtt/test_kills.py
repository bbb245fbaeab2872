"""Kills during a simulated run: the broker (SIGKILL, restarted) again and again, a
table mid-publish, the floor. At the end the floor's store holds exactly the
tables' journals, each event and round once."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from journal import Journal
from tablectl.mqtt.publisher import Publisher
from tablectl.mqtt.settings import from_options
from tests.tablectl.helpers import OutputLines, Signal
from tests.tablectl.mqtt.broker import Mosquitto
from tests.tablectl.mqtt.helpers import wait_progressing

TABLES = ("bj-1", "bj-2")
ROUNDS = 150


def _count(path: Path, sql: str, *params: Any) -> int:
    if not path.exists():
        return 0
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    try:
        return int(db.execute(sql, params).fetchone()[0])
    except sqlite3.OperationalError:  # not made yet
        return 0
    finally:
        db.close()


class Run:
    def __init__(self, broker: Mosquitto, folder: Path) -> None:
        self.broker = broker
        self.folder = folder
        self.store = folder / "floor.sqlite"
        self.tables: dict[str, subprocess.Popen[bytes]] = {}
        self.floor: subprocess.Popen[bytes] | None = None
        self.outputs: dict[str, OutputLines] = {}
        # Woken by each round a table process prints, and by its end.
        self.played = Signal()

    def journal(self, table: str) -> Path:
        return self.folder / f"{table}.sqlite"

    def start_table(self, table: str, rounds: int) -> None:
        log = open(self.folder / f"{table}.log", "ab")  # noqa: SIM115 - the process keeps it
        self.tables[table] = subprocess.Popen(
            [sys.executable, "-m", "tablectl", "run", "--sim", "--rounds", str(rounds),
             "--journal", str(self.journal(table)), "--seed", table[-1], "--view", "rounds",
             "--api-port", "off", "--faults", "none", "--pace", "0.01",
             "--mqtt", self.broker.url, "--table", table],
            stdout=subprocess.PIPE, stderr=log)
        assert self.tables[table].stdout is not None
        self.outputs[table] = OutputLines(self.tables[table].stdout, changed=self.played)

    def table_ended(self, table: str) -> bool:
        """The table's output ended: it has stopped (or is stopping) by itself."""
        return self.outputs[table].ended

    def wait_table(self, table: str) -> int:
        """The table process's status once it ended, as long as it plays on."""
        wait_progressing(lambda: self.table_ended(table), self.events,
                         f"{table} to finish its rounds", woken_by=self.played)
        return self.tables[table].wait(30)

    def start_floor(self) -> None:
        self.floor = self.floor_process("floor", [])

    def floor_process(self, name: str, options: list[str]) -> subprocess.Popen[bytes]:
        """A floor process, once it is connected to the broker. Until then a broker
        killed by the test would make it exit (a floor says at once that it cannot
        reach its broker): the next kill waits for it."""
        log = open(self.folder / f"{name}.log", "ab")  # noqa: SIM115 - the process keeps it
        process = subprocess.Popen(
            [sys.executable, "-m", "tablectl", "floor", "--broker", self.broker.url,
             "--store", str(self.store), "--view", "lines", "--every", "60", *options],
            stdout=subprocess.PIPE, stderr=log)
        assert process.stdout is not None
        # Read as it comes, and kept in NAME.out (each life of NAME after the last).
        self.outputs[name] = output = OutputLines(process.stdout,
                                                  copy_to=self.folder / f"{name}.out")
        output.wait_until(lambda: output.ended or any(
            line.startswith("floor on ") for line in output.lines), f"{name} to connect", 120)
        assert not output.ended, (self.folder / f"{name}.log").read_text()
        return process

    def events(self) -> int:
        return sum(_count(self.journal(t), "SELECT COUNT(*) FROM events") for t in TABLES)

    def floor_events(self, table: str) -> int:
        return _count(self.store, "SELECT COUNT(*) FROM events WHERE table_id = ?", table)

    def floor_rounds(self, table: str) -> int:
        return _count(self.store, "SELECT COUNT(*) FROM rounds WHERE table_id = ?", table)

    def stop_all(self) -> None:
        for process in [*self.tables.values(), self.floor]:
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(10)


def _rows(path: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    rows = [tuple(row) for row in db.execute(sql, params)]
    db.close()
    return rows


@pytest.mark.slow
def test_kills_lose_nothing_and_store_nothing_twice(broker: Mosquitto, tmp_path: Path) -> None:
    run = Run(broker, tmp_path)
    try:
        run.start_floor()
        for table in TABLES:
            run.start_table(table, ROUNDS)
        mark = 0
        for step in range(6):
            wait_progressing(lambda m=mark: run.events() >= m + 600
                             or all(run.table_ended(t) for t in run.tables),
                             run.events, "the tables to play on", woken_by=run.played)
            mark = run.events()
            broker.kill()  # SIGKILL: what it held for the floor is gone
            broker.start()
            if step == 1:  # a table killed mid-publish, started again on its journal
                run.tables["bj-1"].send_signal(signal.SIGKILL)
                run.tables["bj-1"].wait(10)
                run.start_table("bj-1", 40)
            if step == 3:  # the floor killed, started again on its store
                assert run.floor is not None
                run.floor.send_signal(signal.SIGKILL)
                run.floor.wait(10)
                run.start_floor()
        for table in run.tables:
            assert run.wait_table(table) == 0, (tmp_path / f"{table}.log").read_text()
        # What a table had not got acknowledged when it stopped goes out at its next
        # start: here a publisher alone on each journal.
        journals = [Journal(run.journal(t)) for t in TABLES]
        publishers = [Publisher(from_options(broker.url, t), j.path)
                      for t, j in zip(TABLES, journals, strict=True)]
        for publisher in publishers:
            publisher.start()
        try:
            for table, journal, publisher in zip(TABLES, journals, publishers, strict=True):
                # Stuck is a failure; slow (a loaded machine) only takes longer. The
                # floor asks for what it misses every second, so a stall of a minute
                # is one.
                wait_progressing(
                    lambda t=table, j=journal: run.floor_events(t) == j.last_committed_seq,
                    lambda t=table, p=publisher: (run.floor_events(t), p.mark.events),
                    f"the floor to hold all of {table}")
                rounds = len(journal.rounds())
                wait_progressing(lambda t=table, n=rounds: run.floor_rounds(t) == n,
                                 lambda t=table: run.floor_rounds(t),
                                 f"the floor to hold {table}'s rounds")
        finally:
            for publisher in publishers:
                publisher.stop()
        assert run.floor is not None
        run.floor.send_signal(signal.SIGTERM)
        assert run.floor.wait(20) == 0
        for table, journal in zip(TABLES, journals, strict=True):
            expected = [(e.seq, e.source, e.source_ref, e.event) for e in journal.events()]
            stored = _rows(run.store, "SELECT seq, source, source_ref, event FROM events "
                           "WHERE table_id = ? ORDER BY seq", table)
            assert [(s, src, ref, json.loads(ev)) for s, src, ref, ev in stored] == expected
            assert len(expected) > ROUNDS * 10  # the run was long enough to kill into
            assert _rows(run.store, "SELECT round_no, start_seq, end_seq, status FROM rounds "
                         "WHERE table_id = ? ORDER BY round_no", table) == [
                (r.round_no, r.start_seq, r.end_seq, r.status) for r in journal.rounds()]
            journal.close()
        assert "Traceback" not in (tmp_path / "floor.log").read_text()
    finally:
        run.stop_all()
        if os.environ.get("KEEP_FLOOR_LOGS"):
            print((tmp_path / "floor.log").read_text())
