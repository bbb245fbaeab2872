"""The journal's file: made whole or not at all, checked before it is used.

A new journal is built under a temporary name beside its path (schema, meta,
WAL switched on), flushed, and renamed to its path only when complete: a
creation killed halfway leaves a temporary file that no later start mistakes
for a journal, and the next writer sweeps it away.

An existing journal is opened through SQLite, so that SQLite's own recovery
runs (a `-wal` file's commits, a hot rollback journal), and then checked with
`PRAGMA quick_check` and its meta rows. Reading the main file alone would miss
what a killed process left in the WAL and call an intact journal damaged.

Standard library only.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping
from pathlib import Path

from journal.errors import JournalDamaged, JournalError
from journal.schema import (
    APPLICATION_ID,
    FORMAT_NAME,
    SCHEMA,
    SCHEMA_VERSION,
    stored_version,
)

_SQLITE_MAGIC = b"SQLite format 3\x00"
_HEADER_SIZE = 100
_USER_VERSION_OFFSET = 60
_APPLICATION_ID_OFFSET = 68
_BUSY_TIMEOUT_S = 5.0
# The temporary name a journal is built under: `.NAME.new-PID`.
_NEW_MARK = ".new-"
# quick_check stops after this many problems: enough to say what is wrong.
_PROBLEMS_SHOWN = 5


# -- creation ----------------------------------------------------------------------


def temporary_name(path: Path) -> Path:
    return path.with_name(f".{path.name}{_NEW_MARK}{os.getpid()}")


def sweep_unfinished(path: Path) -> list[Path]:
    """Remove the temporary files of creations of `path` killed halfway (their
    process is gone); returns what was removed."""
    removed: list[Path] = []
    prefix = f".{path.name}{_NEW_MARK}"
    try:
        candidates = list(path.parent.iterdir())
    except OSError:
        return removed
    for candidate in candidates:
        name = candidate.name
        if not name.startswith(prefix):
            continue
        pid_text = name[len(prefix):].split("-", 1)[0]
        if pid_text.isdigit() and process_alive(int(pid_text)) and int(pid_text) != os.getpid():
            continue  # another process is making it now
        try:
            candidate.unlink()
            removed.append(candidate)
        except OSError:
            pass
    return removed


def process_alive(pid: int) -> bool:
    """Whether a process of this id runs (one of another user's counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def create(path: Path, meta: Mapping[str, str]) -> None:
    """Make a new, empty journal at `path`, whole or not at all (`path` must be
    absent or an empty file)."""
    _refuse_orphan_wal(path)
    temporary = temporary_name(path)
    for leftover in (temporary, *_sidecars(temporary)):
        leftover.unlink(missing_ok=True)
    try:
        db = sqlite3.connect(temporary, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error as error:
        raise JournalError(f"{path}: cannot create the journal ({error})") from error
    try:
        # Header fields, schema and meta in one transaction, then WAL: the file is
        # complete before it gets its name.
        db.execute("BEGIN IMMEDIATE")
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        for statement in SCHEMA:
            db.execute(statement)
        db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta.items())
        db.execute("COMMIT")
        db.execute("PRAGMA journal_mode = WAL")
    except sqlite3.Error as error:
        db.close()
        temporary.unlink(missing_ok=True)
        raise JournalError(f"{path}: cannot create the journal ({error})") from error
    db.close()  # the last connection: the WAL is folded in and removed
    try:
        _fsync(temporary)
        for sidecar in _sidecars(path):
            sidecar.unlink(missing_ok=True)
        os.replace(temporary, path)
        _fsync(path.parent)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise JournalError(
            f"{path}: cannot create the journal ({error.strerror or error})") from error


def _sidecars(path: Path) -> tuple[Path, Path, Path]:
    return (Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal"))


def _refuse_orphan_wal(path: Path) -> None:
    wal = Path(f"{path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise JournalError(
            f"{path} is missing or empty but {wal} holds commits of a journal; it was "
            "left as it is. Put the journal file back beside it (or give another path)"
        )


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# -- checks ------------------------------------------------------------------------


def recover_if_unfinished(path: Path) -> bool:
    """Let SQLite finish or undo what a killed process left in a rollback journal
    (a creation by an older tablectl); True when the file then holds no table at
    all: an empty leftover, not a journal, to be made anew."""
    if path.stat().st_size == 0:
        return True
    hot = Path(f"{path}-journal")
    if not hot.exists():
        return False
    try:
        db = sqlite3.connect(path, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
        try:
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return False  # the checks that follow say what is wrong
    return int(tables) == 0 or path.stat().st_size == 0


def check_header(path: Path) -> None:
    """Refuse a file that is not a journal of a version this code reads, unopened."""
    try:
        with path.open("rb") as file:
            header = file.read(_HEADER_SIZE)
    except OSError as error:
        raise JournalError(f"{path}: cannot read the journal: {error.strerror}") from error
    if not header.startswith(_SQLITE_MAGIC) or len(header) < _HEADER_SIZE:
        raise JournalError(
            f"{path} is not a tablectl journal (not an SQLite file); it was left untouched. "
            "Give the path of a journal, or a new file name to start one"
        )
    app_id = int.from_bytes(header[_APPLICATION_ID_OFFSET:_APPLICATION_ID_OFFSET + 4], "big")
    version = int.from_bytes(header[_USER_VERSION_OFFSET:_USER_VERSION_OFFSET + 4], "big")
    if app_id != APPLICATION_ID:
        raise JournalError(
            f"{path} is an SQLite file of another application (application_id "
            f"{app_id:#x}), not a tablectl journal; it was left untouched. Give the path "
            "of a journal, or a new file name to start one"
        )
    if version > SCHEMA_VERSION:
        raise JournalError(
            f"{path} is a journal of schema version {version}, newer than this tablectl "
            f"reads ({SCHEMA_VERSION}); it was left untouched. Update tablectl to use it"
        )


def read_only_uri(path: Path) -> str:
    """The URI that opens a journal for reading only. mode=ro never writes the
    database file. While a writer has the file open its -wal file exists, and the
    reader goes through the WAL (and its -shm index) to see every commit. Without
    a -wal file no writer is there and everything is in the main file: it is read
    as immutable, so no -wal or -shm file is made beside it (one made by another
    user could keep the daemon from opening its journal)."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    if not Path(f"{path}-wal").exists():
        uri += "&immutable=1"
    return uri


def integrity_problems(db: sqlite3.Connection) -> list[str]:
    """What `PRAGMA quick_check` finds wrong (empty when the file is intact)."""
    rows = db.execute(f"PRAGMA quick_check({_PROBLEMS_SHOWN})").fetchall()
    problems = [str(row[0]) for row in rows]
    return [] if problems == ["ok"] else problems


def check_file(path: Path, *, quick_check: bool = True) -> int:
    """Check an existing journal before anything writes to it, on a read-only
    connection that goes through its WAL when there is one (immutable when there
    is none, so nothing is made beside the file). Returns and raises as
    `check_contents`."""
    try:
        db = sqlite3.connect(read_only_uri(path), uri=True, timeout=_BUSY_TIMEOUT_S)
    except sqlite3.Error as error:
        raise JournalError(f"{path}: cannot open the journal ({error})") from error
    try:
        return check_contents(path, db, quick_check=quick_check)
    finally:
        db.close()


def check_contents(path: Path, db: sqlite3.Connection, *, quick_check: bool = True) -> int:
    """Check an open journal (through SQLite, so with its WAL): intact, and its meta
    rows say it is a journal of a version this code reads; returns that version.
    Raises `JournalDamaged` for a file SQLite cannot read whole."""
    try:
        problems = integrity_problems(db) if quick_check else []
        rows = dict(db.execute("SELECT key, value FROM meta").fetchall())
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as error:
        raise JournalDamaged(path, f"SQLite cannot read it ({error})") from error
    if problems:
        raise JournalDamaged(path, "SQLite's quick_check reports " + "; ".join(problems))
    if rows.get("format") != FORMAT_NAME or not {"events", "rounds"} <= tables:
        raise JournalError(
            f"{path} is not a tablectl journal (its meta table says format "
            f"{rows.get('format')!r}); it was left untouched. Give the path of a journal"
        )
    version = stored_version(rows)
    if version is None or version > SCHEMA_VERSION:
        raise JournalError(
            f"{path} is a journal of schema version {version}, newer than this tablectl "
            f"reads ({SCHEMA_VERSION}); it was left untouched. Update tablectl to use it"
        )
    return version
