"""The daemon on the whole stack, delivery: a dealer who never waits, a repeated call
after a restart, the mock pins' memory, the shoe link's first frame, one ACK per
commit, and a journal of the previous schema version migrated."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hwsim.dealer import InProcessShoe, InProcessTable, VirtualDealer
from hwsim.dealer.shadow import ShadowLink, ShadowShoeCards
from hwsim.dealer.shoes import seeded_shoe

from firmware_bridge.panel import Panel
from firmware_bridge.shoelink.events import ShoeEvent
from journal import Journal, JournalReader, SealedBatch
from table.machine import Table
from table.profiles import load_profile
from table.views import Outcome
from tablectl.daemon import Daemon
from tablectl.devices import (
    Devices,
    NoPanel,
    ShoeLinkDevice,
    ShoeLinkSettings,
    open_shoelink,
)
from tablectl.links import ServiceForward
from tablectl.service import TableService
from tablectl.sim_order import DevicesOrder
from tests.tablectl.daemon_bench import (
    BJ,
    DELIVERED_S,
    EXPECTED_NET,
    LOST,
    OFF,
    PIN_MAP,
    STACK,
    WON,
    Bench,
    bet,
    place_bets_and_deal,
    watch,
)


def count_commits(monkeypatch: pytest.MonkeyPatch,
                  disk_free: threading.Event | None = None) -> list[int]:
    """The size of each commit the journal writes, from the first; with `disk_free`,
    each commit waits for it (a slow disk)."""
    commits: list[int] = []
    real_write = Journal.write

    def write(journal: Journal, batch: SealedBatch) -> int:
        commits.append(batch.size)
        if disk_free is not None:
            assert disk_free.wait(10.0)
        return real_write(journal, batch)

    monkeypatch.setattr(Journal, "write", write)
    return commits


def test_a_dealer_with_his_own_table_never_waits_and_nothing_is_lost(
        bench: Bench, monkeypatch: pytest.MonkeyPatch) -> None:
    """The simulated table's dealer keeps his own copy of the table and hands every
    event on without waiting: the daemon still gets them in the same order (each
    decision after the shoe frames before it), the journal catches up in group
    commits, every frame is stored once and acknowledged only when it is in the
    file, and the rounds settle exactly as the same dealer's rounds in-process."""
    rules = load_profile("casinos-austria")
    cards = seeded_shoe(rules, 5)
    rounds = 12
    reference_table = Table(rules)
    reference = InProcessTable(reference_table)
    reference.feed({"shoe": "loaded"})
    VirtualDealer(rules, reference, InProcessShoe(reference, cards), seed=5, boxes=7,
                  mistake_rate=0.1, session="reference").play(rounds)

    shoe = bench.start_shoe(cards)
    shadow = Table(rules)
    commits = count_commits(monkeypatch)
    # As in the simulator, the shoe announces each frame it makes, in order among the
    # dealer's events, and the daemon gets both in that order: from the first frame
    # ("loaded", made as the shoe started) on.
    services: list[TableService] = []
    order = DevicesOrder(lambda submission: services[0].submit(submission))
    announced = [0]
    announcing = threading.Lock()

    def announce_up_to(made: int) -> None:
        with announcing:
            while announced[0] < made:
                announced[0] += 1
                order.frame_announced(announced[0])

    shoe.on_frame = lambda _: announce_up_to(len(shoe.records))
    announce_up_to(len(shoe.records))
    own_cards = ShadowShoeCards(shoe, shadow)

    def ordered_shoe_link(settings: ShoeLinkSettings,
                          deliver: Callable[[ShoeEvent], None]) -> ShoeLinkDevice:
        return open_shoelink(settings, order.reader_delivers_to(deliver))

    forward = ServiceForward()

    def hand_on(event: dict[str, Any], ref: str, after_frames: int,
                expected: Outcome) -> None:
        announce_up_to(after_frames)
        order.event(forward.submission(event, ref, expected))

    running = bench.open(shoe_link=ordered_shoe_link)
    services.append(running.service)
    dealer = VirtualDealer(rules, ShadowLink(shadow, own_cards, hand_on), own_cards, seed=5,
                           boxes=7, mistake_rate=0.1)
    dealer.play(rounds)
    assert order.wait_frames_passed(len(shoe.records), DELIVERED_S)
    assert forward.wait_answered(DELIVERED_S) and forward.error is None

    bench.check_every_frame_stored_once_and_acked_after()
    running.changed.wait_until(lambda: running.service.journal.unstored_count == 0,
                               "the journal caught up")
    with JournalReader(bench.journal_path) as reader:
        stored = [e.event for e in reader.events()]
        recorded = {r.round_no: r.result for r in reader.rounds()}
    assert stored == reference.events
    # Each round is recorded when the next begins: all but the last are on record.
    expected = {r["round"]: r for r in reference_table.results()}
    assert sorted(recorded) == list(range(1, rounds))
    assert recorded == {n: expected[n] for n in recorded}
    assert running.service.table.current_result() == expected[rounds]
    assert sum(commits) == len(stored) and len(commits) < len(stored)


def test_after_a_restart_a_repeated_call_hears_its_first_answer(bench: Bench) -> None:
    bench.start_shoe(STACK)
    running = bench.open()
    status, refused = running.request(
        "POST", "/events", {"event": {"do": {"box": 1, "action": "stand"}}, "id": "t-1:9"})
    assert status == 422 and refused["stored"] is False  # refused: nothing stored
    accepted = running.post(bet(2, 50), "terminal-2:9")
    assert accepted["accepted"]
    bench.close(running)

    again = bench.open()
    accepted_again = again.post(bet(2, 50), "terminal-2:9")
    assert accepted_again["duplicate"] and accepted_again["accepted"]
    assert accepted_again["seq"] == accepted["seq"]
    # The same id with another event is a conflict, told from the journal's copy.
    status, conflict = again.request("POST", "/events",
                                     {"event": bet(2, 500), "id": "terminal-2:9"})
    assert status == 409 and "different event" in conflict["error"]
    # Nothing applied twice: box 2 holds one bet of 50.
    assert [(b.number, b.bets) for b in again.service.snapshot.view.boxes] == [
        (2, (("box2", "main", 50),))]


def test_without_lamps_the_mock_pins_forget_old_changes(
        bench: Bench, monkeypatch: pytest.MonkeyPatch) -> None:
    """GPIOZERO_PIN_FACTORY=mock (a table without lamps): the daemon's pins must not
    keep every change for ever, as gpiozero's own mock pins do."""
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    bench.start_shoe(STACK)
    daemon = Daemon(bench.config())
    try:
        daemon.open()
        assert isinstance(daemon.panel, Panel) and daemon.mock_pins is not None
        panel = daemon.panel
        alarm = daemon.mock_pins.pin(PIN_MAP["lamps"]["alarm"])
        for _ in range(100):  # the alarm lamp on and off 50 times
            panel.apply(replace(panel.shown, alarm=not panel.shown.alarm))
        assert 1 <= len(alarm.states) <= 16
        assert alarm.state == 0  # and it still drives the pin
    finally:
        daemon.close()


def test_the_shoe_link_given_to_the_daemon_reads_from_the_first_frame(bench: Bench) -> None:
    """A shoe link plugged in at the device interface (the simulator's, which puts the
    frames in its devices' order) gets every frame, from the first, and the daemon
    stores what it delivers."""
    bench.start_shoe(STACK)
    delivered: list[ShoeEvent] = []

    def watched_shoe_link(settings: ShoeLinkSettings,
                          deliver: Callable[[ShoeEvent], None]) -> ShoeLinkDevice:
        def watch(event: ShoeEvent) -> None:
            delivered.append(event)
            deliver(event)

        return open_shoelink(settings, watch)

    daemon = Daemon(bench.config(), Devices(panel=NoPanel(), shoe_link=watched_shoe_link))
    daemon.open()
    assert daemon.service is not None
    watch(daemon.service, bench.changed)
    thread = daemon.run_in_thread()
    try:
        bench.changed.wait_until(lambda: bench.shoe_events() != [],
                                 "the shoe's first frame stored")
        frames = [event for event in delivered if hasattr(event, "seq")]
        assert [getattr(event, "seq", None) for event in frames[:1]] == [1]
        assert len(frames) == len(bench.shoe_events())
    finally:
        daemon.close()
        thread.join(5.0)


def test_one_cumulative_ack_covers_every_frame_of_a_commit(
        bench: Bench, monkeypatch: pytest.MonkeyPatch) -> None:
    """ACK is cumulative: after a commit that stored several frames the shoe hears
    one ACK for them (two when their answers straddle two rounds), for the newest
    answered, and only once they are all in the file."""
    cards = seeded_shoe(load_profile("casinos-austria"), 9)[:40]
    shoe = bench.start_shoe([*cards, "2C"])  # one left: no "empty" status
    disk_free = threading.Event()
    # The first commit waits while the cards come.
    sizes = count_commits(monkeypatch, disk_free)
    running = bench.open()
    journal = running.service.journal
    shoe.draw(len(cards))
    running.changed.wait_until(lambda: shoe.cards_dealt == len(cards),
                               "every card out of the shoe")
    disk_free.set()
    bench.check_every_frame_stored_once_and_acked_after()
    running.changed.wait_until(lambda: journal.unstored_count == 0, "the journal caught up")
    assert sum(sizes) == len(cards) + 1 and len(sizes) < len(cards)  # and "loaded"
    # Cumulative: one ACK per round of answers, for the newest frame answered, never
    # one per frame. A round answers what the loop had handed over when the commit
    # was sealed, so a commit's last answers can come in the next round: at most one
    # more ACK per commit. A frame the shoe re-sends once it is stored (the held
    # first commit lets its re-send clock run out) is answered with the same ACK again.
    distinct = list(dict.fromkeys(shoe.ack_log))
    assert distinct == sorted(distinct) and distinct[-1] == shoe.records[-1].seq
    assert len(distinct) <= 2 * len(sizes) and len(sizes) <= len(cards) // 4, (distinct, sizes)
    if shoe.counters.resend_rounds == 0:
        assert len(shoe.ack_log) == len(distinct)


# -- a journal of the previous schema version ------------------------------------------


def _as_journal_version_1(path: Path) -> None:
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
    _as_journal_version_1(bench.journal_path)
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
