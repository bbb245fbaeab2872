"""The daemon started on a journal of the previous schema version (1) migrates it
and goes on with the round it holds, as after any restart."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from journal import JournalReader
from tests.tablectl.test_daemon import (
    BJ,
    EXPECTED_NET,
    LOST,
    OFF,
    STACK,
    WON,
    Bench,
    place_bets_and_deal,
)


@pytest.fixture
def bench(tmp_path: Path) -> Iterator[Bench]:
    made = Bench(tmp_path)
    try:
        yield made
    finally:
        made.shutdown()


def as_version_1(path: Path) -> None:
    """Turn a journal back into what the previous version wrote: no `refused`
    column, its version in meta's `version` and in the header."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("ALTER TABLE events DROP COLUMN refused")
        db.execute("DELETE FROM meta WHERE key = 'schema_version'")
        db.execute("INSERT INTO meta (key, value) VALUES ('version', '1')")
        db.execute("PRAGMA user_version = 1")
    finally:
        db.close()


def test_a_journal_of_the_previous_version_is_migrated_and_the_round_goes_on(
        bench: Bench) -> None:
    bench.start_shoe(STACK)
    first = bench.open()
    assert first.cards.wait_delivered(15.0)
    place_bets_and_deal(first)
    first.click("double")
    first.draw("9C")  # box 3 is up
    due_before = first.service.table.due()
    seq_before = first.service.journal.last_committed_seq
    bench.close(first)
    as_version_1(bench.journal_path)
    with JournalReader(bench.journal_path) as old:
        assert old.schema_version == 1

    second = bench.open()
    report = second.daemon.report
    assert report is not None and report.events_replayed == seq_before
    assert second.service.journal.schema_version == 2
    assert second.service.table.due() == due_before
    second.draw("8D", "TD")
    result = second.service.table.current_result()
    assert result is not None and result["net"] == EXPECTED_NET
    assert second.boxes() == [WON, BJ, LOST, OFF, OFF, OFF, OFF]
    bench.check_every_frame_stored_once_and_acked_after()
