"""Storing one sealed batch in one transaction, on the writer's connection."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from journal.errors import JournalError, storage_error
from journal.reader import BUSY_TIMEOUT_MS
from journal.records import SealedBatch, round_row


def configure(db: sqlite3.Connection) -> None:
    # FULL: a commit is on the disk when it returns, so it may be acknowledged.
    db.execute("PRAGMA synchronous = FULL")
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")


def connect(path: Path) -> sqlite3.Connection:
    """A read-write connection in autocommit mode, usable from any thread."""
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                         check_same_thread=False)
    try:
        configure(db)
    except sqlite3.Error:
        db.close()
        raise
    return db


def store(db: sqlite3.Connection, path: Path, batch: SealedBatch, expected_seq: int) -> None:
    """Write `batch` whole or not at all; `expected_seq` is the last seq the file must
    hold before it (another writer is refused). Raises `JournalError`."""
    try:
        db.execute("BEGIN IMMEDIATE")
        stored = int(db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
        if stored != expected_seq:
            raise JournalError(
                f"{path}: another program wrote to the journal (last seq {stored}, "
                f"expected {expected_seq}); only one tablectl may use a journal file; "
                "stop the other one and restart"
            )
        db.executemany(
            "INSERT INTO events (seq, source, source_ref, event, refused) "
            "VALUES (?, ?, ?, ?, ?)", batch.events)
        db.executemany("INSERT INTO event_times (seq, at) VALUES (?, ?)", batch.times)
        db.executemany(
            "INSERT INTO rounds (round_no, start_seq, end_seq, status, flags, result) "
            "VALUES (?, ?, ?, ?, ?, ?)", [round_row(r) for r in batch.rounds])
        db.execute("COMMIT")
    except sqlite3.Error as error:
        _rollback(db)
        raise storage_error(path, error, batch.size) from error
    except BaseException:
        _rollback(db)
        raise


def _rollback(db: sqlite3.Connection) -> None:
    if db.in_transaction:
        try:
            db.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # SQLite may have rolled back already after SQLITE_FULL
