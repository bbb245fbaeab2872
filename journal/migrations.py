"""Bringing an older journal up to the current schema, whole or not at all.

`migrate(db, path)` runs every step from the file's version to
`SCHEMA_VERSION` in one transaction, then records the new version (meta and
`PRAGMA user_version`); if any step fails nothing is changed. Steps never drop
what the file holds: events, rounds and their results stay byte for byte.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from journal.errors import JournalError
from journal.records import RoundRecord, round_from_row
from journal.schema import EVENT_TIMES, OLD_VERSION_KEY, SCHEMA_VERSION, VERSION_KEY

# Version 1 knew where a refusal happened only from the table's position text.
_TABLE_POSITION = re.compile(r"^event (\d+)$")


def legacy_refusals(rounds: Iterable[RoundRecord],
                    event_at: Callable[[int], Mapping[str, Any] | None]) -> dict[int, str]:
    """The refused events of a version 1 journal, seq -> reason. Its results place a
    refusal at `event N`, the table's count of events, which is the journal's seq
    when the daemon fed the table every journal event; taken only when the event
    stored at N lies in that round and is of the refused kind."""
    refused: dict[int, str] = {}
    for record in rounds:
        for entry in record.result.get("refused") or []:
            if not isinstance(entry, dict) or not isinstance(entry.get("event"), dict):
                continue
            match = _TABLE_POSITION.match(str(entry.get("position", "")))
            if match is None:
                continue
            seq = int(match.group(1))
            if not record.start_seq <= seq <= record.end_seq:
                continue
            stored = event_at(seq)
            if stored is not None and set(stored) == set(entry["event"]):
                refused[seq] = str(entry.get("reason", ""))
    return refused


def _from_1(db: sqlite3.Connection) -> None:
    db.execute("ALTER TABLE events ADD COLUMN refused TEXT")
    db.execute(EVENT_TIMES)
    rounds = [round_from_row(row) for row in db.execute(
        "SELECT round_no, status, start_seq, end_seq, flags, result FROM rounds "
        "ORDER BY round_no")]

    def event_at(seq: int) -> dict[str, Any] | None:
        row = db.execute("SELECT event FROM events WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    db.executemany("UPDATE events SET refused = ? WHERE seq = ?",
                   [(reason, seq) for seq, reason in legacy_refusals(rounds, event_at).items()])
    db.execute("DELETE FROM meta WHERE key = ?", (OLD_VERSION_KEY,))


# Step N brings a journal of version N to version N + 1.
STEPS: dict[int, Callable[[sqlite3.Connection], None]] = {1: _from_1}


def migrate(db: sqlite3.Connection, path: Path, version: int) -> bool:
    """Bring the journal open on `db` (autocommit mode) from `version` to the
    current one; False when it is current already."""
    if version >= SCHEMA_VERSION:
        return False
    try:
        db.execute("BEGIN IMMEDIATE")
        for step in range(version, SCHEMA_VERSION):
            STEPS[step](db)
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                   (VERSION_KEY, str(SCHEMA_VERSION)))
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except sqlite3.Error as error:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise JournalError(
            f"{path}: the journal of version {version} could not be brought to version "
            f"{SCHEMA_VERSION} ({error}); it was left as it was. Check the disk and start "
            "again"
        ) from error
    return True
