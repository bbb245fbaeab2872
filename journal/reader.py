"""Reading a journal: its events, rounds and what it was made for.

`JournalReader(path)` opens an existing journal for reading only (the
`tablectl journal` commands, the web display): the file is never written, and a
daemon writing it at the same time is not disturbed. A journal of an older
schema version is read as it is, without migrating it. `Journal` (the writer)
reads the same way.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from journal.errors import JournalDamaged, JournalError
from journal.file import check_contents, check_header, read_only_uri
from journal.migrations import legacy_refusals
from journal.records import JournalEvent, RoundRecord, event_from_row, round_from_row

BUSY_TIMEOUT_MS = 5000
_PAGE_OF_EVENTS = 1000
_ROUND_COLUMNS = "round_no, status, start_seq, end_seq, flags, result"


class JournalReader:
    """One journal file, read. Safe to share between threads."""

    read_only = True

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        path = self.path
        if not path.exists():
            raise JournalError(f"{path}: no journal there; give the path of a journal file")
        if not path.is_file():
            raise JournalError(f"{path} is not a file; give the path of a journal file")
        if path.stat().st_size == 0:
            raise JournalError(f"{path} is empty, not a tablectl journal")
        check_header(path)
        try:
            self._db = sqlite3.connect(
                read_only_uri(path), uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None, check_same_thread=False,
            )
        except sqlite3.Error as error:
            raise JournalError(f"{path}: cannot open the journal ({error})") from error
        try:
            version = check_contents(path, self._db, quick_check=False)
            self._loaded(version)
        except sqlite3.Error as error:
            self._db.close()
            raise JournalDamaged(path, f"SQLite cannot read it ({error})") from error
        except JournalError:
            self._db.close()
            raise

    def _loaded(self, version: int) -> None:
        """Read what the journal was made for and how far it goes."""
        self._version = version
        # seq -> reason of the refused events of a version 1 journal, worked out once.
        self._legacy_refused: dict[int, str] | None = None
        rows = self._db.execute("SELECT key, value FROM meta").fetchall()
        self._meta = {str(key): str(value) for key, value in rows}
        self._last_committed = int(
            self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
        self._last_round = int(
            self._db.execute("SELECT COALESCE(MAX(round_no), 0) FROM rounds").fetchone()[0])

    # -- what the journal was made for -------------------------------------------

    @property
    def profile(self) -> str | None:
        return self._meta.get("profile")

    @property
    def rules(self) -> dict[str, Any]:
        rules: dict[str, Any] = json.loads(self._meta.get("rules", "{}"))
        return rules

    @property
    def schema_version(self) -> int:
        return self._version

    @property
    def last_committed_seq(self) -> int:
        return self._last_committed

    # -- events ---------------------------------------------------------------------

    def events(self, after_seq: int = 0) -> Iterator[JournalEvent]:
        """Committed events after `after_seq`, in order, read in pages (replay)."""
        last = after_seq
        while True:
            rows = self._event_rows("WHERE seq > ? ORDER BY seq LIMIT ?",
                                    (last, _PAGE_OF_EVENTS))
            if not rows:
                return
            yield from rows
            last = rows[-1].seq

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

    def last_source_ref(self, source: str) -> str | None:
        """The reference of the newest committed event from `source` (e.g. the
        shoe's last stored frame), None if there is none."""
        with self._lock:
            rows = self._query(
                "SELECT source_ref FROM events WHERE source = ? AND source_ref IS NOT NULL"
                " ORDER BY seq DESC LIMIT 1", (source,),
            )
        return str(rows[0][0]) if rows else None

    def _event_rows(self, where: str, params: tuple[Any, ...]) -> list[JournalEvent]:
        refused = "refused" if self._version >= 2 else "NULL"
        with self._lock:
            rows = self._query(
                f"SELECT seq, source, source_ref, event, {refused} FROM events {where}", params)
        events = [event_from_row(row) for row in rows]
        if self._version >= 2:
            return events
        legacy = self._legacy_refusals()
        return [JournalEvent(e.seq, e.source, e.source_ref, e.event, legacy.get(e.seq))
                for e in events]

    def _legacy_refusals(self) -> dict[int, str]:
        if self._legacy_refused is None:
            self._legacy_refused = legacy_refusals(self.rounds(), self.event_at)
        return self._legacy_refused

    # -- rounds -----------------------------------------------------------------------

    def rounds(self) -> list[RoundRecord]:
        """Every committed round, in order."""
        with self._lock:
            rows = self._query(f"SELECT {_ROUND_COLUMNS} FROM rounds ORDER BY round_no")
        return [round_from_row(row) for row in rows]

    def round_record(self, round_no: int) -> RoundRecord:
        with self._lock:
            rows = self._query(f"SELECT {_ROUND_COLUMNS} FROM rounds WHERE round_no = ?",
                               (round_no,))
        if not rows:
            raise KeyError(f"round {round_no} is not in the journal")
        return round_from_row(rows[0])

    def round_events(self, round_no: int) -> list[JournalEvent]:
        """The committed events of one recorded round."""
        record = self.round_record(round_no)
        return self._event_rows("WHERE seq BETWEEN ? AND ? ORDER BY seq",
                                (record.start_seq, record.end_seq))

    def open_round_events(self) -> list[JournalEvent]:
        """Committed events after the last recorded round (a round in play)."""
        end = self._round_end(self._last_round)
        return list(self.events(after_seq=end))

    def _round_end(self, round_no: int) -> int:
        if round_no == 0:
            return 0
        with self._lock:
            rows = self._query("SELECT end_seq FROM rounds WHERE round_no = ?", (round_no,))
        return int(rows[0][0])

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as error:
            raise JournalError(
                f"{self.path}: the journal cannot be read ({error}); check the disk"
            ) from error

    # -- life ----------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> JournalReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
