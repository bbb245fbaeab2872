"""The journal on real SQLite files: durability of commits, refusal of foreign
or damaged files (left byte-identical), a real SQLITE_FULL, rounds, group
commit and export as a replayable scenario."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from table.journal import (
    APPLICATION_ID,
    AlreadyStored,
    GroupCommitter,
    Journal,
    JournalError,
    JournalFullError,
    export_scenario,
)

REPO = Path(__file__).resolve().parents[2]

BET = {"bet": {"box": 1, "amount": 100}}
DEAL: dict[str, Any] = {"deal": {}}


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite"


def files_in(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


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
    script = (
        "import os, sys\n"
        "from table.journal import Journal\n"
        "j = Journal(sys.argv[1], profile='casinos-austria')\n"
        "for i in range(5):\n"
        "    j.append({'card': 'AS'}, 'shoe', f'1:{i}')\n"
        "j.commit()\n"
        "j.append({'card': 'KS'}, 'shoe', '1:5')\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(path)], cwd=REPO, check=True)
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
        assert db.execute("PRAGMA user_version").fetchone() == (1,)
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
    db.execute("PRAGMA user_version = 2")
    db.close()
    before = files_in(tmp_path)
    with pytest.raises(JournalError, match="format version 2, newer .* Update tablectl"):
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


# -- export -----------------------------------------------------------------------


def journal_a_scenario(path: Path, doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Journal every event of a scenario as the daemon would, with each round's result."""
    from table.scenario import run_scenario  # the engine, only for the export tests

    results: list[dict[str, Any]] = run_scenario(doc)["rounds"]
    with Journal(path, profile=doc["profile"], rules=doc.get("rules")) as journal:
        for number, (played, result) in enumerate(zip(doc["rounds"], results, strict=True), 1):
            for index, event in enumerate(played["events"]):
                journal.append(event, "shoe" if "card" in event else "api",
                               f"{number}:{index}" if "card" in event else None)
            journal.record_round(number, result)
            journal.commit()
    return results


# Box 1 stands on 15, box 3 doubles 6+9 and draws 9H; the dealer's 6 draws
# KD (16) and 8C: bust, so both boxes win their whole stake.
TWO_BOXES_DEALER_BUSTS: list[dict[str, Any]] = [
    {"bet": {"box": 1, "amount": 100}}, {"bet": {"box": 3, "amount": 50}}, {"deal": {}},
    {"card": "TS"}, {"card": "5H"}, {"card": "6D"}, {"card": "9C"}, {"card": "6S"},
    {"do": {"box": 1, "action": "stand"}}, {"do": {"box": 3, "action": "double"}},
    {"card": "9H"}, {"card": "KD"}, {"card": "8C"},
]


def test_export_replays_to_the_same_results(path: Path) -> None:
    doc: dict[str, Any] = {
        "format": "table-scenario/1",
        "profile": "casinos-austria",
        "rules": {"dealer_hits_soft_17": True},
        "rounds": [
            {"events": TWO_BOXES_DEALER_BUSTS},
            {"events": TWO_BOXES_DEALER_BUSTS},
            {"events": [{"shoe": "loaded"}, *TWO_BOXES_DEALER_BUSTS]},
        ],
    }
    results = journal_a_scenario(path, doc)
    for result in results:
        assert result["status"] == "settled"
        assert result["net"] == {"box1/main": 100, "box3/main": 100}
        assert result["dealer"] == ["6D", "KD", "8C"]
    with Journal(path) as journal:
        exported = export_scenario(journal)
        assert exported["format"] == "table-scenario/1"
        assert exported["profile"] == "casinos-austria"
        assert exported["rules"] == {"dealer_hits_soft_17": True}
        assert [r["events"] for r in exported["rounds"]] == [r["events"] for r in doc["rounds"]]
        assert [r["expect"] for r in exported["rounds"]] == results
        # Through JSON, as `tablectl journal export` writes it, and replayed.
        from table.scenario import run_scenario

        replayed = run_scenario(json.loads(json.dumps(exported)))["rounds"]
        assert replayed == results
        one = export_scenario(journal, rounds=[2])
        assert one["name"] == "journal.sqlite: round 2" and len(one["rounds"]) == 1
        with pytest.raises(JournalError, match=r"round\(s\) 7 not recorded.*rounds 1 to 3"):
            export_scenario(journal, rounds=[1, 7])


def test_export_needs_a_profile(path: Path) -> None:
    with Journal(path) as journal, pytest.raises(JournalError, match="no profile is stored"):
        export_scenario(journal)


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
    with Journal(path, read_only=True) as journal:
        assert journal.read_only and journal.profile == "casinos-austria"
        assert [e.event for e in journal.events()] == [BET, DEAL, BET]
        assert [r.round_no for r in journal.rounds()] == [1]
        assert [e.seq for e in journal.open_round_events()] == [3]
        with pytest.raises(JournalError, match="open read-only"):
            journal.append(BET, "api")
        with pytest.raises(JournalError, match="open read-only"):
            journal.record_round(2, {"status": "void", "flags": []})
        assert journal.commit() == 3 and journal.pending_count == 0
    assert files_in(tmp_path) == before


def test_read_only_beside_a_running_writer_sees_its_commits_and_never_blocks_it(
        path: Path) -> None:
    writer = Journal(path, profile="casinos-austria")
    writer.append(BET, "api")
    writer.append(DEAL, "button")
    writer.commit()
    main_file = path.read_bytes()  # commits sit in the -wal file until a checkpoint
    reader = Journal(path, read_only=True)
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
    script = (
        "import os, sys\n"
        "from table.journal import Journal\n"
        "j = Journal(sys.argv[1], profile='casinos-austria')\n"
        "for i in range(3):\n"
        "    j.append({'card': 'AS'}, 'shoe', f'1:{i}')\n"
        "j.commit()\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(path)], cwd=REPO, check=True)
    assert Path(f"{path}-wal").exists()
    main_file = path.read_bytes()
    with Journal(path, read_only=True) as journal:
        assert [e.source_ref for e in journal.events()] == ["1:0", "1:1", "1:2"]
    assert path.read_bytes() == main_file


def test_read_only_refuses_what_is_not_a_journal_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="no journal there"):
        Journal(tmp_path / "missing.sqlite", read_only=True)
    (tmp_path / "empty.sqlite").write_bytes(b"")
    with pytest.raises(JournalError, match="is empty, not a tablectl journal"):
        Journal(tmp_path / "empty.sqlite", read_only=True)
    (tmp_path / "notes.txt").write_text("not a journal\n" * 20, encoding="utf-8")
    with pytest.raises(JournalError, match="not an SQLite file"):
        Journal(tmp_path / "notes.txt", read_only=True)
    (tmp_path / "folder").mkdir()
    with pytest.raises(JournalError, match="is not a file"):
        Journal(tmp_path / "folder", read_only=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.sqlite", "folder", "notes.txt"]


def test_export_numbers_rounds_and_refusals_as_the_replay_does(path: Path) -> None:
    """The daemon feeds the table every journal event without a position: a refusal
    is recorded at `event N` (N = its seq). The export writes it where the replay
    of the document puts it, and a selection's rounds are numbered from 1."""
    from table.machine import Table
    from table.profiles import load_profile
    from table.scenario import run_scenario

    refused_split = {"do": {"box": 1, "action": "split"}}  # T+5 is no pair
    played = [
        [{"shoe": "loaded"}, *TWO_BOXES_DEALER_BUSTS[:8], refused_split,
         *TWO_BOXES_DEALER_BUSTS[8:]],
        [{"shoe": "loaded"}, *TWO_BOXES_DEALER_BUSTS[:8], refused_split,
         *TWO_BOXES_DEALER_BUSTS[8:]],
    ]
    table = Table(load_profile("casinos-austria"))
    with Journal(path, profile="casinos-austria") as journal:
        for number, events in enumerate(played, 1):
            for event in events:
                table.apply(event)
                journal.append(event, "sim")
            journal.record_round(number, table.results()[-1])
            journal.commit()
    with Journal(path, read_only=True) as journal:
        recorded = [r.result for r in journal.rounds()]
        assert [r["refused"][0]["position"] for r in recorded] == ["event 10", "event 25"]
        exported = export_scenario(journal)
        assert [r["journal_round"] for r in exported["rounds"]] == [1, 2]
        expect = [r["expect"] for r in exported["rounds"]]
        assert [e["refused"][0]["position"] for e in expect] == [
            "round 1, event 10", "round 2, event 10"]
        assert run_scenario(json.loads(json.dumps(exported)))["rounds"] == expect
        second = export_scenario(journal, rounds=[2])
        assert second["rounds"][0]["journal_round"] == 2
        assert second["rounds"][0]["expect"]["round"] == 1
        assert second["rounds"][0]["expect"]["refused"][0]["position"] == "round 1, event 10"
        assert run_scenario(second)["rounds"] == [second["rounds"][0]["expect"]]
        for original, replayed in zip(recorded, expect, strict=True):
            assert {k: v for k, v in original.items() if k not in ("round", "refused")} == {
                k: v for k, v in replayed.items() if k not in ("round", "refused")}
        assert export_scenario(journal, rounds=[1, 2])["name"] == "journal.sqlite: rounds 1-2"


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
    with Journal(tmp_path / "j.sqlite", read_only=True) as reader:
        assert reader.event_times(1, 2) == times
