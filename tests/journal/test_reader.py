"""Reading only (the `tablectl journal` commands, the web display): never
writes, never blocks the writer, sees every commit."""

from __future__ import annotations

from pathlib import Path

import pytest

from journal import (
    Journal,
    JournalError,
    JournalReader,
)
from tests.journal.helpers import BET, DEAL, commit_then_exit, files_in

# -- reading only (the `tablectl journal` commands) -------------------------------


def test_read_only_reads_a_closed_journal_and_leaves_the_folder_byte_identical(
        path: Path, tmp_path: Path) -> None:
    with Journal(path, profile="casinos-austria") as journal:
        journal.append(BET, "api")
        journal.append(DEAL, "button")
        journal.record_round(1, {"status": "void", "flags": [], "net": {"box1/main": 0}})
        journal.append(BET, "api")
        journal.commit()
    before = files_in(tmp_path)
    assert sorted(before) == ["journal.sqlite"]  # a clean close leaves no -wal or -shm
    with JournalReader(path) as journal:
        assert journal.read_only and journal.profile == "casinos-austria"
        assert [e.event for e in journal.events()] == [BET, DEAL, BET]
        assert [r.round_no for r in journal.rounds()] == [1]
        assert [e.seq for e in journal.open_round_events()] == [3]
        # A reader has nothing that writes.
        assert not any(hasattr(journal, name) for name in ("append", "record_round", "commit"))
    assert files_in(tmp_path) == before


def test_read_only_beside_a_running_writer_sees_its_commits_and_never_blocks_it(
        path: Path) -> None:
    writer = Journal(path, profile="casinos-austria")
    writer.append(BET, "api")
    writer.append(DEAL, "button")
    writer.commit()
    main_file = path.read_bytes()  # commits sit in the -wal file until a checkpoint
    reader = JournalReader(path)
    assert [e.seq for e in reader.events()] == [1, 2]
    writer.append({"card": "7S"}, "shoe", "1:0")
    writer.record_round(1, {"status": "open", "flags": []})
    assert writer.commit() == 3  # not refused, not kept waiting by the reader
    assert [e.seq for e in reader.events()] == [1, 2, 3]
    assert [r.end_seq for r in reader.rounds()] == [3]
    reader.close()
    assert path.read_bytes() == main_file
    writer.append(BET, "api")
    assert writer.commit() == 4
    writer.close()
    with Journal(path, profile="casinos-austria") as journal:
        assert [e.seq for e in journal.events()] == [1, 2, 3, 4]


def test_read_only_sees_what_a_killed_writer_committed(path: Path) -> None:
    commit_then_exit(path, committed=3)
    assert Path(f"{path}-wal").exists()
    main_file = path.read_bytes()
    with JournalReader(path) as journal:
        assert [e.source_ref for e in journal.events()] == ["1:0", "1:1", "1:2"]
    assert path.read_bytes() == main_file


def test_read_only_refuses_what_is_not_a_journal_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="no journal there"):
        JournalReader(tmp_path / "missing.sqlite")
    (tmp_path / "empty.sqlite").write_bytes(b"")
    with pytest.raises(JournalError, match="is empty, not a tablectl journal"):
        JournalReader(tmp_path / "empty.sqlite")
    (tmp_path / "notes.txt").write_text("not a journal\n" * 20, encoding="utf-8")
    with pytest.raises(JournalError, match="not an SQLite file"):
        JournalReader(tmp_path / "notes.txt")
    (tmp_path / "folder").mkdir()
    with pytest.raises(JournalError, match="is not a file"):
        JournalReader(tmp_path / "folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.sqlite", "folder", "notes.txt"]


