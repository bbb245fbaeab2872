"""A journal written by the previous version (schema 1, built here by SQL as that
code made it) is migrated when opened for writing, in one transaction, and
replays and exports exactly as before; read only it is read as it is."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from journal import Journal, JournalError, JournalReader, export_scenario, migrations
from journal.replay import replay
from journal.salvage import salvage
from table.machine import Table
from table.profiles import load_profile

PROFILE = "casinos-austria"
# Round 1: box 1 bets 100, deal 6S (box 1), 5D (dealer), 5C (box 1): 11. A split is
# refused (6S 5C is no pair); box 1 doubles and draws 9S: 20. The dealer's 5D TC 3H
# is 18: box 1 wins its stake of 200. Round 2 begins with a bet.
EVENTS: list[tuple[dict[str, Any], str, str | None]] = [
    ({"bet": {"box": 1, "amount": 100}}, "api", "t1"),
    ({"deal": {}}, "button", None),
    ({"card": "6S"}, "shoe", "1:0"),
    ({"card": "5D"}, "shoe", "2:1"),
    ({"card": "5C"}, "shoe", "3:2"),
    ({"do": {"box": 1, "action": "split"}}, "button", None),
    ({"do": {"box": 1, "action": "double"}}, "button", None),
    ({"card": "9S"}, "shoe", "4:3"),
    ({"card": "TC"}, "shoe", "5:4"),
    ({"card": "3H"}, "shoe", "6:5"),
]
NEXT_BET = ({"bet": {"box": 1, "amount": 50}}, "api", "t2")
REFUSED_SEQ = 6  # the split

# The schema and meta rows the previous version wrote.
SCHEMA_1 = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE events (seq INTEGER PRIMARY KEY, source TEXT NOT NULL, source_ref TEXT,"
    " event TEXT NOT NULL, UNIQUE (source, source_ref))",
    "CREATE TABLE rounds (round_no INTEGER PRIMARY KEY, start_seq INTEGER NOT NULL,"
    " end_seq INTEGER NOT NULL, status TEXT NOT NULL, flags TEXT NOT NULL,"
    " result TEXT NOT NULL)",
)
EVENT_TIMES_1 = "CREATE TABLE event_times (seq INTEGER PRIMARY KEY, at REAL NOT NULL)"


def round_one_result() -> dict[str, Any]:
    """Round 1's result as the previous daemon recorded it: from its table."""
    table = Table(load_profile(PROFILE))
    for event, _, _ in EVENTS:
        table.apply(event)
    result: dict[str, Any] = table.results()[-1]
    return result


def version_1_journal(path: Path, *, with_times: bool = True) -> dict[str, Any]:
    """A journal as the previous version left it: round 1 recorded, round 2 begun.
    Returns round 1's recorded result."""
    result = round_one_result()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA application_id = 1413630540")  # "TBJL"
    db.execute("PRAGMA user_version = 1")
    for statement in SCHEMA_1 + ((EVENT_TIMES_1,) if with_times else ()):
        db.execute(statement)
    db.executemany("INSERT INTO meta VALUES (?, ?)", [
        ("format", "tablectl-journal"), ("version", "1"), ("rules", "{}"),
        ("profile", PROFILE)])
    for seq, (event, source, ref) in enumerate([*EVENTS, NEXT_BET], start=1):
        db.execute("INSERT INTO events VALUES (?, ?, ?, ?)",
                   (seq, source, ref, json.dumps(event, separators=(",", ":"))))
        if with_times:
            db.execute("INSERT INTO event_times VALUES (?, ?)", (seq, 1_700_000_000.0 + seq))
    db.execute("INSERT INTO rounds VALUES (1, 1, 10, ?, '[]', ?)",
               (result["status"], json.dumps(result, separators=(",", ":"))))
    db.execute("PRAGMA journal_mode = WAL")
    db.close()
    return result


def rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def test_the_fixture_is_what_the_previous_version_recorded() -> None:
    result = round_one_result()
    assert result["status"] == "settled"
    assert result["net"] == {"box1/main": 200}  # a double of 100 won
    assert [entry["position"] for entry in result["refused"]] == [f"event {REFUSED_SEQ}"]


def test_opening_for_writing_migrates_and_keeps_every_row(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    version_1_journal(path)
    events_before = rows(path, "SELECT seq, source, source_ref, event FROM events")
    rounds_before = rows(path, "SELECT * FROM rounds")
    times_before = rows(path, "SELECT * FROM event_times")
    with Journal(path, profile=PROFILE) as journal:
        assert (journal.migrated_from, journal.schema_version) == (1, 2)
        assert [e.seq for e in journal.events() if e.refused is not None] == [REFUSED_SEQ]
        assert journal.append(*NEXT_BET[:2]) == 12  # goes on after seq 11
        journal.discard_pending()
    assert rows(path, "PRAGMA user_version") == [(2,)]
    assert dict(rows(path, "SELECT key, value FROM meta")) == {
        "format": "tablectl-journal", "schema_version": "2", "rules": "{}",
        "profile": PROFILE}
    assert rows(path, "SELECT seq, source, source_ref, event FROM events") == events_before
    assert rows(path, "SELECT * FROM rounds") == rounds_before
    assert rows(path, "SELECT * FROM event_times") == times_before
    reason = round_one_result()["refused"][0]["reason"]
    assert rows(path, "SELECT seq, refused FROM events WHERE refused IS NOT NULL") == [
        (REFUSED_SEQ, reason)]
    with Journal(path, profile=PROFILE) as journal:  # once only
        assert (journal.migrated_from, journal.schema_version) == (None, 2)


def test_a_migrated_journal_replays_and_exports_as_before(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    recorded = version_1_journal(path)
    with JournalReader(path) as old:  # read as it is, not migrated
        assert old.schema_version == 1
        export_before = export_scenario(old)
    with Journal(path, profile=PROFILE) as journal:
        table = Table(load_profile(PROFILE))
        assert replay(journal.events(), table) == 11
        assert table.results()[0] == recorded == journal.rounds()[0].result
        assert table.due().round == 2  # round 2's bet replayed too
        export_after = export_scenario(journal)
    assert export_after == export_before
    [exported] = export_after["rounds"]
    assert exported["expect"]["refused"][0]["position"] == f"round 1, event {REFUSED_SEQ}"
    assert exported["events"] == [event for event, _, _ in EVENTS]


def test_a_journal_from_before_event_times_gets_them(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    version_1_journal(path, with_times=False)
    with JournalReader(path) as old:
        assert old.event_times(1, 11) == {}
    with Journal(path, profile=PROFILE) as journal:
        assert journal.event_times(1, 11) == {}
        journal.append(*NEXT_BET[:2])
        journal.commit()
        assert list(journal.event_times(1, 12)) == [12]


def test_a_failed_migration_changes_nothing(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "journal.sqlite"
    version_1_journal(path)
    contents = [rows(path, sql) for sql in (
        "SELECT * FROM events", "SELECT * FROM meta", "PRAGMA user_version")]
    step = migrations.STEPS[1]

    def step_then_fail(db: sqlite3.Connection) -> None:
        step(db)  # the whole step has run when the failure comes
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setitem(migrations.STEPS, 1, step_then_fail)
    with pytest.raises(JournalError, match="version 1 could not be brought to version 2 "
                                           r"\(disk I/O error\); it was left as it was"):
        Journal(path, profile=PROFILE)
    assert [rows(path, sql) for sql in (
        "SELECT * FROM events", "SELECT * FROM meta", "PRAGMA user_version")] == contents
    monkeypatch.setitem(migrations.STEPS, 1, step)
    with Journal(path, profile=PROFILE) as journal:  # and it migrates once it can
        assert journal.schema_version == 2


def test_salvage_of_a_version_1_journal_writes_a_current_one(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    version_1_journal(path)
    copy = tmp_path / "copy.sqlite"
    report = salvage(path, copy)
    assert report.intact and report.events_read == 11
    with JournalReader(copy) as journal:
        assert journal.schema_version == 2
        assert [e.seq for e in journal.events() if e.refused is not None] == [REFUSED_SEQ]
    with JournalReader(path) as original, JournalReader(copy) as copied:
        assert export_scenario(original)["rounds"] == export_scenario(copied)["rounds"]
