"""The journal read as an outbox: what is committed, by number, with its time."""

from __future__ import annotations

from pathlib import Path

import pytest

from journal import Journal
from journal.outbox import OutboxError, OutboxReader
from tests.journal.helpers import BET, DEAL


def test_the_outbox_reads_committed_events_and_whole_rounds_by_number(path: Path) -> None:
    with Journal(path, profile="casinos-austria") as journal:
        journal.append(BET, "api", "t1")
        journal.append(DEAL, "button")
        journal.record_round(1, {"round": 1, "status": "void", "flags": ["X"]})
        journal.append(BET, "api")
        journal.commit()
        journal.append(DEAL, "button")  # pending: not in the outbox
        outbox = OutboxReader(path)
        try:
            assert outbox.profile == "casinos-austria"
            events = outbox.events_after(0, limit=10)
            assert [(e.seq, e.source, e.source_ref, e.event) for e in events] == [
                (1, "api", "t1", '{"bet":{"box":1,"amount":100}}'),
                (2, "button", None, '{"deal":{}}'),
                (3, "api", None, '{"bet":{"box":1,"amount":100}}')]
            assert all(e.at is not None for e in events)
            assert [e.seq for e in outbox.events_after(1, limit=1)] == [2]
            assert [e.seq for e in outbox.events_after(0, limit=10, upto=2)] == [1, 2]
            # A round goes out only once its last event has.
            assert outbox.rounds_after(0, limit=10, upto_seq=1) == []
            [record] = outbox.rounds_after(0, limit=10, upto_seq=2)
            assert (record.round_no, record.start_seq, record.end_seq, record.flags) == (
                1, 1, 2, ["X"])
            assert (outbox.last_seq(), outbox.last_round()) == (3, 1)
            origin = outbox.origin()
        finally:
            outbox.close()
    reopened = OutboxReader(path)
    try:
        assert origin is not None and reopened.origin() == origin  # the same id again
    finally:
        reopened.close()


def test_no_journal_is_no_outbox(tmp_path: Path) -> None:
    with pytest.raises(OutboxError, match="no journal there to publish"):
        OutboxReader(tmp_path / "missing.sqlite")
