"""The floor's own SQLite file: every table's events and rounds, each stored once.

Keyed by (table, seq) and (table, round): a message received again is ignored, and
one that differs from what is stored is refused and named (nothing is overwritten).
Each table id is bound to the origin (journal) it was first seen with; another
origin under the same id is a second table given the same id, refused and named.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from tablectl.mqtt.topics import EventMessage, RoundMessage

FORMAT_NAME = "tablectl-floor"
FORMAT_VERSION = 1
APPLICATION_ID = 0x5442464C  # "TBFL"

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS tables (table_id TEXT PRIMARY KEY, origin TEXT NOT NULL,"
    " first_seen REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS events (table_id TEXT NOT NULL, seq INTEGER NOT NULL,"
    " source TEXT NOT NULL, source_ref TEXT, event TEXT NOT NULL, at REAL,"
    " received REAL NOT NULL, PRIMARY KEY (table_id, seq)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS rounds (table_id TEXT NOT NULL, round_no INTEGER NOT NULL,"
    " start_seq INTEGER NOT NULL, end_seq INTEGER NOT NULL, status TEXT NOT NULL,"
    " flags TEXT NOT NULL, net TEXT NOT NULL, house INTEGER NOT NULL,"
    " staked INTEGER NOT NULL, at REAL, received REAL NOT NULL,"
    " PRIMARY KEY (table_id, round_no)) WITHOUT ROWID",
)


class FloorStoreError(Exception):
    """The file cannot be used as the floor's store; the message says why."""


@dataclass
class Added:
    """What one batch did: the new events and rounds (table, number), and why any
    message was refused."""

    events: list[tuple[str, int]] = field(default_factory=list)
    rounds: list[tuple[str, int]] = field(default_factory=list)
    duplicates: int = 0
    refused: list[tuple[str, str]] = field(default_factory=list)  # (table, why)


class FloorStore:
    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only
        exists = self.path.exists() and self.path.stat().st_size > 0
        if read_only and not exists:
            raise FloorStoreError(f"{self.path}: no floor store there; give the file "
                                  "`tablectl floor --store` writes")
        if not exists and not self.path.parent.is_dir():
            raise FloorStoreError(f"{self.path}: the folder {self.path.parent} does not exist")
        if exists:
            _check_header(self.path)
        try:
            if read_only:
                uri = f"{self.path.resolve().as_uri()}?mode=ro"
                self.db = sqlite3.connect(uri, uri=True, timeout=5.0, isolation_level=None,
                                          check_same_thread=False)
            else:
                self.db = sqlite3.connect(self.path, timeout=5.0, isolation_level=None,
                                          check_same_thread=False)
                if not exists:
                    self.db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                self.db.execute("PRAGMA journal_mode = WAL")
                # The floor's copy: a power cut may lose the newest commits, which the
                # floor finds missing and asks the tables for again.
                self.db.execute("PRAGMA synchronous = NORMAL")
                for statement in _SCHEMA:
                    self.db.execute(statement)
                self.db.execute("INSERT OR IGNORE INTO meta VALUES ('format', ?)", (FORMAT_NAME,))
                self.db.execute("INSERT OR IGNORE INTO meta VALUES ('version', ?)",
                                (str(FORMAT_VERSION),))
            meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.Error as error:
            raise FloorStoreError(f"{self.path}: cannot use it as the floor's store "
                                  f"({error})") from error
        if meta.get("format") != FORMAT_NAME:
            raise FloorStoreError(f"{self.path} is not a floor store")
        if int(meta.get("version", "0")) > FORMAT_VERSION:
            raise FloorStoreError(f"{self.path} was written by a newer tablectl; update it")
        self.origins: dict[str, str] = dict(
            self.db.execute("SELECT table_id, origin FROM tables").fetchall())

    # -- writing (one thread) ---------------------------------------------------------

    def add(self, messages: list[EventMessage | RoundMessage], now: float | None = None
            ) -> Added:
        """Store a batch in one transaction."""
        received = time.time() if now is None else now
        added = Added()
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            for message in messages:
                origin = self.origins.get(message.table)
                if origin is None:  # first seen here (or by another floor process)
                    db.execute("INSERT OR IGNORE INTO tables VALUES (?, ?, ?)",
                               (message.table, message.origin, received))
                    (origin,) = db.execute("SELECT origin FROM tables WHERE table_id = ?",
                                           (message.table,)).fetchone()
                    self.origins[message.table] = origin
                if origin != message.origin:
                    added.refused.append(
                        (message.table, _collision(message.table, origin, message.origin)))
                    continue
                if isinstance(message, EventMessage):
                    self._add_event(message, received, added)
                else:
                    self._add_round(message, received, added)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return added

    def _add_event(self, message: EventMessage, received: float, added: Added) -> None:
        text = message.event_text
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?, ?, ?)",
            (message.table, message.seq, message.source, message.source_ref, text,
             message.at, received))
        if cursor.rowcount == 1:
            added.events.append((message.table, message.seq))
            return
        row = self.db.execute(
            "SELECT source, source_ref, event FROM events WHERE table_id = ? AND seq = ?",
            (message.table, message.seq)).fetchone()
        if tuple(row) == (message.source, message.source_ref, text):
            added.duplicates += 1
        else:
            added.refused.append((message.table, (
                f"table {message.table}: event {message.seq} differs from the one stored; "
                "the stored one is kept")))

    def _add_round(self, message: RoundMessage, received: float, added: Added) -> None:
        net = json.dumps(message.net, sort_keys=True, separators=(",", ":"))
        flags = json.dumps(list(message.flags), separators=(",", ":"))
        values = (message.start_seq, message.end_seq, message.status, flags, net,
                  message.house, message.staked)
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO rounds VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (message.table, message.round, *values, message.at, received))
        if cursor.rowcount == 1:
            added.rounds.append((message.table, message.round))
            return
        row = self.db.execute(
            "SELECT start_seq, end_seq, status, flags, net, house, staked FROM rounds "
            "WHERE table_id = ? AND round_no = ?", (message.table, message.round)).fetchone()
        if tuple(row) == values:
            added.duplicates += 1
        else:
            added.refused.append((message.table, (
                f"table {message.table}: round {message.round} differs from the one stored; "
                "the stored one is kept")))

    # -- reading ----------------------------------------------------------------------

    def numbers(self, table: str, kind: str) -> tuple[int, list[int]]:
        """(n, above): numbers 1..n are all stored, `above` the ones stored past a gap."""
        name, column = ("events", "seq") if kind == "events" else ("rounds", "round_no")
        count, top = self.db.execute(
            f"SELECT COUNT(*), COALESCE(MAX({column}), 0) FROM {name} WHERE table_id = ?",
            (table,)).fetchone()
        if count == top:
            return int(top), []
        row = self.db.execute(
            f"SELECT MIN(a.{column}) FROM {name} a WHERE a.table_id = ? AND NOT EXISTS "
            f"(SELECT 1 FROM {name} b WHERE b.table_id = a.table_id AND "
            f"b.{column} = a.{column} + 1)", (table,)).fetchone()
        first_missing = int(row[0]) + 1 if row[0] is not None else 1
        one = self.db.execute(f"SELECT 1 FROM {name} WHERE table_id = ? AND {column} = 1",
                              (table,)).fetchone()
        contiguous = first_missing - 1 if one else 0
        above = [int(n) for (n,) in self.db.execute(
            f"SELECT {column} FROM {name} WHERE table_id = ? AND {column} > ? "
            f"ORDER BY {column}", (table, contiguous))]
        return contiguous, above

    def numbers_after(self, table: str, kind: str, after: int, limit: int = 100_000
                      ) -> list[int]:
        """The numbers stored above `after` (by any floor process on this store)."""
        name, column = ("events", "seq") if kind == "events" else ("rounds", "round_no")
        return [int(n) for (n,) in self.db.execute(
            f"SELECT {column} FROM {name} WHERE table_id = ? AND {column} > ? "
            f"ORDER BY {column} LIMIT ?", (table, after, limit))]

    def tables(self) -> list[str]:
        return sorted(self.origins) if not self.read_only else [
            str(t) for (t,) in self.db.execute("SELECT table_id FROM tables ORDER BY table_id")]

    def house_since(self, since: float) -> dict[str, tuple[int, int]]:
        """Per table: (house net, rounds) of the rounds played since `since`."""
        rows = self.db.execute(
            "SELECT table_id, SUM(house), COUNT(*) FROM rounds "
            "WHERE COALESCE(at, received) >= ? GROUP BY table_id", (since,)).fetchall()
        return {str(t): (int(h), int(n)) for t, h, n in rows}

    def close(self) -> None:
        self.db.close()


def _collision(table: str, bound: str, other: str) -> str:
    return (f"table id {table!r} is used by two tables (journal {bound[:8]} was first, "
            f"journal {other[:8]} now): its messages are not stored; give each table "
            "its own --table id")


def _check_header(path: Path) -> None:
    try:
        with open(path, "rb") as file:
            header = file.read(100)
    except OSError as error:
        raise FloorStoreError(f"{path}: cannot read it ({error.strerror})") from error
    if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
        raise FloorStoreError(f"{path} is not a floor store (not an SQLite file)")
    if int.from_bytes(header[68:72], "big") != APPLICATION_ID:
        raise FloorStoreError(f"{path} is an SQLite file of another kind (a journal?), "
                              "not a floor store; give another --store file")
