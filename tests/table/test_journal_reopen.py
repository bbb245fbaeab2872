"""A journal reopens after any kill while its data is intact: commits a killed
writer left in the WAL count (even with a torn main-file page), a creation
killed halfway leaves nothing that blocks a start, and a really damaged journal
is refused with what to do, checked and salvaged row by row."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from table.journal import Journal, JournalDamaged
from table.journal_salvage import inspect, salvage

REPO = Path(__file__).resolve().parents[2]
PROFILE = "casinos-austria"


def _run_killed(code: str, *args: str) -> None:
    """Run `code` in a fresh interpreter; it must end by SIGKILLing itself."""
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, timeout=60,
                          capture_output=True, text=True)
    assert done.returncode == -signal.SIGKILL, done.stderr


WRITE_AND_DIE = """
import os, signal, sys
from table.journal import Journal
journal = Journal(sys.argv[1], profile="casinos-austria")
for i in range(1, 2001):
    journal.append({"note": f"marker-{i:05d}"}, "shoe", f"1:{i}")
    if i % 50 == 0:
        journal.commit()
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_commits_in_the_wal_of_a_killed_writer_reopen_despite_a_torn_first_page(
        tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    _run_killed(WRITE_AND_DIE, str(path))
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
from table.journal import Journal
Journal(sys.argv[1], profile="casinos-austria")
"""


def test_a_creation_killed_before_it_is_complete_is_invisible_and_swept(
        tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    _run_killed(CREATE_AND_DIE, str(path))
    assert not path.exists()  # killed before the rename: no half-made journal
    assert [p.name for p in tmp_path.iterdir()][0].startswith(".journal.sqlite.new-")
    with Journal(path, profile=PROFILE) as journal:
        journal.append({"deal": {}}, "button")
        journal.commit()
    with Journal(path, profile=PROFILE) as journal:
        assert journal.last_committed_seq == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal.sqlite"]


def _damaged_journal(tmp_path: Path) -> tuple[Path, int]:
    """A checkpointed journal of 2,000 events with the page holding event 1000
    overwritten; returns its path and how many pages it has."""
    path = tmp_path / "journal.sqlite"
    _run_killed(WRITE_AND_DIE, str(path))
    Journal(path).close()  # a clean close folds the WAL into the file
    assert not Path(f"{path}-wal").exists()
    data = bytearray(path.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    at = data.index(b"marker-01000")
    page = at // page_size
    data[page * page_size:(page + 1) * page_size] = b"\xa5" * page_size
    path.write_bytes(bytes(data))
    return path, len(data) // page_size


def test_a_damaged_journal_is_refused_checked_and_salvaged(tmp_path: Path) -> None:
    path, _ = _damaged_journal(tmp_path)
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
    path, _ = _damaged_journal(tmp_path)
    other = tmp_path / "other.sqlite"
    other.write_bytes(b"keep me")
    with pytest.raises(Exception, match="already exists"):
        salvage(path, other)
    assert other.read_bytes() == b"keep me"
    assert os.path.exists(path)
