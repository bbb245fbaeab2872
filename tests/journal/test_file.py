"""Files that are not a journal of ours, or not whole, are refused and left
byte-identical."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from journal import (
    SCHEMA_VERSION,
    Journal,
    JournalError,
)
from tests.journal.helpers import files_in

# -- files that are not our journal ------------------------------------------------


def test_a_text_file_is_refused_and_left_byte_identical(tmp_path: Path) -> None:
    target = tmp_path / "notes.sqlite"
    target.write_text("the pit boss's notes\n" * 20, encoding="utf-8")
    before = files_in(tmp_path)
    with pytest.raises(JournalError, match="not an SQLite file.*left untouched"):
        Journal(target)
    assert files_in(tmp_path) == before


def test_another_applications_sqlite_file_is_refused_untouched(tmp_path: Path) -> None:
    target = tmp_path / "other.sqlite"
    db = sqlite3.connect(target)
    db.execute("CREATE TABLE customers (name TEXT)")
    db.execute("INSERT INTO customers VALUES ('anna')")
    db.commit()
    db.close()
    before = files_in(tmp_path)
    with pytest.raises(JournalError, match="another application.*left untouched"):
        Journal(target)
    assert files_in(tmp_path) == before


def test_a_damaged_journal_is_refused_untouched(path: Path, tmp_path: Path) -> None:
    with Journal(path) as journal:
        for i in range(300):
            journal.append({"card": "QH"}, "shoe", f"1:{i}")
        journal.commit()
    sqlite3.connect(path).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    for sidecar in (Path(f"{path}-wal"), Path(f"{path}-shm")):
        sidecar.unlink(missing_ok=True)
    data = bytearray(path.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    data[page_size:] = b"\xa5" * (len(data) - page_size)  # keep only the header page
    path.write_bytes(bytes(data))
    before = files_in(tmp_path)
    with pytest.raises(JournalError, match="is damaged: .*left as it is") as refused:
        Journal(path)
    assert files_in(tmp_path) == before
    message = str(refused.value)
    assert str(path) in message
    assert "tablectl journal check" in message and "tablectl journal salvage" in message
    assert "start a new" not in message  # never advise abandoning the audit trail


def test_a_journal_from_a_newer_version_is_refused_untouched(path: Path, tmp_path: Path) -> None:
    Journal(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = DELETE")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    before = files_in(tmp_path)
    newer = f"schema version {SCHEMA_VERSION + 1}, newer .* Update tablectl"
    with pytest.raises(JournalError, match=newer):
        Journal(path)
    assert files_in(tmp_path) == before


def test_another_profile_is_refused(path: Path) -> None:
    Journal(path, profile="st-moritz").close()
    with pytest.raises(JournalError, match="written under profile 'st-moritz'.*new journal"):
        Journal(path, profile="casinos-austria")
    Journal(path, profile="st-moritz").close()


def test_opening_without_create_needs_an_existing_journal(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="no journal there"):
        Journal(tmp_path / "missing.sqlite", create=False)
    with pytest.raises(JournalError, match="does not exist"):
        Journal(tmp_path / "no-folder" / "j.sqlite")
    assert list(tmp_path.iterdir()) == []


