"""The table service on a real SQLite journal: apply in order, journal with the
source, answer only after the commit, refuse what is not an event, store a
source reference once, record finished rounds, and halt on a really full journal."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hwsim.dealer.protocols import DealerError

from journal import Journal, JournalReader
from table.machine import Table
from table.profiles import load_profile
from table.views import Outcome
from tablectl.daemon import Daemon
from tablectl.lamps import lamp_picture
from tablectl.links import ServiceForward
from tablectl.service import Receipt, Submission, TableService
from tests.tablectl.helpers import Signal

# Woken after each batch the loop applied and each round of answers given.
CHANGED = Signal()

Start = Callable[..., TableService]


@pytest.fixture
def journal_path(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite"


@pytest.fixture
def start(journal_path: Path) -> Iterator[Start]:
    """A running service on a fresh journal file (its loop on a thread of its own)."""
    made: list[tuple[TableService, threading.Thread]] = []

    def start_service(profile: str = "casinos-austria", max_pages: int | None = None,
                      commit_batch: int = 256) -> TableService:
        journal = Journal(journal_path, profile=profile, max_pages=max_pages)
        service = TableService(Table(load_profile(profile)), journal, commit_batch=commit_batch)
        service.on_change(CHANGED.notify)
        service.after_answers(CHANGED.notify)
        thread = threading.Thread(target=service.run, daemon=True)
        thread.start()
        made.append((service, thread))
        return service

    yield start_service
    for service, thread in made:
        service.stop()
        thread.join(5.0)
        service.journal.close()


def stored_rows(path: Path) -> list[tuple[int, str, str | None, str]]:
    """What is really in the file, read through a second, read-only connection."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT seq, source, source_ref, event FROM events ORDER BY seq")
        return [(int(s), str(src), ref, str(e)) for s, src, ref, e in rows.fetchall()]
    finally:
        db.close()


def submit_all(service: TableService, items: list[tuple[dict[str, Any], str, str | None]]
               ) -> list[Receipt]:
    """Submit everything at once (so it batches) and wait for every answer, in order."""
    receipts: list[Receipt | None] = [None] * len(items)
    done = threading.Event()
    lock = threading.Lock()
    left = [len(items)]

    def replier(i: int) -> Callable[[Receipt], None]:
        def reply(receipt: Receipt) -> None:
            receipts[i] = receipt
            with lock:
                left[0] -= 1
                if left[0] == 0:
                    done.set()
        return reply

    for i, (event, source, ref) in enumerate(items):
        service.submit(Submission(event, source, ref, reply=replier(i)))
    assert done.wait(30.0), "not every submission was answered"
    return [r for r in receipts if r is not None]


def bet(box: int, amount: int) -> dict[str, Any]:
    return {"bet": {"box": box, "amount": amount}}


def card(code: str) -> dict[str, Any]:
    return {"card": code}


def do(box: int | str, action: str) -> dict[str, Any]:
    return {"do": {"box": box, "action": action}}


DEAL: dict[str, Any] = {"deal": {}}


def test_events_are_applied_in_order_and_journaled_with_their_source(
        start: Start, journal_path: Path) -> None:
    service = start()
    items: list[tuple[dict[str, Any], str, str | None]] = [
        (bet(1, 100), "api", "terminal-1:1"),
        (bet(3, 40), "api", "terminal-3:1"),
        (DEAL, "button", None),
        (card("TS"), "shoe", "0:1"),
        (card("5H"), "shoe", "0:2"),
        (card("6D"), "shoe", "0:3"),
        (card("9C"), "shoe", "0:4"),
        (card("7S"), "shoe", "0:5"),
    ]
    receipts = submit_all(service, items)
    assert [r.journal_seq for r in receipts] == list(range(1, 9))
    assert all(r.stored and r.accepted for r in receipts)
    rows = stored_rows(journal_path)
    assert [(seq, source, ref) for seq, source, ref, _ in rows] == [
        (i + 1, source, ref) for i, (_, source, ref) in enumerate(items)
    ]
    # Dealt in order: box 1, box 3, dealer, box 1, box 3.
    view = service.snapshot.view
    assert [box.hands[0].cards for box in view.boxes] == [("TS", "9C"), ("5H", "7S")]
    assert view.dealer == ("6D",)
    due = service.snapshot.due
    assert (due.phase, due.box) == ("playing", 1)


def test_the_answer_comes_only_after_the_event_is_committed(
        start: Start, journal_path: Path) -> None:
    service = start()
    seen_on_disk: list[tuple[int | None, bool]] = []

    def check_on_disk(receipt: Receipt) -> None:
        on_disk = {seq for seq, _, _, _ in stored_rows(journal_path)}
        seen_on_disk.append((receipt.journal_seq, receipt.journal_seq in on_disk))

    for i in range(1, 6):
        service.submit(Submission(bet(i, 10 * i), "api", f"t:{i}", reply=check_on_disk))
    CHANGED.wait_until(lambda: len(seen_on_disk) == 5, "five answers")
    assert seen_on_disk == [(i, True) for i in range(1, 6)]


def test_the_lamps_see_an_event_before_its_commit_and_readers_see_it_stored(
        start: Start) -> None:
    service = start()
    lamps_saw: list[tuple[int, int]] = []  # (bets on the table, last committed seq)
    answers: list[tuple[int, int]] = []  # (bets in the snapshot, its journal_seq)

    def lamps(s: TableService) -> None:
        bets = sum(len(box.bets) for box in s.snapshot.view.boxes)
        lamps_saw.append((bets, s.journal.last_committed_seq))

    service.on_change(lamps)

    def answered(receipt: Receipt) -> None:
        snapshot = service.snapshot
        answers.append((sum(len(box.bets) for box in snapshot.view.boxes),
                        snapshot.journal_seq))

    service.submit(Submission(bet(1, 10), "api", "t:1", reply=answered))
    CHANGED.wait_until(lambda: answers, "the answer")
    # The lamps showed the bet while the journal had not stored it yet; the
    # answer came after the commit, with the state as stored.
    assert (1, 0) in lamps_saw
    assert answers == [(1, 1)]


@pytest.mark.parametrize(
    ("event", "reason"),
    [
        (card("1X"), "unknown card '1X'"),
        (bet(0, 100), "box must be a box number 1 to 7, got 0"),
        (bet(1, -5), "amount must be positive, got -5"),
        ({"bet": {"box": 1}}, 'a bet needs "box" and "amount"'),
        ({"hit": {"box": 1}}, "an event has exactly one of"),
    ],
)
def test_a_malformed_event_is_neither_applied_nor_stored(
        start: Start, journal_path: Path, event: dict[str, Any], reason: str) -> None:
    service = start()
    first = service.submit_and_wait(bet(2, 50), "api", "t:1")
    assert first.stored and first.journal_seq == 1
    receipt = service.submit_and_wait(event, "api", "t:2")
    assert receipt.malformed and not receipt.stored and not receipt.accepted
    assert receipt.reason is not None and reason in receipt.reason
    assert [seq for seq, _, _, _ in stored_rows(journal_path)] == [1]
    # Not applied either: the open round has no refusal on record, only box 2's bet.
    result = service.table.current_result()
    assert result is not None and result["refused"] == []
    assert [(b.number, b.bets) for b in service.snapshot.view.boxes] == [
        (2, (("box2", "main", 50),))
    ]
    # The reference was not used up: the terminal may send a good event under it.
    retry = service.submit_and_wait(bet(2, 25), "api", "t:2")
    assert retry.stored and not retry.duplicate and retry.journal_seq == 2


def test_the_same_source_ref_is_applied_once(start: Start, journal_path: Path) -> None:
    service = start()
    first = service.submit_and_wait(bet(1, 100), "api", "terminal-7:1042")
    again = service.submit_and_wait(bet(1, 100), "api", "terminal-7:1042")
    assert first.stored and first.accepted and not first.duplicate
    assert again.stored and again.duplicate
    # Another source may use the same text: references are per source.
    other = service.submit_and_wait(bet(2, 30), "button", "terminal-7:1042")
    assert other.stored and not other.duplicate
    assert [(seq, source) for seq, source, _, _ in stored_rows(journal_path)] == [
        (1, "api"), (2, "button")
    ]
    boxes = {b.number: b.bets for b in service.snapshot.view.boxes}
    assert boxes == {1: (("box1", "main", 100),), 2: (("box2", "main", 30),)}


def test_a_refused_decision_is_stored_with_its_reason(start: Start, journal_path: Path) -> None:
    service = start()
    for event in (bet(1, 100), bet(2, 100), DEAL, card("TS"), card("9D"), card("6C"),
                  card("8H"), card("7D")):
        assert service.submit_and_wait(event, "sim").stored
    assert service.snapshot.due.box == 1
    receipt = service.submit_and_wait(do(2, "stand"), "api", "t:9")
    assert receipt.stored and not receipt.accepted
    assert receipt.reason is not None and "box 1" in receipt.reason
    assert receipt.journal_seq == 9 and len(stored_rows(journal_path)) == 9
    assert service.snapshot.due.box == 1


def test_finished_rounds_are_recorded_with_their_result(start: Start) -> None:
    service = start()
    # Round 1: box 1 holds T+9 = 19; the dealer 6, K = 16 must draw, 8 busts (24).
    # Box 1 wins 1:1 on 100: net +100.
    round_one = [bet(1, 100), DEAL, card("TS"), card("6D"), card("9C"), do(1, "stand"),
                 card("KD"), card("8C")]
    # Round 2: box 2's A+K is a blackjack against a dealer ten; it waits for the
    # dealer's second card only (7: no blackjack), then pays 3:2 on 50: net +75.
    round_two = [bet(2, 50), DEAL, card("AS"), card("TH"), card("KC"), card("7D")]
    # A third round's first bet: by then both rounds are over and on record.
    for event in round_one + round_two + [bet(4, 20)]:
        receipt = service.submit_and_wait(event, "sim")
        assert receipt.stored and receipt.accepted, (event, receipt)
    records = service.journal.rounds()
    assert [(r.round_no, r.status, r.start_seq, r.end_seq, r.flags) for r in records] == [
        (1, "settled", 1, 8, ()), (2, "settled", 9, 14, ()),
    ]
    assert records[0].result["net"] == {"box1/main": 100}
    assert records[0].result["dealer"] == ["6D", "KD", "8C"]
    assert records[1].result["net"] == {"box2/main": 75}
    assert records[1].result["dealer"] == ["TH", "7D"]
    assert [e.event for e in service.journal.round_events(2)] == round_two
    assert service.recorded_round == 2


def test_a_stop_records_the_round_that_is_over_and_not_one_in_play(
        start: Start, journal_path: Path) -> None:
    # Box 1 holds T+9 = 19; the dealer 6, K = 16 draws 8 and busts: box 1 nets +100.
    # No next round begins, so only the stop can record it.
    service = start()
    for event in [bet(1, 100), DEAL, card("TS"), card("6D"), card("9C"), do(1, "stand"),
                  card("KD"), card("8C")]:
        assert service.submit_and_wait(event, "sim").accepted
    assert service.journal.rounds() == []
    service.stop()
    assert service.wait_stopped(10.0)
    reader = JournalReader(journal_path)
    try:
        records = reader.rounds()
        assert [(r.round_no, r.status, r.start_seq, r.end_seq) for r in records] == [
            (1, "settled", 1, 8)]
        assert records[0].result["net"] == {"box1/main": 100}
    finally:
        reader.close()
    # A round still in play at the stop is not recorded (the next start resumes or voids it).
    service.journal.close()
    journal = Journal(journal_path)
    second = TableService(Daemon.replay(journal, load_profile("casinos-austria"))[0], journal)
    thread = threading.Thread(target=second.run, daemon=True)
    thread.start()
    for event in [bet(2, 50), DEAL, card("5S")]:
        assert second.submit_and_wait(event, "sim").accepted
    second.stop()
    assert second.wait_stopped(10.0)
    thread.join(5.0)
    assert [r.round_no for r in second.journal.rounds()] == [1]
    second.journal.close()


def test_a_full_journal_halts_the_table_and_acknowledges_nothing_unstored(
        start: Start, journal_path: Path) -> None:
    # A fresh journal capped at the pages it has: SQLite itself reports it full
    # once the events fill them (about a hundred small events).
    with Journal(journal_path, profile="casinos-austria") as journal:
        pages = int(journal._db.execute("PRAGMA page_count").fetchone()[0])
    service = start(max_pages=pages, commit_batch=16)
    pictures = []
    service.on_change(lambda s: pictures.append(
        lamp_picture(s.snapshot.view, s.snapshot.due, shoe_online=s.snapshot.shoe_online,
                     journal_fault=s.snapshot.journal_fault is not None)))
    items: list[tuple[dict[str, Any], str, str | None]] = [
        (bet(1 + i % 7, 10), "api", f"terminal:{i}") for i in range(400)
    ]
    # A few first, so that some are stored before the journal fills; then the rest
    # at once (they batch).
    receipts = submit_all(service, items[:20]) + submit_all(service, items[20:])

    stored = [r for r in receipts if r.stored]
    refused = [r for r in receipts if not r.stored]
    assert stored and refused, "the cap never filled the journal"
    # Once one is refused, every later one is: the table is halted.
    first_refused = receipts.index(refused[0])
    assert all(not r.stored for r in receipts[first_refused:])
    on_disk = stored_rows(journal_path)
    assert [seq for seq, _, _, _ in on_disk] == [r.journal_seq for r in stored]
    assert [ref for _, _, ref, _ in on_disk] == [f"terminal:{i}" for i in range(first_refused)]
    for receipt in refused:
        assert receipt.journal_seq is None
        assert receipt.reason is not None and "journal cannot store" in receipt.reason
    assert "full" in (service.journal_fault or "")

    later = service.submit_and_wait(bet(1, 10), "api", "terminal:later")
    assert not later.stored and later.reason == service.journal_fault
    assert len(stored_rows(journal_path)) == len(stored)
    snapshot = service.snapshot
    assert snapshot.journal_fault == service.journal_fault
    assert pictures[-1].alarm
    # What was stored is a readable journal.
    service.stop()
    with JournalReader(journal_path) as reader:
        assert reader.last_committed_seq == len(stored)


def test_a_status_with_nothing_to_store_is_answered_in_order(start: Start) -> None:
    service = start()
    answers: list[str] = []
    service.submit(Submission(bet(1, 10), "shoe", "0:1", reply=lambda r: answers.append("bet")))
    service.submit(Submission(None, "shoe", "0:2",
                              reply=lambda r: answers.append(f"none {r.stored}")))
    CHANGED.wait_until(lambda: len(answers) == 2, "both answers")
    assert answers == ["bet", "none True"]
    assert service.journal.last_committed_seq == 1


def test_the_loop_applies_while_a_commit_waits_for_the_disk_and_answers_only_after_it(
        start: Start, journal_path: Path) -> None:
    service = start()
    journal = service.journal
    real_write = journal.write
    disk_free = threading.Event()
    writes: list[int] = []

    def slow_write(batch: Any) -> int:
        writes.append(batch.size)
        CHANGED.notify()
        assert disk_free.wait(10.0)
        return real_write(batch)

    journal.write = slow_write  # type: ignore[method-assign]
    replies: list[Receipt] = []
    # The first bet's commit hangs on the "disk"; the next bets arrive meanwhile.
    service.submit(Submission(bet(1, 10), "api", "t:0", reply=replies.append))
    CHANGED.wait_until(lambda: len(writes) == 1, "the first commit")
    for i in range(1, 6):
        service.submit(Submission(bet(1 + i, 10), "api", f"t:{i}", reply=replies.append))
    # Applied and shown without the disk: every box's bet is on the table's view.
    CHANGED.wait_until(lambda: [b.number for b in service.snapshot.view.boxes if b.bets]
                       == [1, 2, 3, 4, 5, 6], "every bet applied and shown")
    assert replies == [] and stored_rows(journal_path) == []
    disk_free.set()
    CHANGED.wait_until(lambda: len(replies) == 6, "every answer")
    assert all(r.stored and r.accepted for r in replies)
    assert [r.journal_seq for r in replies] == [1, 2, 3, 4, 5, 6]
    # The five that waited went to the disk together, in one transaction.
    assert writes == [1, 5]
    assert [ref for _, _, ref, _ in stored_rows(journal_path)] == [f"t:{i}" for i in range(6)]


def test_a_shadow_dealers_events_are_checked_against_his_own_tables_answers(
        start: Start) -> None:
    service = start()
    forward = ServiceForward()
    service.submit(forward.submission(bet(1, 10), "s:1", Outcome(True)))
    assert forward.wait_answered(5.0) and forward.error is None
    # The dealer's own table refused what the real one accepts: the tables differ.
    service.submit(forward.submission(bet(2, 10), "s:2", Outcome(False, "no")))
    assert forward.wait_answered(5.0)
    assert forward.error is not None and "differ" in forward.error
    with pytest.raises(DealerError, match="differ"):
        forward.submission(bet(3, 10), "s:3", Outcome(True))
    assert forward.forwarded == forward.answered == 2

