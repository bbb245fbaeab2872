"""The journal's writer: an append-only SQLite file (WAL) of every input event
and of each round's outputs.

Appends go into a pending batch held in memory; `commit()` writes the whole
batch in one transaction (group commit) and only then are its events
"stored": a shoe frame may be acknowledged, an API call answered. If the
commit fails (disk full, I/O error) nothing of the batch is on disk and the
batch stays pending, so a later commit can store it.

A writer thread may instead take the pending batch with `seal()` and store it
with `write(batch)` while appends go on into the next batch: the appending
thread never waits for the disk. Sealed batches are written in the order they
were sealed, on a connection of their own.

It reads no clock but the wall time stamped on each event (`event_times`).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from journal import store
from journal.errors import AlreadyStored, JournalError
from journal.file import check_file, check_header, recover_if_unfinished, sweep_unfinished
from journal.file import create as create_file
from journal.migrations import migrate
from journal.reader import JournalReader
from journal.records import PendingBatch, RoundRecord, SealedBatch, event_text, round_record
from journal.ref_filter import RefFilter
from journal.schema import SCHEMA_VERSION, meta_rows


class Journal(JournalReader):
    """One journal file, written by a single appender: the table's loop (and at
    most one writer thread storing the batches it seals).

    `profile` and `rules` are stored when the file is created, so an export
    is a complete scenario; opening an existing journal with a different
    profile is refused (its events would replay differently). A journal of an
    older schema version is migrated when it is opened (`journal.migrations`).
    """

    read_only = False

    def __init__(
        self,
        path: str | Path,
        *,
        profile: str | None = None,
        rules: Mapping[str, Any] | None = None,
        create: bool = True,
        max_pages: int | None = None,
    ) -> None:
        # Not `JournalReader.__init__`: that one opens the file read only.
        self.path = Path(path)
        self._lock = threading.RLock()
        # Taken before `_lock` wherever both are held.
        self._write_lock = threading.RLock()
        self._pending = PendingBatch()
        # Sealed batches not yet written, oldest first.
        self._in_flight: deque[SealedBatch] = deque()
        self._writer: sqlite3.Connection | None = None
        version = self._checked_or_created(profile, rules, create)
        try:
            self._db = store.connect(self.path)
        except sqlite3.Error as error:
            raise JournalError(f"{self.path}: cannot open the journal ({error})") from error
        try:
            self._db.execute("PRAGMA journal_mode = WAL")
            # The version an older journal was migrated from; None when it was current.
            self.migrated_from = version if migrate(self._db, self.path, version) else None
            self._loaded(SCHEMA_VERSION)
            stored_profile = self._meta.get("profile")
            if profile is not None and stored_profile not in (None, profile):
                raise JournalError(
                    f"{self.path} was written under profile {stored_profile!r}, not "
                    f"{profile!r}; keep that profile, or start a new journal file for the "
                    "new one (its rounds would replay differently)"
                )
            # Batches are stored on a connection of their own, so that the appending
            # thread's reads (duplicate references) never wait for a commit's fsync.
            self._writer = store.connect(self.path)
            # References stored or on their way: most lookups end here.
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

    def _checked_or_created(self, profile: str | None, rules: Mapping[str, Any] | None,
                            create: bool) -> int:
        """Check the file there, or make a new one; returns its schema version."""
        path = self.path
        if path.exists():
            sweep_unfinished(path)
            if not recover_if_unfinished(path):
                check_header(path)
                return check_file(path)
            # An empty leftover of a creation killed halfway: it holds nothing.
        elif not create:
            raise JournalError(f"{path}: no journal there; give the path of a journal file")
        elif not path.parent.is_dir():
            raise JournalError(
                f"{path}: the folder {path.parent} does not exist; create it or "
                "choose another journal path"
            )
        else:
            sweep_unfinished(path)
        create_file(path, meta_rows(profile, rules))
        return SCHEMA_VERSION

    # -- the file's limits -------------------------------------------------------------

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
        *, known_new: bool = False, refused: str | None = None,
    ) -> int:
        """Add an event to the pending batch; returns its seq (stored once committed).

        `refused`: the table's reason when it refused the event (an export places
        the round's refusals by it). Raises `AlreadyStored` when `source_ref` was
        already stored (or is pending) for `source`: a re-sent shoe frame is then a
        no-op. `known_new`: the caller has just looked the reference up
        (`seq_of_source_ref`) on the only thread that appends, so it is not looked
        up again (the database would still refuse a duplicate at commit).
        """
        if not isinstance(source, str) or not source:
            raise ValueError(f"source must be a non-empty name such as 'shoe', got {source!r}")
        text = event_text(event)
        ref = None if source_ref is None else str(source_ref)
        with self._lock:
            if ref is not None and not known_new:
                seq = self._seq_of_ref(source, ref)
                if seq is not None:
                    raise AlreadyStored(source, ref, seq)
            seq = self._last_assigned_seq() + 1
            self._pending.events.append((seq, source, ref, text, refused))
            self._pending.times.append((seq, time.time()))
            if ref is not None:
                self._pending.refs[(source, ref)] = seq
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
        if not self._ref_filter.may_contain(source, ref):
            return None
        rows = self._query(
            "SELECT seq FROM events WHERE source = ? AND source_ref = ?", (source, ref)
        )
        return int(rows[0][0]) if rows else None

    def record_round(self, round_no: int, result: Mapping[str, Any]) -> None:
        """Add a finished round's outputs to the pending batch.

        The round spans the events after the previous round's last event up to
        the last event appended so far.
        """
        with self._lock:
            last_round = self._last_assigned_round()
            expected = (last_round.round_no if last_round else self._last_round) + 1
            start = (last_round.end_seq if last_round else self._round_end(self._last_round)) + 1
            record = round_record(round_no, result, start, self._last_assigned_seq())
            if round_no != expected:
                raise ValueError(
                    f"round {round_no} cannot be recorded: the next round to record is "
                    f"{expected}"
                )
            self._pending.rounds.append(record)

    # -- storing ---------------------------------------------------------------------

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
            assert self._writer is not None, "the journal is closed"
            store.store(self._writer, self.path, batch, expected)
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

    # -- life ----------------------------------------------------------------------

    def close(self) -> None:
        """Close the file. Pending events are dropped: commit first to keep them."""
        with self._write_lock, self._lock:
            self._pending.clear()
            self._in_flight.clear()
            self._close_connections()

    def _close_connections(self) -> None:
        if hasattr(self, "_db"):
            self._db.close()
        if self._writer is not None:
            self._writer.close()

    def __enter__(self) -> Journal:
        return self
