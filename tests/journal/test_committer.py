"""Group commit: by count, by age, and a failed batch kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from journal import (
    GroupCommitter,
    Journal,
    JournalFullError,
)

# -- group commit ------------------------------------------------------------------


def test_group_committer_commits_on_size_and_on_age(path: Path) -> None:
    committed: list[list[int]] = []
    with Journal(path) as journal:
        group = GroupCommitter(journal, max_events=3, max_age_ms=5, on_commit=committed.append)
        group.append({"card": "2C"}, "sim", now=10.000)
        group.append({"card": "3C"}, "sim", now=10.001)
        assert committed == [] and journal.last_committed_seq == 0
        group.append({"card": "4C"}, "sim", now=10.002)  # third event: the batch is full
        assert committed == [[1, 2, 3]] and journal.last_committed_seq == 3
        group.append({"card": "5C"}, "sim", now=20.000)
        assert group.poll(20.004) == [] and group.waiting == 1
        assert group.poll(20.005) == [4]  # 5 ms old
        assert committed == [[1, 2, 3], [4]]
        assert group.flush() == [] and group.poll(99.0) == []


def test_group_committer_keeps_a_failed_batch(path: Path) -> None:
    committed: list[list[int]] = []
    journal = Journal(path)
    group = GroupCommitter(journal, max_events=100, max_age_ms=0, on_commit=committed.append)
    journal.max_pages = journal._db.execute("PRAGMA page_count").fetchone()[0] + 1
    for i in range(5):
        group.append({"bet": {"box": 1, "amount": 1, "player": "p" * 4000}}, "api", i, now=1.0)
    with pytest.raises(JournalFullError):
        group.poll(1.0)
    assert committed == [] and group.waiting == 5
    journal.max_pages = 1_000_000
    assert group.poll(2.0) == [1, 2, 3, 4, 5] and committed == [[1, 2, 3, 4, 5]]
    journal.close()


