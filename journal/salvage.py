"""Reading what can be read of a damaged journal, and copying it into a new one.

`inspect(path)` reads the journal row by row (each event and each round by its
number, so that one unreadable page costs only the rows on it) and says what
SQLite's quick_check finds wrong, how many events and rounds could be read
and which could not. `salvage(path, new_path)` does the same and writes every
readable event (under its own seq), round and event time into a new journal,
made whole or not at all. The damaged file is only read.

A damaged journal of an older schema version is copied into a journal of the
current one, brought up to it as `journal.migrations` would.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from journal.errors import JournalError
from journal.file import check_header, create, integrity_problems, read_only_uri
from journal.migrations import legacy_refusals
from journal.records import EventRow, round_from_row
from journal.schema import FORMAT_NAME, current_meta, stored_version

# After the last seq SQLite can tell, look this far on for rows beyond a damaged page.
_PROBE_BEYOND = 1000


@dataclass
class SalvageReport:
    """What could and could not be read of a journal."""

    path: Path
    problems: list[str] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    events_read: int = 0
    last_seq: int = 0
    # Seqs up to `last_seq` that could not be read, as (first, last) runs.
    events_unreadable: list[tuple[int, int]] = field(default_factory=list)
    rounds_read: int = 0
    rounds_unreadable: list[int] = field(default_factory=list)

    @property
    def intact(self) -> bool:
        return not self.problems and not self.events_unreadable and not self.rounds_unreadable

    def lines(self) -> list[str]:
        """The report as an operator reads it."""
        state = "intact" if self.intact else "DAMAGED"
        out = [f"{self.path}: {state}, profile {self.meta.get('profile', '?')}"]
        out += [f"  problem: {problem}" for problem in self.problems]
        missing = sum(last - first + 1 for first, last in self.events_unreadable)
        out.append(f"  events: {self.events_read} read, {missing} not readable "
                   f"(seqs 1 to {self.last_seq})")
        if self.events_unreadable:
            out.append("  events not readable: " + _runs(self.events_unreadable))
        out.append(f"  rounds: {self.rounds_read} read, {len(self.rounds_unreadable)} "
                   "not readable")
        if self.rounds_unreadable:
            out.append("  rounds not readable: " + ", ".join(map(str, self.rounds_unreadable)))
        return out


def inspect(path: Path) -> SalvageReport:
    """Read the whole journal at `path` row by row; never writes it."""
    report = SalvageReport(path)
    with _reading(path) as db:
        _read(db, report, None)
    return report


def salvage(path: Path, new_path: Path) -> SalvageReport:
    """Copy every readable event, round and event time of `path` into the new
    journal `new_path` (which must not exist); returns what was and was not read."""
    if new_path.exists():
        raise JournalError(f"{new_path} already exists; give a new file name for the copy")
    if new_path.resolve() == path.resolve():
        raise JournalError("the copy must be a new file, not the damaged journal itself")
    report = SalvageReport(path)
    rows = _Rows()
    with _reading(path) as db:
        _read(db, report, rows)
    if report.meta.get("format") != FORMAT_NAME:
        raise JournalError(
            f"{path}: its meta table cannot be read, so its profile and rules are unknown; "
            "nothing was copied"
        )
    if (stored_version(report.meta) or 0) < 2:
        rows.mark_legacy_refusals()
    create(new_path, current_meta(report.meta))
    db = sqlite3.connect(new_path, isolation_level=None)
    try:
        db.execute("PRAGMA synchronous = FULL")
        db.execute("BEGIN IMMEDIATE")
        db.executemany("INSERT INTO events (seq, source, source_ref, event, refused) "
                       "VALUES (?, ?, ?, ?, ?)", rows.events)
        db.executemany("INSERT INTO rounds (round_no, start_seq, end_seq, status, flags, "
                       "result) VALUES (?, ?, ?, ?, ?, ?)", rows.rounds)
        db.executemany("INSERT INTO event_times (seq, at) VALUES (?, ?)", rows.times)
        db.execute("COMMIT")
    except sqlite3.Error as error:
        db.close()
        new_path.unlink(missing_ok=True)
        raise JournalError(f"{new_path}: the copy could not be written ({error})") from error
    db.close()
    return report


@dataclass
class _Rows:
    events: list[EventRow] = field(default_factory=list)
    rounds: list[tuple[int, int, int, str, str, str]] = field(default_factory=list)
    times: list[tuple[int, float]] = field(default_factory=list)

    def mark_legacy_refusals(self) -> None:
        """Mark the refused events of a version 1 journal, as its migration does."""
        texts = {row[0]: row[3] for row in self.events}
        records = []
        for number, start, end, status, flags, result in self.rounds:
            try:
                records.append(round_from_row((number, status, start, end, flags, result)))
            except ValueError:
                continue  # a result that is not JSON says nothing of refusals

        def event_at(seq: int) -> dict[str, Any] | None:
            try:
                return dict(json.loads(texts[seq]))
            except (KeyError, ValueError, TypeError):
                return None

        refused = legacy_refusals(records, event_at)
        self.events = [(seq, source, ref, text, refused.get(seq))
                       for seq, source, ref, text, _ in self.events]


class _reading:
    """A read-only connection to the journal (through its WAL if it has one)."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise JournalError(f"{path}: no journal there; give the path of a journal file")
        check_header(path)
        try:
            self.db = sqlite3.connect(read_only_uri(path), uri=True)
        except sqlite3.Error as error:
            raise JournalError(f"{path}: cannot open the journal ({error})") from error

    def __enter__(self) -> sqlite3.Connection:
        return self.db

    def __exit__(self, *exc: object) -> None:
        self.db.close()


def _read(db: sqlite3.Connection, report: SalvageReport, rows: _Rows | None) -> None:
    try:
        report.problems = integrity_problems(db)
    except sqlite3.DatabaseError as error:
        report.problems = [f"SQLite cannot check it ({error})"]
    try:
        report.meta = {str(k): str(v) for k, v in db.execute("SELECT key, value FROM meta")}
    except sqlite3.DatabaseError as error:
        report.problems.append(f"the meta table cannot be read ({error})")
    read: set[int] = set()
    for seq, row in _by_number(db, "events", "seq", _event_columns(db)):
        read.add(seq)
        report.last_seq = seq
        if rows is not None:
            ref = None if row[1] is None else str(row[1])
            refused = None if row[3] is None else str(row[3])
            rows.events.append((seq, str(row[0]), ref, str(row[2]), refused))
    report.events_read = len(read)
    report.events_unreadable = _as_runs(
        [seq for seq in range(1, report.last_seq) if seq not in read])
    numbers: set[int] = set()
    for number, row in _by_number(db, "rounds", "round_no",
                                  "start_seq, end_seq, status, flags, result"):
        numbers.add(number)
        if rows is not None:
            rows.rounds.append((number, _int(row[0]), _int(row[1]), str(row[2]), str(row[3]),
                                str(row[4])))
    report.rounds_read = len(numbers)
    report.rounds_unreadable = [n for n in range(1, max(numbers, default=0)) if n not in numbers]
    if rows is not None:
        for seq, row in _by_number(db, "event_times", "seq", "at"):
            rows.times.append((seq, _float(row[0])))


def _event_columns(db: sqlite3.Connection) -> str:
    """The event columns to read: a journal of version 1 has no `refused`."""
    try:
        db.execute("SELECT refused FROM events LIMIT 0")
    except sqlite3.OperationalError:
        return "source, source_ref, event, NULL"
    except sqlite3.DatabaseError:
        pass  # the reads that follow say what cannot be read
    return "source, source_ref, event, refused"


def _by_number(db: sqlite3.Connection, table: str, key: str, columns: str
               ) -> Iterator[tuple[int, tuple[object, ...]]]:
    """Each readable row from 1 up, looked up by its number, as (number, row).
    Ends once `_PROBE_BEYOND` numbers past the highest known one have no row."""
    try:
        highest = int(db.execute(f"SELECT COALESCE(MAX({key}), 0) FROM {table}").fetchone()[0])
    except sqlite3.DatabaseError:
        highest = 0
    number = last_found = 0
    query = f"SELECT {columns} FROM {table} WHERE {key} = ?"
    while number < max(highest, last_found) + _PROBE_BEYOND:
        number += 1
        try:
            row = db.execute(query, (number,)).fetchone()
        except sqlite3.DatabaseError:
            continue
        if row is not None:
            last_found = number
            yield number, tuple(row)


def _int(value: object) -> int:
    return int(value) if isinstance(value, int | float | str) else 0


def _float(value: object) -> float:
    return float(value) if isinstance(value, int | float | str) else 0.0


def _as_runs(numbers: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


def _runs(runs: list[tuple[int, int]]) -> str:
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
