"""The journal: an append-only SQLite file (WAL) of every input event and of
each round's outputs.

Appends go into a pending batch held in memory; `commit()` writes the whole
batch in one transaction (group commit) and only then are its events
"stored": a shoe frame may be acknowledged, an API call answered. If the
commit fails (disk full, I/O error) nothing of the batch is on disk and the
batch stays pending, so a later commit can store it.

A writer thread may instead take the pending batch with `seal()` and store it
with `write(batch)` while appends go on into the next batch: the appending
thread never waits for the disk. Sealed batches are written in the order they
were sealed, on a connection of their own.

Self-contained on purpose (standard library only, nothing else from `table`)
so that tools can read a journal without the rules engine. It reads no clock:
the `GroupCommitter` is given the time by its caller.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table.journal_file import (
    APPLICATION_ID,
    EVENT_TIMES,
    FORMAT_NAME,
    FORMAT_VERSION,
    JournalDamaged,
    JournalError,
    check_contents,
    check_file,
    check_header,
    meta_rows,
    recover_if_unfinished,
    sweep_unfinished,
)
from table.journal_file import create as create_file
from table.ref_filter import RefFilter

__all__ = [
    "APPLICATION_ID", "FORMAT_NAME", "FORMAT_VERSION", "AlreadyStored", "GroupCommitter",
    "Journal", "JournalDamaged", "JournalError", "JournalEvent", "JournalFullError",
    "RoundRecord", "SealedBatch", "export_scenario",
]

SCENARIO_FORMAT = "table-scenario/1"

_BUSY_TIMEOUT_MS = 5000
_PAGE_OF_EVENTS = 1000


class JournalFullError(JournalError):
    """The disk (or the journal's size limit) is full; the batch stays pending."""


class AlreadyStored(ValueError):
    """An event with this source reference is already in the journal (or pending)."""

    def __init__(self, source: str, source_ref: str, seq: int) -> None:
        self.source = source
        self.source_ref = source_ref
        self.seq = seq
        super().__init__(f"{source} event {source_ref!r} is already stored as seq {seq}")


@dataclass(frozen=True)
class JournalEvent:
    seq: int
    source: str
    source_ref: str | None
    event: dict[str, Any]


@dataclass(frozen=True)
class RoundRecord:
    round_no: int
    status: str
    start_seq: int
    end_seq: int
    flags: tuple[str, ...]
    result: dict[str, Any]


@dataclass
class _Pending:
    events: list[tuple[int, str, str | None, str]] = field(default_factory=list)
    refs: dict[tuple[str, str], int] = field(default_factory=dict)
    rounds: list[RoundRecord] = field(default_factory=list)
    times: list[tuple[int, float]] = field(default_factory=list)

    def clear(self) -> None:
        self.events.clear()
        self.refs.clear()
        self.rounds.clear()
        self.times.clear()


@dataclass(frozen=True)
class SealedBatch:
    """A batch taken out of the journal's pending one by `seal()`, for `write()`."""

    events: tuple[tuple[int, str, str | None, str], ...]
    refs: Mapping[tuple[str, str], int]
    rounds: tuple[RoundRecord, ...]
    times: tuple[tuple[int, float], ...] = ()

    @property
    def size(self) -> int:
        return len(self.events)


class Journal:
    """One journal file. A single appender: the table's loop (and at most one
    writer thread storing the batches it seals).

    `profile` and `rules` are stored when the file is created, so an export
    is a complete scenario; opening an existing journal with a different
    profile is refused (its events would replay differently).

    `read_only=True` opens an existing journal for reading only (the
    `tablectl journal` commands): the file is never written, and a daemon
    writing it at the same time is not disturbed. Appending is refused.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        profile: str | None = None,
        rules: Mapping[str, Any] | None = None,
        create: bool = True,
        max_pages: int | None = None,
        read_only: bool = False,
    ) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self._lock = threading.RLock()
        # Taken before `_lock` wherever both are held.
        self._write_lock = threading.RLock()
        self._pending = _Pending()
        # Sealed batches not yet written, oldest first.
        self._in_flight: deque[SealedBatch] = deque()
        self._writer: sqlite3.Connection | None = None
        # References stored or on their way (None read-only: always ask the database).
        self._ref_filter: RefFilter | None = None
        if read_only:
            self._open_read_only()
            return
        exists = self.path.exists()
        if exists:
            sweep_unfinished(self.path)
            if recover_if_unfinished(self.path):
                # An empty leftover of a creation killed halfway: it holds nothing.
                exists = False
            else:
                check_header(self.path)
                check_file(self.path)
        elif not create:
            raise JournalError(f"{self.path}: no journal there; give the path of a journal file")
        elif not self.path.parent.is_dir():
            raise JournalError(
                f"{self.path}: the folder {self.path.parent} does not exist; create it or "
                "choose another journal path"
            )
        else:
            sweep_unfinished(self.path)
        if not exists:
            create_file(self.path, meta_rows(profile, rules))
        try:
            self._db = sqlite3.connect(
                self.path,
                timeout=_BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as error:
            raise JournalError(f"{self.path}: cannot open the journal ({error})") from error
        try:
            self._configure()
            self._db.execute(EVENT_TIMES)
            self._meta = self._read_meta()
            stored_profile = self._meta.get("profile")
            if exists and profile is not None and stored_profile not in (None, profile):
                raise JournalError(
                    f"{self.path} was written under profile {stored_profile!r}, not "
                    f"{profile!r}; keep that profile, or start a new journal file for the "
                    "new one (its rounds would replay differently)"
                )
            self._last_committed = self._max_seq()
            self._last_round = self._max_round()
            # Batches are stored on a connection of their own, so that the appending
            # thread's reads (duplicate references) never wait for a commit's fsync.
            self._writer = sqlite3.connect(
                self.path,
                timeout=_BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
            _configure(self._writer)
            self._ref_filter = RefFilter(self._db.execute(
                "SELECT source, source_ref FROM events WHERE source_ref IS NOT NULL"))
            if max_pages is not None:
                self.max_pages = max_pages
        except sqlite3.Error as error:
            self._close_connections()
            raise JournalError(f"{self.path}: cannot use the journal ({error})") from error
        except JournalError:
            self._close_connections()
            raise

    def _open_read_only(self) -> None:
        path = self.path
        if not path.exists():
            raise JournalError(f"{path}: no journal there; give the path of a journal file")
        if not path.is_file():
            raise JournalError(f"{path} is not a file; give the path of a journal file")
        if path.stat().st_size == 0:
            raise JournalError(f"{path} is empty, not a tablectl journal")
        check_header(path)
        # mode=ro never writes the database file. While a writer has the file
        # open its -wal file exists, and the reader goes through the WAL (and
        # its -shm index) to see every commit. Without a -wal file no writer
        # is there and everything is in the main file: it is read as immutable,
        # so no -wal or -shm file is made beside it (one made by another user
        # could keep the daemon from opening its journal).
        uri = f"{path.resolve().as_uri()}?mode=ro"
        if not Path(f"{path}-wal").exists():
            uri += "&immutable=1"
        try:
            self._db = sqlite3.connect(
                uri,
                uri=True,
                timeout=_BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as error:
            raise JournalError(f"{path}: cannot open the journal ({error})") from error
        try:
            check_contents(path, self._db, quick_check=False)
            self._meta = self._read_meta()
            self._last_committed = self._max_seq()
            self._last_round = self._max_round()
        except sqlite3.Error as error:
            self._db.close()
            raise JournalDamaged(path, f"SQLite cannot read it ({error})") from error
        except JournalError:
            self._db.close()
            raise

    def _refuse_if_read_only(self) -> None:
        if self.read_only:
            raise JournalError(
                f"{self.path} is open read-only; open it without read_only=True to write"
            )

    # -- creation and checks ---------------------------------------------------

    def _configure(self) -> None:
        self._db.execute("PRAGMA journal_mode = WAL")
        _configure(self._db)

    def _read_meta(self) -> dict[str, str]:
        rows = self._db.execute("SELECT key, value FROM meta").fetchall()
        return {str(key): str(value) for key, value in rows}

    def _max_seq(self) -> int:
        row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()
        return int(row[0])

    def _max_round(self) -> int:
        row = self._db.execute("SELECT COALESCE(MAX(round_no), 0) FROM rounds").fetchone()
        return int(row[0])

    # -- what the journal was made for -------------------------------------------

    @property
    def profile(self) -> str | None:
        return self._meta.get("profile")

    @property
    def rules(self) -> dict[str, Any]:
        rules: dict[str, Any] = json.loads(self._meta.get("rules", "{}"))
        return rules

    @property
    def max_pages(self) -> int:
        """SQLite's page limit of the file (`PRAGMA max_page_count`)."""
        return int(self._db.execute("PRAGMA max_page_count").fetchone()[0])

    @max_pages.setter
    def max_pages(self, pages: int) -> None:
        with self._write_lock, self._lock:
            for db in (self._db, self._writer):
                if db is not None:
                    db.execute(f"PRAGMA max_page_count = {int(pages)}")

    def has_room(self, min_free_bytes: int = 1 << 20) -> bool:
        """Whether a commit may succeed again after a full disk: the journal's folder
        has `min_free_bytes` free and the file is below its page limit."""
        try:
            stats = os.statvfs(self.path.parent)
            with self._lock:
                pages = int(self._db.execute("PRAGMA page_count").fetchone()[0])
                limit = int(self._db.execute("PRAGMA max_page_count").fetchone()[0])
        except (OSError, sqlite3.Error):
            return False
        return stats.f_bavail * stats.f_frsize >= min_free_bytes and pages + 16 < limit

    # -- appending -----------------------------------------------------------------

    @property
    def last_committed_seq(self) -> int:
        return self._last_committed

    @property
    def pending_count(self) -> int:
        """Events appended and not yet sealed or committed."""
        return len(self._pending.events)

    @property
    def unstored_count(self) -> int:
        """Events appended and not yet stored: pending and sealed."""
        with self._lock:
            return len(self._pending.events) + sum(b.size for b in self._in_flight)

    def _last_assigned_seq(self) -> int:
        if self._pending.events:
            return self._pending.events[-1][0]
        for batch in reversed(self._in_flight):
            if batch.events:
                return batch.events[-1][0]
        return self._last_committed

    def _last_assigned_round(self) -> RoundRecord | None:
        if self._pending.rounds:
            return self._pending.rounds[-1]
        for batch in reversed(self._in_flight):
            if batch.rounds:
                return batch.rounds[-1]
        return None

    def append(
        self, event: Mapping[str, Any], source: str, source_ref: str | int | None = None,
        *, known_new: bool = False,
    ) -> int:
        """Add an event to the pending batch; returns its seq (stored once committed).

        Raises `AlreadyStored` when `source_ref` was already stored (or is
        pending) for `source`: a re-sent shoe frame is then a no-op.
        `known_new`: the caller has just looked the reference up
        (`seq_of_source_ref`) on the only thread that appends, so it is not looked
        up again (the database would still refuse a duplicate at commit).
        """
        self._refuse_if_read_only()
        if not isinstance(source, str) or not source:
            raise ValueError(f"source must be a non-empty name such as 'shoe', got {source!r}")
        text = _event_text(event)
        ref = None if source_ref is None else str(source_ref)
        with self._lock:
            if ref is not None and not known_new:
                seq = self._seq_of_ref(source, ref)
                if seq is not None:
                    raise AlreadyStored(source, ref, seq)
            seq = self._last_assigned_seq() + 1
            self._pending.events.append((seq, source, ref, text))
            self._pending.times.append((seq, time.time()))
            if ref is not None:
                self._pending.refs[(source, ref)] = seq
                if self._ref_filter is not None:
                    self._ref_filter.add(source, ref)
            return seq

    def append_many(self, items: Iterable[tuple[Mapping[str, Any], str, str | int | None]]) -> int:
        """Append and commit `(event, source, source_ref)` items; returns the last committed seq."""
        with self._lock:
            for event, source, ref in items:
                self.append(event, source, ref)
            return self.commit()

    def has_source_ref(self, source: str, source_ref: str | int) -> bool:
        """Whether an event with this reference is stored or pending."""
        return self.seq_of_source_ref(source, source_ref) is not None

    def seq_of_source_ref(self, source: str, source_ref: str | int) -> int | None:
        with self._lock:
            return self._seq_of_ref(source, str(source_ref))

    def _seq_of_ref(self, source: str, ref: str) -> int | None:
        pending = self._pending.refs.get((source, ref))
        if pending is not None:
            return pending
        for batch in self._in_flight:
            sealed = batch.refs.get((source, ref))
            if sealed is not None:
                return sealed
        # A batch leaves the in-flight list only after its commit: it is then here.
        if self._ref_filter is not None and not self._ref_filter.may_contain(source, ref):
            return None
        rows = self._query(
            "SELECT seq FROM events WHERE source = ? AND source_ref = ?", (source, ref)
        )
        return int(rows[0][0]) if rows else None

    def last_source_ref(self, source: str) -> str | None:
        """The reference of the newest committed event from `source` (e.g. the
        shoe's last stored frame), None if there is none."""
        rows = self._query(
            "SELECT source_ref FROM events WHERE source = ? AND source_ref IS NOT NULL"
            " ORDER BY seq DESC LIMIT 1", (source,),
        )
        return str(rows[0][0]) if rows else None

    def record_round(self, round_no: int, result: Mapping[str, Any]) -> None:
        """Add a finished round's outputs to the pending batch.

        The round spans the events after the previous round's last event up to
        the last event appended so far.
        """
        self._refuse_if_read_only()
        text = json.dumps(dict(result), separators=(",", ":"))
        status = result.get("status")
        flags = result.get("flags", [])
        if not isinstance(status, str):
            raise ValueError(f"round {round_no}: the result needs a 'status' text")
        if not isinstance(flags, list | tuple) or not all(isinstance(f, str) for f in flags):
            raise ValueError(f"round {round_no}: 'flags' must be a list of codes")
        with self._lock:
            last_round = self._last_assigned_round()
            expected = (last_round.round_no if last_round else self._last_round) + 1
            if round_no != expected:
                raise ValueError(
                    f"round {round_no} cannot be recorded: the next round to record is "
                    f"{expected}"
                )
            start = (last_round.end_seq if last_round else self._round_end(self._last_round)) + 1
            end = self._last_assigned_seq()
            record = RoundRecord(round_no, status, start, end, tuple(flags), json.loads(text))
            self._pending.rounds.append(record)

    def _round_end(self, round_no: int) -> int:
        if round_no == 0:
            return 0
        rows = self._query("SELECT end_seq FROM rounds WHERE round_no = ?", (round_no,))
        return int(rows[0][0])

    def commit(self) -> int:
        """Store everything pending in one transaction; returns the last committed seq.

        On failure nothing of the batch is stored and it stays pending.
        """
        with self._write_lock, self._lock:
            batch = self.seal()
            if batch is None:
                return self._last_committed
            try:
                self.write(batch)
            except BaseException:
                self._unseal(batch)
                raise
            return self._last_committed

    def seal(self) -> SealedBatch | None:
        """Take the pending batch for `write()` (None if nothing is pending); appends go
        on into a new one. Batches must be written in the order they were sealed."""
        with self._lock:
            pending = self._pending
            if not pending.events and not pending.rounds:
                return None
            batch = SealedBatch(tuple(pending.events), dict(pending.refs),
                                tuple(pending.rounds), tuple(pending.times))
            self._in_flight.append(batch)
            pending.clear()
            return batch

    def write(self, batch: SealedBatch) -> int:
        """Store a sealed batch in one transaction; returns the last committed seq.

        Raises `JournalError` on failure: nothing of it is stored, and it stays
        sealed (`discard_unstored` drops it, with everything appended after it).
        """
        with self._write_lock:
            with self._lock:
                if not self._in_flight or self._in_flight[0] is not batch:
                    raise ValueError("sealed batches are written in the order they were sealed")
                expected = self._last_committed
            db = self._writer
            assert db is not None, "a read-only journal has no writer"
            try:
                db.execute("BEGIN IMMEDIATE")
                stored = int(db.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
                if stored != expected:
                    raise JournalError(
                        f"{self.path}: another program wrote to the journal (last seq "
                        f"{stored}, expected {expected}); only one tablectl may "
                        "use a journal file; stop the other one and restart"
                    )
                db.executemany(
                    "INSERT INTO events (seq, source, source_ref, event) VALUES (?, ?, ?, ?)",
                    batch.events,
                )
                db.executemany("INSERT INTO event_times (seq, at) VALUES (?, ?)", batch.times)
                db.executemany(
                    "INSERT INTO rounds (round_no, start_seq, end_seq, status, flags, result) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        (
                            r.round_no,
                            r.start_seq,
                            r.end_seq,
                            r.status,
                            json.dumps(list(r.flags)),
                            json.dumps(r.result, separators=(",", ":")),
                        )
                        for r in batch.rounds
                    ],
                )
                db.execute("COMMIT")
            except sqlite3.Error as error:
                _rollback(db)
                raise _storage_error(self.path, error, batch.size) from error
            except BaseException:
                _rollback(db)
                raise
            with self._lock:
                if batch.events:
                    self._last_committed = batch.events[-1][0]
                if batch.rounds:
                    self._last_round = batch.rounds[-1].round_no
                self._in_flight.popleft()
                return self._last_committed

    def _unseal(self, batch: SealedBatch) -> None:
        """Put a batch whose write failed back in front of the pending one."""
        with self._lock:
            self._in_flight.remove(batch)
            pending = self._pending
            pending.events[:0] = batch.events
            pending.refs.update(batch.refs)
            pending.rounds[:0] = batch.rounds
            pending.times[:0] = batch.times

    def discard_pending(self) -> int:
        """Drop the pending batch (never acknowledged); returns how many events."""
        with self._lock:
            count = len(self._pending.events)
            self._pending.clear()
            return count

    def discard_unstored(self) -> int:
        """Drop every sealed and pending batch (after a failed write: never
        acknowledged); returns how many events."""
        with self._lock:
            count = sum(b.size for b in self._in_flight) + len(self._pending.events)
            self._in_flight.clear()
            self._pending.clear()
            return count

    # -- reading -----------------------------------------------------------------

    def events(self, after_seq: int = 0) -> Iterator[JournalEvent]:
        """Committed events after `after_seq`, in order (for replay at startup)."""
        last = after_seq
        while True:
            with self._lock:
                rows = self._query(
                    "SELECT seq, source, source_ref, event FROM events WHERE seq > ? "
                    "ORDER BY seq LIMIT ?",
                    (last, _PAGE_OF_EVENTS),
                )
            if not rows:
                return
            for seq, source, ref, text in rows:
                yield JournalEvent(int(seq), str(source), ref, json.loads(text))
            last = int(rows[-1][0])

    def event_at(self, seq: int) -> dict[str, Any] | None:
        """The committed event number `seq`, None if there is none."""
        with self._lock:
            rows = self._query("SELECT event FROM events WHERE seq = ?", (seq,))
        return json.loads(rows[0][0]) if rows else None

    def event_times(self, first_seq: int, last_seq: int) -> dict[int, float]:
        """When each committed event from `first_seq` to `last_seq` was appended
        (seconds since the epoch); events of a journal made before times were kept
        have none."""
        with self._lock:
            try:
                rows = self._db.execute(
                    "SELECT seq, at FROM event_times WHERE seq BETWEEN ? AND ?",
                    (first_seq, last_seq)).fetchall()
            except sqlite3.OperationalError:  # an older journal opened read-only
                return {}
        return {int(seq): float(at) for seq, at in rows}

    def rounds(self) -> list[RoundRecord]:
        """Every committed round, in order."""
        with self._lock:
            rows = self._query(
                "SELECT round_no, status, start_seq, end_seq, flags, result FROM rounds "
                "ORDER BY round_no"
            )
        return [
            RoundRecord(
                int(no), str(status), int(start), int(end),
                tuple(json.loads(flags)), json.loads(result),
            )
            for no, status, start, end, flags, result in rows
        ]

    def round_record(self, round_no: int) -> RoundRecord:
        for record in self.rounds():
            if record.round_no == round_no:
                return record
        raise KeyError(f"round {round_no} is not in the journal")

    def round_events(self, round_no: int) -> list[JournalEvent]:
        """The committed events of one recorded round."""
        record = self.round_record(round_no)
        with self._lock:
            rows = self._query(
                "SELECT seq, source, source_ref, event FROM events "
                "WHERE seq BETWEEN ? AND ? ORDER BY seq",
                (record.start_seq, record.end_seq),
            )
        return [JournalEvent(int(s), str(src), ref, json.loads(text)) for s, src, ref, text in rows]

    def open_round_events(self) -> list[JournalEvent]:
        """Committed events after the last recorded round (a round in play)."""
        end = self._round_end(self._last_round)
        return list(self.events(after_seq=end))

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as error:
            raise JournalError(
                f"{self.path}: the journal cannot be read ({error}); check the disk"
            ) from error

    # -- life ----------------------------------------------------------------------

    def close(self) -> None:
        """Close the file. Pending events are dropped: commit first to keep them."""
        with self._write_lock, self._lock:
            self._pending.clear()
            self._in_flight.clear()
            self._close_connections()

    def _close_connections(self) -> None:
        self._db.close()
        if self._writer is not None:
            self._writer.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class GroupCommitter:
    """Commits a journal when the batch reaches `max_events` or `max_age_ms`.

    The caller gives the time (seconds, monotonic) to `append` and `poll`,
    and calls `poll` regularly (e.g. whenever its queue is idle).
    `on_commit(seqs)` is called with the seqs just stored.
    """

    def __init__(
        self,
        journal: Journal,
        *,
        max_events: int = 256,
        max_age_ms: float = 2.0,
        on_commit: Callable[[list[int]], None] | None = None,
    ) -> None:
        if max_events < 1 or max_age_ms < 0:
            raise ValueError("max_events must be 1 or more and max_age_ms 0 or more")
        self.journal = journal
        self.max_events = max_events
        self.max_age_s = max_age_ms / 1000
        self.on_commit = on_commit
        self._batch: list[int] = []
        self._oldest: float | None = None

    def append(
        self,
        event: Mapping[str, Any],
        source: str,
        source_ref: str | int | None = None,
        *,
        now: float,
    ) -> int:
        seq = self.journal.append(event, source, source_ref)
        self._batch.append(seq)
        if self._oldest is None:
            self._oldest = now
        if len(self._batch) >= self.max_events:
            self.flush()
        return seq

    def poll(self, now: float) -> list[int]:
        """Commit if the oldest pending event has waited `max_age_ms`; returns seqs stored."""
        # The tolerance keeps float rounding from holding a batch one poll too long.
        if self._oldest is not None and now - self._oldest >= self.max_age_s - 1e-9:
            return self.flush()
        return []

    def flush(self) -> list[int]:
        """Commit now. Raises `JournalError` (the batch stays pending) on failure."""
        if not self._batch:
            return []
        self.journal.commit()
        stored, self._batch, self._oldest = self._batch, [], None
        if self.on_commit is not None:
            self.on_commit(stored)
        return stored

    @property
    def waiting(self) -> int:
        return len(self._batch)


def export_scenario(journal: Journal, rounds: Iterable[int] | None = None) -> dict[str, Any]:
    """A `table-scenario/1` document of recorded rounds (all by default).

    Each round carries its events, its number in the journal
    (`journal_round`) and, as `expect`, the result recorded when it was
    played, numbered as the replay numbers it: the round's `round` is its
    place in the document, and a refusal recorded at `event N` (the table's
    count of events, which is the journal seq when the daemon fed the table
    every journal event) is at `round R, event E` of the document.

    Rounds are replayed on a fresh table: a selection that does not start at
    the journal's first round (or at a shoe load) starts from a full shoe,
    which the original round did not.
    """
    profile = journal.profile
    if profile is None:
        raise JournalError(
            f"{journal.path}: no profile is stored in this journal, so it cannot be "
            "exported as a scenario; it was created without one"
        )
    records = {record.round_no: record for record in journal.rounds()}
    wanted = sorted(records) if rounds is None else list(rounds)
    missing = [n for n in wanted if n not in records]
    if missing:
        raise JournalError(
            f"{journal.path}: round(s) {', '.join(map(str, missing))} not recorded; "
            f"the journal has rounds 1 to {len(records)}"
        )
    doc: dict[str, Any] = {"format": SCENARIO_FORMAT}
    span = f"round {wanted[0]}" if len(wanted) == 1 else f"rounds {_ranges(wanted)}"
    doc["name"] = f"{journal.path.name}: {span}" if wanted else journal.path.name
    doc["profile"] = profile
    if journal.rules:
        doc["rules"] = journal.rules
    doc["rounds"] = []
    for index, n in enumerate(wanted, start=1):
        events = journal.round_events(n)
        doc["rounds"].append({
            "journal_round": n,
            "events": [item.event for item in events],
            "expect": _as_replayed(records[n].result, events, index),
        })
    return doc


def _ranges(numbers: list[int]) -> str:
    """`1-3,7` for [1, 2, 3, 7] (consecutive runs joined)."""
    parts: list[str] = []
    start = previous = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == previous + 1:
            previous = n
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if n is not None:
            start = previous = n
    return ",".join(parts)


_TABLE_POSITION = re.compile(r"^event (\d+)$")


def _as_replayed(
    result: dict[str, Any], events: list[JournalEvent], index: int
) -> dict[str, Any]:
    """A recorded result in the numbering of a replay of the exported document."""
    expect = dict(result)
    if "round" in expect:
        expect["round"] = index
    refused = expect.get("refused")
    if not isinstance(refused, list):
        return expect
    by_seq = {item.seq: (e, item.event) for e, item in enumerate(events, start=1)}
    renumbered = []
    for entry in refused:
        match = _TABLE_POSITION.match(str(entry.get("position", ""))) if isinstance(
            entry, dict) else None
        found = by_seq.get(int(match.group(1))) if match else None
        # Renumber only when the event at that seq is the refused one (same kind).
        if found is not None and isinstance(entry.get("event"), dict) and set(
                entry["event"]) == set(found[1]):
            entry = {**entry, "position": f"round {index}, event {found[0]}"}
        renumbered.append(entry)
    expect["refused"] = renumbered
    return expect


# -- helpers -------------------------------------------------------------------


# Made once: `json.dumps` with options builds a new encoder at every call.
_EVENT_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)

# The one event with a second key: a card with the place a camera saw it land.
_PLACED_CARD_KEYS = {"card", "box"}


def _event_text(event: Mapping[str, Any]) -> str:
    if not isinstance(event, Mapping) or (
        len(event) != 1 and set(event) != _PLACED_CARD_KEYS
    ):
        raise ValueError(
            "an event is a dict with one key such as {'card': '7S'} (a card may add "
            f"'box'), got {event!r}"
        )
    try:
        return _EVENT_ENCODER.encode(dict(event))
    except (TypeError, ValueError) as error:
        raise ValueError(f"the event {event!r} cannot be stored as JSON: {error}") from error


def _configure(db: sqlite3.Connection) -> None:
    # FULL: a commit is on the disk when it returns, so it may be acknowledged.
    db.execute("PRAGMA synchronous = FULL")
    db.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")


def _rollback(db: sqlite3.Connection) -> None:
    if db.in_transaction:
        try:
            db.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # SQLite may have rolled back already after SQLITE_FULL


def _storage_error(path: Path, error: sqlite3.Error, count: int) -> JournalError:
    code = getattr(error, "sqlite_errorcode", None)
    if code == sqlite3.SQLITE_FULL or "full" in str(error):
        return JournalFullError(
            f"{path}: the disk is full ({error}); the last {count} event(s) were NOT stored "
            "and stay pending. Free space on the journal's disk (or move the journal to a "
            "larger one), then commit again"
        )
    return JournalError(
        f"{path}: the journal could not store the last {count} event(s) ({error}); they "
        "stay pending and were NOT stored. Check the disk, then commit again"
    )
