"""The journal's writer on real SQLite files: durability of commits, shoe frames
sent again, a real SQLITE_FULL, rounds, a second writer, sealed batches."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from journal import (
    APPLICATION_ID,
    AlreadyStored,
    Journal,
    JournalError,
    JournalFullError,
    JournalReader,
)
from tests.journal.helpers import BET, DEAL, commit_then_exit

# -- durability --------------------------------------------------------------


def test_committed_events_survive_a_reopen_exactly(path: Path) -> None:
    with Journal(path, profile="casinos-austria") as journal:
        assert journal.append(BET, "api") == 1
        assert journal.append(DEAL, "button") == 2
        assert journal.append({"card": "7S"}, "shoe", "17:0") == 3
        assert journal.last_committed_seq == 0
        assert journal.commit() == 3
        assert journal.pending_count == 0
    with Journal(path) as journal:
        stored = [(e.seq, e.source, e.source_ref, e.event) for e in journal.events()]
        assert stored == [
            (1, "api", None, BET),
            (2, "button", None, DEAL),
            (3, "shoe", "17:0", {"card": "7S"}),
        ]
        assert [e.seq for e in journal.events(after_seq=2)] == [3]
        assert journal.profile == "casinos-austria"


def test_uncommitted_events_are_lost_and_seqs_continue(path: Path) -> None:
    with Journal(path) as journal:
        journal.append(BET, "api")
        journal.commit()
        assert journal.append(DEAL, "button") == 2
    with Journal(path) as journal:
        assert [e.event for e in journal.events()] == [BET]
        assert journal.append({"card": "9H"}, "shoe", "1:0") == 2
        assert not journal.has_source_ref("button", "x")


def test_a_killed_process_keeps_what_it_committed(path: Path) -> None:
    # The writer dies without closing: committed events sit in the WAL file.
    commit_then_exit(path, committed=5, pending=1)
    assert Path(f"{path}-wal").exists()
    with Journal(path, profile="casinos-austria") as journal:
        assert [e.source_ref for e in journal.events()] == [f"1:{i}" for i in range(5)]
        assert journal.has_source_ref("shoe", "1:4") and not journal.has_source_ref("shoe", "1:5")


def test_pragmas_for_durability(path: Path) -> None:
    with Journal(path) as journal:
        journal.append(BET, "api")
        journal.commit()
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert db.execute("PRAGMA application_id").fetchone() == (APPLICATION_ID,)
        assert db.execute("PRAGMA user_version").fetchone() == (2,)  # schema version 2
        db.close()
        assert journal._db.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL
        assert journal._db.execute("PRAGMA busy_timeout").fetchone()[0] > 0


# -- shoe frames sent again ------------------------------------------------------


def test_a_resent_shoe_frame_is_recognised_as_already_stored(path: Path) -> None:
    with Journal(path) as journal:
        seq = journal.append({"card": "7S"}, "shoe", "4:2")
        with pytest.raises(AlreadyStored, match="already stored as seq 1") as caught:
            journal.append({"card": "7S"}, "shoe", "4:2")  # pending counts too
        assert caught.value.seq == seq
        journal.commit()
        # The same reference from another source is another event.
        assert journal.append({"card": "7S"}, "camera", "4:2") == 2
        journal.commit()
    with Journal(path) as journal:
        assert journal.has_source_ref("shoe", "4:2")
        assert journal.seq_of_source_ref("shoe", "4:2") == 1
        with pytest.raises(AlreadyStored):
            journal.append({"card": "7S"}, "shoe", "4:2")
        assert journal.pending_count == 0


def test_a_new_reference_is_told_apart_without_asking_the_database(path: Path) -> None:
    with Journal(path) as journal:
        for n in range(1, 201):
            journal.append({"card": "7S"}, "shoe", f"1:{n}")
        journal.commit()
    with Journal(path) as journal:  # the stored references are known after a reopen
        statements: list[str] = []
        journal._db.set_trace_callback(statements.append)
        for n in range(201, 401):
            assert journal.seq_of_source_ref("shoe", f"1:{n}") is None
        # 200 new references: at 2 bits of 16 million each, all but a stray few are
        # answered in memory.
        assert len(statements) <= 2
        # A stored one is always found (in the database).
        assert journal.seq_of_source_ref("shoe", "1:57") == 57
        assert any("source_ref" in statement for statement in statements)
        with pytest.raises(AlreadyStored):
            journal.append({"card": "7S"}, "shoe", "1:200")


def test_bad_events_are_refused_and_nothing_is_pending(path: Path) -> None:
    with Journal(path) as journal:
        for bad in ({"card": "7S", "deal": {}}, {}, ["card", "7S"], {"bet": {"amount": 1e999}}):
            with pytest.raises(ValueError, match="event"):
                journal.append(bad, "api")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="source must be a non-empty name"):
            journal.append(BET, "")
        with pytest.raises(ValueError, match="cannot be stored as JSON"):
            journal.append({"bet": {"box": object()}}, "api")
        assert journal.pending_count == 0
        # A card may say where the camera saw it land.
        assert journal.append({"card": "7S", "box": 3}, "camera") == 1


# -- a full disk ---------------------------------------------------------------------


def test_a_full_disk_is_reported_and_the_batch_stays_pending(path: Path) -> None:
    journal = Journal(path, profile="casinos-austria")
    journal.append(BET, "api")
    journal.commit()
    pages = journal.max_pages = journal._db.execute("PRAGMA page_count").fetchone()[0] + 2
    big = {"bet": {"box": 1, "amount": 100, "player": "x" * 3000}}
    seqs = [journal.append(big, "api", f"ref{i}") for i in range(10)]
    with pytest.raises(JournalFullError, match="disk is full.*10 event.*NOT stored.*Free space"):
        journal.commit()
    assert journal.last_committed_seq == 1
    assert journal.pending_count == 10
    with Journal(path) as reader:  # nothing of the failed batch reached the file
        assert [e.seq for e in reader.events()] == [1]
        assert not reader.has_source_ref("api", "ref0")
    assert journal.max_pages == pages
    journal.max_pages = 1_000_000  # space freed
    assert journal.commit() == seqs[-1] == 11
    journal.close()
    with Journal(path) as reader:
        assert [e.seq for e in reader.events()] == list(range(1, 12))


# -- rounds ---------------------------------------------------------------------------


def test_rounds_span_their_events(path: Path) -> None:
    with Journal(path) as journal:
        for event in (BET, DEAL, {"card": "TS"}):
            journal.append(event, "sim")
        journal.record_round(1, {"status": "void", "flags": ["CARD_OUT_OF_ORDER"], "net": {}})
        journal.append({"shoe": "loaded"}, "shoe")
        journal.append(BET, "api")
        journal.record_round(2, {"status": "settled", "flags": [], "net": {"box1/main": 0}})
        with pytest.raises(ValueError, match="next round to record is 3"):
            journal.record_round(4, {"status": "settled", "flags": []})
        with pytest.raises(ValueError, match="needs a 'status'"):
            journal.record_round(3, {"flags": []})
        journal.append(BET, "api")
        journal.commit()
    with Journal(path) as journal:
        first, second = journal.rounds()
        assert (first.round_no, first.status, first.start_seq, first.end_seq) == (
            1, "void", 1, 3)
        assert first.flags == ("CARD_OUT_OF_ORDER",)
        assert (second.start_seq, second.end_seq, second.result["net"]) == (
            4, 5, {"box1/main": 0})
        assert [e.event for e in journal.round_events(2)] == [{"shoe": "loaded"}, BET]
        assert [e.seq for e in journal.open_round_events()] == [6]
        with pytest.raises(ValueError, match="next round to record is 3"):
            journal.record_round(1, {"status": "void", "flags": []})
        with pytest.raises(KeyError, match="round 9"):
            journal.round_events(9)


def test_an_uncommitted_round_is_not_recorded(path: Path) -> None:
    with Journal(path) as journal:
        journal.append(BET, "api")
        journal.record_round(1, {"status": "settled", "flags": []})
    with Journal(path) as journal:
        assert journal.rounds() == []
        journal.append(BET, "api")
        journal.record_round(1, {"status": "settled", "flags": []})
        assert journal.append_many([(DEAL, "button", None), ({"card": "2C"}, "shoe", 7)]) == 3
        assert journal.rounds()[0].end_seq == 1
        assert journal.has_source_ref("shoe", "7")


def test_a_second_writer_is_refused_at_commit(path: Path) -> None:
    first = Journal(path)
    second = Journal(path)
    first.append(BET, "api")
    second.append(DEAL, "api")
    assert first.commit() == 1
    with pytest.raises(JournalError, match="another program wrote to the journal"):
        second.commit()
    assert second.pending_count == 1
    second.close()
    first.close()
    with Journal(path) as journal:
        assert [e.event for e in journal.events()] == [BET]


def test_the_last_source_ref_is_the_newest_committed_one_of_that_source(path: Path) -> None:
    with Journal(path) as journal:
        assert journal.last_source_ref("shoe") is None
        journal.append({"card": "7S"}, "shoe", "0:1")
        journal.append({"card": "8S"}, "shoe", "0:2")
        journal.append(BET, "api", "t1:1")
        journal.append(DEAL, "api")  # no reference
        assert journal.last_source_ref("shoe") is None  # pending is not stored
        journal.commit()
        journal.append({"card": "9S"}, "shoe", "0:3")  # never committed
    with Journal(path) as journal:
        assert journal.last_source_ref("shoe") == "0:2"
        assert journal.last_source_ref("api") == "t1:1"



# -- sealed batches (a writer thread stores while the loop appends) --------------------


def test_appends_go_on_while_a_sealed_batch_waits_and_every_seq_is_stored_once(
        path: Path) -> None:
    journal = Journal(path, profile="casinos-austria")
    journal.append(BET, "api", "a1")
    journal.append(DEAL, "api", "a2")
    first = journal.seal()
    assert first is not None and first.size == 2
    assert journal.pending_count == 0 and journal.unstored_count == 2
    # The next batch numbers on from the sealed one, and a sealed ref is a duplicate.
    assert journal.append({"card": "7S"}, "shoe", "0:1") == 3
    with pytest.raises(AlreadyStored):
        journal.append(BET, "api", "a1")
    assert journal.seq_of_source_ref("api", "a2") == 2
    second = journal.seal()
    assert second is not None
    with pytest.raises(ValueError, match="order they were sealed"):
        journal.write(second)
    assert journal.last_committed_seq == 0
    assert journal.write(first) == 2
    assert journal.seq_of_source_ref("api", "a2") == 2  # now found on disk
    assert journal.write(second) == 3
    assert journal.unstored_count == 0
    journal.close()
    with Journal(path) as reader:
        assert [(e.seq, e.source_ref) for e in reader.events()] == [
            (1, "a1"), (2, "a2"), (3, "0:1")]


def test_a_round_recorded_after_a_sealed_batch_spans_the_right_events(path: Path) -> None:
    journal = Journal(path, profile="casinos-austria")
    journal.append(BET, "api")
    journal.append(DEAL, "api")
    sealed = journal.seal()
    journal.append({"card": "7S"}, "shoe")
    journal.record_round(1, {"round": 1, "status": "settled", "flags": []})
    journal.append(BET, "api")  # round 2 begins
    assert sealed is not None
    journal.write(sealed)
    journal.commit()
    journal.close()
    with Journal(path) as reader:
        [record] = reader.rounds()
        assert (record.round_no, record.start_seq, record.end_seq) == (1, 1, 3)


def test_a_failed_write_stores_nothing_and_everything_unstored_can_be_dropped(
        path: Path) -> None:
    journal = Journal(path, profile="casinos-austria")
    journal.append(BET, "api")
    journal.commit()
    journal.max_pages = journal._db.execute("PRAGMA page_count").fetchone()[0] + 2
    big = {"bet": {"box": 1, "amount": 100, "player": "x" * 3000}}
    for i in range(10):
        journal.append(big, "api", f"ref{i}")
    sealed = journal.seal()
    journal.append(BET, "api", "later")
    assert sealed is not None
    with pytest.raises(JournalFullError, match="10 event"):
        journal.write(sealed)
    assert journal.last_committed_seq == 1
    assert journal.unstored_count == 11
    assert journal.discard_unstored() == 11
    assert journal.unstored_count == 0 and not journal.has_source_ref("api", "ref0")
    journal.close()
    with Journal(path) as reader:
        assert [e.seq for e in reader.events()] == [1]


def test_each_stored_event_has_the_time_it_was_appended(tmp_path: Path) -> None:
    import time as _time

    before = _time.time()
    with Journal(tmp_path / "j.sqlite", profile="casinos-austria") as journal:
        journal.append({"bet": {"box": 1, "amount": 10}}, "api")
        journal.append({"deal": {}}, "api")
        journal.commit()
        times = journal.event_times(1, 2)
    after = _time.time()
    assert sorted(times) == [1, 2]
    assert all(before <= at <= after for at in times.values())
    with JournalReader(tmp_path / "j.sqlite") as reader:
        assert reader.event_times(1, 2) == times
