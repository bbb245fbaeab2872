"""What goes wrong with a journal, each error's message saying what to do."""

from __future__ import annotations

import sqlite3
from pathlib import Path


class JournalError(Exception):
    """The journal cannot be opened or cannot store; the message says what to do."""


class JournalFullError(JournalError):
    """The disk (or the journal's size limit) is full; the batch stays pending."""


class JournalDamaged(JournalError):
    """SQLite cannot read the journal whole: `problem` says what is wrong."""

    def __init__(self, path: Path, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(damaged_advice(path, problem))


class AlreadyStored(ValueError):
    """An event with this source reference is already in the journal (or pending)."""

    def __init__(self, source: str, source_ref: str, seq: int) -> None:
        self.source = source
        self.source_ref = source_ref
        self.seq = seq
        super().__init__(f"{source} event {source_ref!r} is already stored as seq {seq}")


def damaged_advice(path: Path, problem: str) -> str:
    return (
        f"{path} is damaged: {problem}. It was left as it is: keep it, it is the audit "
        f"trail. `tablectl journal check --journal {path}` says what can still be read; "
        f"`tablectl journal salvage --journal {path} -o NEW.sqlite` copies every readable "
        "event and round into the new journal NEW.sqlite and lists what could not be "
        "read; then run the table on NEW.sqlite"
    )


def storage_error(path: Path, error: sqlite3.Error, count: int) -> JournalError:
    """The error of a failed commit of `count` events."""
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
