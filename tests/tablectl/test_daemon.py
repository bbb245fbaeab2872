"""The daemon on the whole stack (tests/tablectl/daemon_bench.py): a round, a restart
mid-round, an interrupted round's rule, a file that is not this table's journal.
Rounds are worked out by hand from the rules."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from journal import Journal, JournalReader
from tablectl.daemon import Daemon, DaemonError
from tablectl.devices import (
    Devices,
    NoPanel,
)
from tests.tablectl.daemon_bench import (
    BET,
    BJ,
    DELIVERED_S,
    EXPECTED_NET,
    LOST,
    OFF,
    STACK,
    WON,
    Bench,
    bet,
    place_bets_and_deal,
)


def test_a_round_through_the_whole_stack(bench: Bench) -> None:
    bench.start_shoe(STACK)
    running = bench.open()
    assert running.cards.wait_delivered(DELIVERED_S), "the shoe's `loaded` was not stored"
    assert running.lamps() == {"draw": False, "stand": False, "alarm": False,
                               "shoe_fault": False}
    place_bets_and_deal(running)
    due = running.service.snapshot.due
    assert (due.phase, due.box) == ("playing", 1)
    assert running.blinking() == [1]
    assert running.mock.box_state(2) == BET and running.mock.box_state(3) == BET

    running.click("double")
    running.draw("9C")  # box 1: 20; box 2's natural is skipped; box 3 is up
    assert running.blinking() == [3]
    assert running.mock.box_state(1) == BET
    running.draw("8D")  # box 3 busts: the dealer must draw to 17 for boxes 1 and 2
    assert running.blinking() == []
    assert running.lamps()["draw"] and not running.lamps()["alarm"]
    running.draw("TD")

    result = running.service.table.current_result()
    assert result is not None and result["status"] == "settled"
    assert result["net"] == EXPECTED_NET
    assert result["dealer"] == ["7S", "TD"]
    assert running.boxes() == [WON, BJ, LOST, OFF, OFF, OFF, OFF]
    assert not running.lamps()["draw"] and running.lamps()["stand"]  # 17: the dealer stops
    # The button's decision is journaled as a button's, the bets as the API's.
    with JournalReader(bench.journal_path) as reader:
        sources = [(e.source, e.event) for e in reader.events() if e.source != "shoe"]
    assert sources == [
        ("pit:harness", bet(1, 100)), ("pit:harness", bet(2, 50)), ("pit:harness", bet(3, 40)),
        ("button", {"deal": {}}), ("button", {"do": {"box": 1, "action": "double"}}),
    ]
    bench.check_every_frame_stored_once_and_acked_after()


def test_a_restart_mid_round_rebuilds_the_table_and_the_round_goes_on(bench: Bench) -> None:
    bench.start_shoe(STACK)
    first = bench.open()
    assert first.cards.wait_delivered(DELIVERED_S)
    place_bets_and_deal(first)
    first.click("double")
    first.draw("9C")  # box 3 is up
    due_before = first.service.table.due()
    view_before = first.service.table.view()
    seq_before = first.service.journal.last_committed_seq
    bench.close(first)

    second = bench.open()
    report = second.daemon.report
    assert report is not None
    assert (report.events_replayed, report.interrupted_round, report.interrupted_action) == (
        seq_before, 1, "resume")
    assert second.service.table.due() == due_before
    assert second.service.table.view() == view_before
    assert second.blinking() == [3], "the lamps show the rebuilt round"
    # A terminal that lost its answer before the stop sends its call again.
    assert second.post(bet(1, 100), "terminal-1:1")["duplicate"] is True
    # The round goes on where it stopped, with the same shoe.
    second.draw("8D", "TD")
    result = second.service.table.current_result()
    assert result is not None and result["status"] == "settled"
    assert result["net"] == EXPECTED_NET
    assert second.boxes() == [WON, BJ, LOST, OFF, OFF, OFF, OFF]
    bench.check_every_frame_stored_once_and_acked_after()


def test_an_interrupted_live_studio_round_is_voided_with_every_bet_back(bench: Bench) -> None:
    bench.start_shoe(["TS", "9H", "5C", "7D", "8S", "4C", "KD", "2H", "6H", "9S"])
    first = bench.open("live-studio")
    assert first.cards.wait_delivered(DELIVERED_S)
    first.post(bet(1, 100), "seat-1:1")
    first.post(bet(2, 50), "seat-2:1")
    first.post({"deal": {}}, "dealer:1")
    # Seat 1: T 7 = 17, seat 2: 9 8 = 17, dealer 5: seat 1 is up.
    first.draw("TS", "9H", "5C", "7D", "8S")
    assert first.service.table.due().box == 1
    bench.close(first)

    second = bench.open("live-studio")
    report = second.daemon.report
    assert report is not None
    assert (report.interrupted_round, report.interrupted_action) == (1, "void")
    table = second.service.table
    assert table.state == "void"
    result = table.current_result()
    assert result is not None
    assert result["status"] == "void" and result["net"] == {"box1/main": 0, "box2/main": 0}
    assert result["settlement"] == []
    assert second.boxes() == [OFF] * 7 and second.blinking() == []
    # The void is in the journal, so a replay voids the round too.
    with JournalReader(bench.journal_path) as reader:
        last = list(reader.events())[-1]
    assert (last.source, last.event) == ("daemon", {"resolve": "void"})
    # The next round begins normally; the voided one is on record with nothing won.
    second.post(bet(3, 20), "seat-3:1")
    with JournalReader(bench.journal_path) as reader:
        records = reader.rounds()
    assert [(r.round_no, r.status) for r in records] == [(1, "void")]
    assert records[0].result["net"] == {"box1/main": 0, "box2/main": 0}


def test_the_interrupted_round_rule_can_be_overridden(bench: Bench) -> None:
    # casinos-austria resumes by default; `interrupted_round = "void"` voids instead.
    bench.start_shoe(["TS", "5C", "7D", "4C"])
    first = bench.open(rules={"interrupted_round": "void"})
    assert first.cards.wait_delivered(DELIVERED_S)
    first.post(bet(1, 100), "t:1")
    first.post({"deal": {}}, "t:2")
    first.draw("TS", "5C", "7D")  # box 1: 17 against a 5, up
    bench.close(first)
    second = bench.open(rules={"interrupted_round": "void"})
    assert second.daemon.report is not None
    assert second.daemon.report.interrupted_action == "void"
    result = second.service.table.current_result()
    assert result is not None and (result["status"], result["net"]) == ("void", {"box1/main": 0})


def _journal_of_another_profile(path: Path) -> None:
    with Journal(path, profile="live-studio") as journal:
        journal.append(bet(1, 100), "api", "t:1")
        journal.commit()


def _journal_with_other_rules(path: Path) -> None:
    with Journal(path, profile="casinos-austria", rules={"decks": 1}) as journal:
        journal.append(bet(1, 100), "api", "t:1")
        journal.commit()


def _foreign_sqlite(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE accounts (name TEXT, balance INTEGER)")
    db.execute("INSERT INTO accounts VALUES ('house', 1000000)")
    db.commit()
    db.close()


def _not_sqlite(path: Path) -> None:
    path.write_bytes(b"round,net\n1,+100\n" * 20)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (_foreign_sqlite, "an SQLite file of another application"),
        (_not_sqlite, "is not a tablectl journal (not an SQLite file)"),
        (_journal_of_another_profile,
         "was written under profile 'live-studio', not 'casinos-austria'"),
        (_journal_with_other_rules, "was written with the rule overrides {'decks': 1}"),
    ],
)
def test_a_file_that_is_not_this_tables_journal_is_refused_untouched(
        bench: Bench, make: Any, message: str) -> None:
    make(bench.journal_path)
    before = bench.journal_path.read_bytes()
    daemon = Daemon(bench.config(), Devices(panel=NoPanel()))
    with pytest.raises(DaemonError) as refused:
        daemon.open()
    daemon.close()
    assert message in str(refused.value)
    assert str(bench.journal_path) in str(refused.value)
    assert bench.journal_path.read_bytes() == before
    assert sorted(p.name for p in bench.folder.iterdir()) == ["journal.sqlite"]
