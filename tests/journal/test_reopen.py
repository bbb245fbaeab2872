"""A journal reopens after any kill while its data is intact: commits a killed
writer left in the WAL count (even with a torn main-file page), a creation
killed halfway leaves nothing that blocks a start, and a really damaged journal
is refused with what to do, checked and salvaged row by row."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from journal import Journal, JournalDamaged
from journal.salvage import inspect, salvage
from tests.journal.helpers import WRITE_AND_DIE, damaged_journal, run_killed

PROFILE = "casinos-austria"


def test_commits_in_the_wal_of_a_killed_writer_reopen_despite_a_torn_first_page(
        tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    run_killed(WRITE_AND_DIE, str(path))
    assert Path(f"{path}-wal").stat().st_size > 0  # the commits are in the WAL only
    # A checkpoint killed while writing the first page: the main file's page is torn,
    # the WAL holds its good copy.
    with path.open("r+b") as file:
        file.seek(100)
        file.write(b"\0" * 3996)
    with Journal(path, profile=PROFILE) as journal:
        assert journal.last_committed_seq == 2000
        events = list(journal.events())
    assert [e.event["note"] for e in events] == [f"marker-{i:05d}" for i in range(1, 2001)]


CREATE_AND_DIE = """
import os, signal, sys
os.replace = lambda *args: os.kill(os.getpid(), signal.SIGKILL)
from journal import Journal
Journal(sys.argv[1], profile="casinos-austria")
"""


def test_a_creation_killed_before_it_is_complete_is_invisible_and_swept(
        tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    run_killed(CREATE_AND_DIE, str(path))
    assert not path.exists()  # killed before the rename: no half-made journal
    assert [p.name for p in tmp_path.iterdir()][0].startswith(".journal.sqlite.new-")
    with Journal(path, profile=PROFILE) as journal:
        journal.append({"deal": {}}, "button")
        journal.commit()
    with Journal(path, profile=PROFILE) as journal:
        assert journal.last_committed_seq == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal.sqlite"]


def test_a_damaged_journal_is_refused_checked_and_salvaged(tmp_path: Path) -> None:
    path, _ = damaged_journal(tmp_path)
    before = path.read_bytes()
    with pytest.raises(JournalDamaged) as refused:
        Journal(path, profile=PROFILE)
    assert "journal salvage" in str(refused.value)
    report = inspect(path)
    assert not report.intact and report.problems
    lost = {seq for first, last in report.events_unreadable for seq in range(first, last + 1)}
    assert 1000 in lost and 1 not in lost and 2000 not in lost
    assert report.events_read + len(lost) == 2000
    assert report.last_seq == 2000

    copy = tmp_path / "salvaged.sqlite"
    salvaged = salvage(path, copy)
    assert salvaged.events_read == report.events_read
    assert path.read_bytes() == before  # the damaged journal is only read
    with Journal(copy, profile=PROFILE) as journal:
        kept = {e.seq: e.event["note"] for e in journal.events()}
        # The copy goes on where the original ended.
        assert journal.append({"deal": {}}, "button") == 2001
    assert set(kept) == set(range(1, 2001)) - lost
    assert all(note == f"marker-{seq:05d}" for seq, note in kept.items())
    assert inspect(copy).problems == []  # SQLite finds the copy whole


def test_salvage_refuses_to_overwrite(tmp_path: Path) -> None:
    path, _ = damaged_journal(tmp_path)
    other = tmp_path / "other.sqlite"
    other.write_bytes(b"keep me")
    with pytest.raises(Exception, match="already exists"):
        salvage(path, other)
    assert other.read_bytes() == b"keep me"
    assert os.path.exists(path)
