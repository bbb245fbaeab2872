"""The journal read as an outbox: committed events and rounds by number, with
the time each was appended, for a publisher that forwards them (`tablectl.mqtt`).

It reads on a read-only connection of its own (through the WAL, so it sees each
commit and never holds the writer back); how far the receiver has acknowledged
is the publisher's to keep.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class OutboxError(Exception):
    """The journal cannot be read as an outbox; the message says why."""


@dataclass(frozen=True)
class OutEvent:
    seq: int
    source: str
    source_ref: str | None
    event: str  # the journal's JSON text
    at: float | None


@dataclass(frozen=True)
class OutRound:
    round_no: int
    start_seq: int
    end_seq: int
    status: str
    flags: list[str]
    result: dict[str, Any]
    at: float | None


class OutboxReader:
    """Reads a journal's committed events and rounds by number (one reader thread)."""

    def __init__(self, journal: str | Path) -> None:
        self.path = Path(journal)
        if not self.path.is_file():
            raise OutboxError(f"{self.path}: no journal there to publish")
        uri = f"{self.path.resolve().as_uri()}?mode=ro"
        try:
            self._db = sqlite3.connect(uri, uri=True, timeout=5.0, isolation_level=None,
                                       check_same_thread=False)
            self._db.execute("PRAGMA query_only = 1")
            row = self._db.execute("SELECT value FROM meta WHERE key = 'profile'").fetchone()
        except sqlite3.Error as error:
            raise OutboxError(f"{self.path}: cannot read the journal ({error})") from error
        self.profile: str | None = str(row[0]) if row else None

    def events_after(self, seq: int, limit: int, upto: int | None = None) -> list[OutEvent]:
        rows = self._db.execute(
            "SELECT e.seq, e.source, e.source_ref, e.event, t.at FROM events e "
            "LEFT JOIN event_times t ON t.seq = e.seq WHERE e.seq > ? AND e.seq <= ? "
            "ORDER BY e.seq LIMIT ?",
            (seq, upto if upto is not None else 2**62, limit)).fetchall()
        return [OutEvent(int(s), str(src), None if ref is None else str(ref), str(text),
                         None if at is None else float(at))
                for s, src, ref, text, at in rows]

    def rounds_after(self, round_no: int, limit: int, upto_seq: int,
                     upto_round: int | None = None) -> list[OutRound]:
        """Recorded rounds after `round_no` whose events are all at or below `upto_seq`."""
        rows = self._db.execute(
            "SELECT r.round_no, r.start_seq, r.end_seq, r.status, r.flags, r.result, t.at "
            "FROM rounds r LEFT JOIN event_times t ON t.seq = r.end_seq "
            "WHERE r.round_no > ? AND r.round_no <= ? AND r.end_seq <= ? "
            "ORDER BY r.round_no LIMIT ?",
            (round_no, upto_round if upto_round is not None else 2**62, upto_seq,
             limit)).fetchall()
        return [OutRound(int(n), int(a), int(b), str(status), list(json.loads(flags)),
                         dict(json.loads(result)), None if at is None else float(at))
                for n, a, b, status, flags, result, at in rows]

    def origin(self) -> str | None:
        """The journal's id on the floor, None while it has no event. Made from its
        first event and the moment it was appended, so a lost mark file gives the
        same id again; a journal from before appends were timed gets a random one
        (kept in the mark)."""
        row = self._db.execute(
            "SELECT e.source, e.source_ref, e.event, t.at FROM events e "
            "LEFT JOIN event_times t ON t.seq = e.seq WHERE e.seq = 1").fetchone()
        if row is None:
            return None
        source, ref, event, at = row
        if at is None:
            return uuid.uuid4().hex
        key = json.dumps([repr(float(at)), source, ref, event])
        return hashlib.sha256(key.encode()).hexdigest()[:32]

    def last_seq(self) -> int:
        return int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])

    def last_round(self) -> int:
        row = self._db.execute("SELECT COALESCE(MAX(round_no), 0) FROM rounds").fetchone()
        return int(row[0])

    def close(self) -> None:
        self._db.close()
