"""The daemon on the whole stack: a stacked virtual ShoeLink shoe on a pty read
with pyserial, lamps and buttons on gpiozero mock pins, the local API on a free
port and a real SQLite journal. Rounds are worked out by hand from the rules."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from hwsim.dealer import InProcessShoe, InProcessTable, VirtualDealer, VirtualShoeCards
from hwsim.dealer.shadow import ShadowLink, ShadowShoeCards
from hwsim.dealer.shoes import seeded_shoe
from hwsim.panel import MockPanel
from hwsim.shoe import LineFaults, ShoeTiming, VirtualShoe

from firmware_bridge.panel import BoxLamp, Panel
from firmware_bridge.shoelink.events import ShoeEvent
from journal import Journal, JournalReader, SealedBatch
from table.machine import Table
from table.profiles import load_profile
from table.views import Outcome
from tablectl.config import ApiConfig, Config, parse_config
from tablectl.daemon import Daemon, DaemonError
from tablectl.devices import (
    Devices,
    NoPanel,
    OpenShoeLink,
    ShoeLinkDevice,
    ShoeLinkSettings,
    open_shoelink,
)
from tablectl.links import ServiceForward
from tablectl.service import TableService
from tablectl.sim_order import DevicesOrder
from tests.tablectl.helpers import Signal
from tests.tablectl.http_calls import bearer, call

TIMING = ShoeTiming(resend_interval_s=0.1, heartbeat_interval_s=0.05)
DELIVERED_S = 15.0
# Seven RGB boxes, the four lamps and three of the dealer's buttons on mock pins.
PIN_MAP: dict[str, Any] = {
    "pwm": True,
    "boxes": {str(box): {"rgb": [3 * box - 3, 3 * box - 2, 3 * box - 1]} for box in range(1, 8)},
    "lamps": {"draw": 21, "stand": 22, "alarm": 23, "shoe_fault": 24},
    "buttons": {"stand": 25, "double": 26, "void": 27},
}
OFF, BET = BoxLamp.OFF, BoxLamp.BET
WON, LOST, BJ = BoxLamp.WON, BoxLamp.LOST, BoxLamp.BLACKJACK


def bet(box: int, amount: int) -> dict[str, Any]:
    return {"bet": {"box": box, "amount": amount}}


def watch(service: TableService, changed: Signal) -> None:
    """Before the loop runs: wake `changed` after each batch and round of answers."""
    service.on_change(changed.notify)
    service.after_answers(changed.notify)


@dataclass
class Running:
    """One daemon on the bench's shoe and journal, with its own mock panel."""

    daemon: Daemon
    mock: MockPanel
    cards: VirtualShoeCards
    thread: threading.Thread
    # Woken by the table (each batch, each round of answers) and by the shoe.
    changed: Signal

    @property
    def service(self) -> TableService:
        assert self.daemon.service is not None
        return self.daemon.service

    @property
    def token(self) -> str:
        if not hasattr(self, "_token"):
            self._token = self.daemon.auth.issue_token("harness", "pit")
        return self._token

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any]]:
        assert self.daemon.api is not None
        # The harness writes as the pit (it resolves misdeals too).
        headers = bearer(self.token) if method == "POST" else {}
        answer = call(self.daemon.api.address, method, path, body, headers)
        return answer.status, answer.body

    def post(self, event: dict[str, Any], ref: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"event": event}
        if ref is not None:
            body["id"] = ref
        status, answer = self.request("POST", "/events", body)
        assert status == 200, answer
        return answer

    def draw(self, *codes: str) -> None:
        """The dealer pulls the next cards (they must be `codes`), each delivered,
        journaled and acknowledged before the next."""
        shoe = self.cards.shoe
        for code in codes:
            before = len(shoe.records)
            self.cards.draw()
            assert self.cards.wait_delivered(DELIVERED_S), f"{code} was never acknowledged"
            drawn = [r.card for r in shoe.records[before:] if r.kind == "card"]
            assert drawn == [code], f"the shoe is stacked wrong: {drawn} instead of {code}"

    def click(self, button: str) -> None:
        """Press a dealer's button and wait until what it means is stored."""
        seq = self.service.snapshot.journal_seq
        self.mock.click(button)
        self.changed.wait_until(lambda: self.service.snapshot.journal_seq > seq,
                                f"the {button} press")

    def boxes(self) -> list[BoxLamp | None]:
        return [self.mock.box_state(box) for box in range(1, 8)]

    def blinking(self) -> list[int]:
        return [box for box in range(1, 8) if self.mock.is_blinking(box)]

    def lamps(self) -> dict[str, bool]:
        return {name: self.mock.lamp(name) for name in ("draw", "stand", "alarm", "shoe_fault")}


@dataclass
class Bench:
    """A virtual shoe that outlives the daemons opened on it, and their journal."""

    folder: Path
    shoe: VirtualShoe | None = None
    opened: list[Running] = field(default_factory=list)
    # Every ACK the shoe got, and whether its frame was in the journal file then.
    acks: list[tuple[int, bool]] = field(default_factory=list)
    # Woken by the shoe (each frame made, each ACK) and the daemons' tables.
    changed: Signal = field(default_factory=Signal)

    @property
    def journal_path(self) -> Path:
        return self.folder / "journal.sqlite"

    @property
    def shoe_path(self) -> Path:
        return self.folder / "virtual-shoe"

    def start_shoe(self, cards: list[str], faults: LineFaults | None = None) -> VirtualShoe:
        shoe = VirtualShoe(cards, dealer_paced=True, link_path=self.shoe_path, timing=TIMING,
                           faults=faults, seed=7)
        shoe.on_ack = self._check_ack
        shoe.on_frame = self.changed.notify
        shoe.start()
        self.shoe = shoe
        return shoe

    def _check_ack(self, seq: int) -> None:
        """On the shoe's thread, as the ACK arrives: is that frame in the file?"""
        db = sqlite3.connect(f"{self.journal_path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = db.execute(
                "SELECT COUNT(*) FROM events WHERE source = 'shoe' AND source_ref LIKE ?",
                (f"%:{seq}@%",),
            ).fetchone()
        finally:
            db.close()
        self.acks.append((seq, row[0] == 1))
        self.changed.notify()

    def config(self, profile: str = "casinos-austria",
               rules: dict[str, Any] | None = None) -> Config:
        config = parse_config({
            "table": {"profile": profile, "rules": rules or {}},
            "shoe": {"driver": "shoelink", "port": str(self.shoe_path)},
            "journal": {"path": str(self.journal_path)},
            "panel": PIN_MAP,
        }, "<test bench>")
        return replace(config, api=ApiConfig(enabled=True, host="127.0.0.1", port=0))

    def open(self, profile: str = "casinos-austria",
             rules: dict[str, Any] | None = None,
             shoe_link: OpenShoeLink = open_shoelink) -> Running:
        assert self.shoe is not None, "start the shoe first"
        mock = MockPanel(PIN_MAP)
        daemon = Daemon(self.config(profile, rules),
                        Devices(panel=mock.panel, shoe_link=shoe_link))
        daemon.open()
        assert daemon.service is not None
        watch(daemon.service, self.changed)
        running = Running(daemon, mock, VirtualShoeCards(self.shoe), daemon.run_in_thread(),
                          self.changed)
        self.opened.append(running)
        return running

    def close(self, running: Running) -> None:
        self.opened.remove(running)
        running.daemon.close()
        running.thread.join(5.0)
        assert not running.thread.is_alive()

    def shoe_events(self) -> list[tuple[str | None, dict[str, Any]]]:
        """(EPOCH:SEQ, event) of each shoe frame stored; the `@UPTIME` part of the
        reference is the shoe's clock, checked where a test needs it."""
        with JournalReader(self.journal_path) as reader:
            return [((e.source_ref or "").partition("@")[0], e.event)
                    for e in reader.events() if e.source == "shoe"]

    def check_every_frame_stored_once_and_acked_after(self) -> None:
        """The journal holds each reliable frame the shoe sent exactly once, in
        order, and every ACK came when its frame was already in the file."""
        shoe = self.shoe
        assert shoe is not None
        self.changed.wait_until(lambda: shoe.pending_count == 0, "every frame acknowledged",
                                DELIVERED_S)
        sent = []
        for record in shoe.records:
            if record.kind == "card":
                sent.append((f"0:{record.seq}", {"card": record.card}))
            elif record.kind == "shoe" and record.event == "loaded":
                sent.append((f"0:{record.seq}", {"shoe": "loaded"}))
        assert self.shoe_events() == sent
        assert shoe.acked_seq == shoe.records[-1].seq
        assert self.acks and all(found for _, found in self.acks), self.acks

    def shutdown(self) -> None:
        for running in self.opened:
            running.daemon.close()
            running.thread.join(5.0)
            running.mock.close()
        if self.shoe is not None:
            self.shoe.stop()


@pytest.fixture
def bench(tmp_path: Path) -> Iterator[Bench]:
    made = Bench(tmp_path)
    try:
        yield made
    finally:
        made.shutdown()


# A casinos-austria round worked out by hand. Deal order: box 1, 2, 3, the dealer,
# then box 1, 2, 3 again (ENHC: the dealer's second card after the boxes).
#   box 1 (100): 5H 6D = 11, doubles (200 staked), draws 9C: 20, finished
#   box 2 (50):  AS KH = blackjack, waits for the dealer
#   box 3 (40):  TC 6S = 16, a card out of the shoe is a hit: 8D, 24, bust
#   dealer:      7S (no insurance), then TD: 17, stands (S17)
# Box 1's 20 beats 17: +200. The blackjack pays 3:2: +75. Box 3 lost: -40.
STACK = ["5H", "AS", "TC", "7S", "6D", "KH", "6S", "9C", "8D", "TD", "2C", "3C"]
EXPECTED_NET = {"box1/main": 200, "box2/main": 75, "box3/main": -40}


def place_bets_and_deal(running: Running) -> None:
    assert running.post(bet(1, 100), "terminal-1:1")["accepted"]
    assert running.post(bet(2, 50), "terminal-2:1")["accepted"]
    assert running.post(bet(3, 40), "terminal-3:1")["accepted"]
    assert running.boxes() == [BET, BET, BET, OFF, OFF, OFF, OFF]
    running.click("stand")  # stand / next in betting: no more bets, deal
    assert running.service.snapshot.due.phase == "dealing"
    running.draw("5H", "AS", "TC", "7S", "6D", "KH", "6S")


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


def test_garbage_on_the_serial_line_loses_nothing(bench: Bench) -> None:
    # Noise before frames and flipped bits: frames the host cannot read are
    # dropped by its decoder and come again with the shoe's re-sends.
    shoe = bench.start_shoe(STACK, faults=LineFaults(noise=0.4, corrupt=0.3))
    running = bench.open()
    assert running.cards.wait_delivered(DELIVERED_S)
    place_bets_and_deal(running)
    running.click("double")
    running.draw("9C", "8D", "TD")
    result = running.service.table.current_result()
    assert result is not None and result["net"] == EXPECTED_NET
    counts = shoe.faults.counts
    assert counts.noise > 0 and counts.corrupt > 0, "no garbage was sent"
    assert running.daemon.shoe is not None
    stats = running.daemon.shoe.stats()
    assert stats["crc_errors"] + stats["bad_frames"] > 0, stats
    bench.check_every_frame_stored_once_and_acked_after()


def test_a_card_that_cannot_be_in_the_shoe_is_flagged(bench: Bench) -> None:
    # One deck: a second ace of spades cannot come out of it.
    bench.start_shoe(["AS", "5D", "AS", "9C"])
    running = bench.open(rules={"decks": 1})
    assert running.cards.wait_delivered(DELIVERED_S)
    running.post(bet(1, 100), "t:1")
    running.post({"deal": {}}, "t:2")
    running.draw("AS", "5D", "AS")
    due = running.service.table.due()
    assert due.halted and due.open_flags == ("IMPOSSIBLE_CARD",)
    assert running.service.table.view().flags == ("IMPOSSIBLE_CARD",)
    assert running.lamps()["alarm"] and running.blinking() == []
    assert running.mock.box_state(1) == BET
    # The card is journaled (with the flag's cause) and acknowledged all the same.
    assert bench.shoe_events()[-1][1] == {"card": "AS"}
    # The pit voids the round with the void button: the alarm goes out, bets back.
    running.click("void")
    result = running.service.table.current_result()
    assert result is not None and result["status"] == "void"
    assert result["net"] == {"box1/main": 0}
    assert not running.lamps()["alarm"] and running.boxes() == [OFF] * 7
    bench.check_every_frame_stored_once_and_acked_after()


def test_the_shoe_fault_lamp_follows_the_link(bench: Bench) -> None:
    shoe = bench.start_shoe(["2S", "3S"])
    running = bench.open()
    assert running.cards.wait_delivered(DELIVERED_S)
    running.changed.wait_until(lambda: running.service.snapshot.shoe_online, "the shoe online")
    assert not running.lamps()["shoe_fault"]
    shoe.unplug()
    running.changed.wait_until(lambda: running.lamps()["shoe_fault"], "the shoe-fault lamp")
    assert running.request("GET", "/state")[1]["shoe_online"] is False
    shoe.replug()
    running.changed.wait_until(lambda: not running.lamps()["shoe_fault"],
                               "the shoe-fault lamp to go out")


def test_a_full_journal_halts_the_table_with_the_alarm_and_acknowledges_nothing_more(
        bench: Bench) -> None:
    shoe = bench.start_shoe(["9S", "4D", "KC"])
    running = bench.open()
    assert running.cards.wait_delivered(DELIVERED_S)
    journal = running.service.journal
    # The file may not grow past the pages it has: SQLite reports it full soon.
    journal.max_pages = int(journal._db.execute("PRAGMA page_count").fetchone()[0])
    stored = 0
    for i in range(1000):
        status, answer = running.request("POST", "/events",
                                         {"event": bet(1 + i % 7, 10), "id": f"t:{i}"})
        if status != 200:
            break
        stored += 1
    assert status == 503 and answer["stored"] is False, "the capped journal never filled"
    assert running.lamps()["alarm"]
    assert running.request("GET", "/health")[0] == 503
    acked = shoe.acked_seq
    resends = shoe.counters.resend_rounds
    # A card leaves the shoe: the table cannot store it, so it is never acknowledged
    # and the shoe keeps it for the next start.
    running.cards.draw()
    running.changed.wait_until(lambda: shoe.cards_dealt == 1, "the card to leave the shoe")
    assert shoe.wait_until(lambda: shoe.counters.resend_rounds >= resends + 3, 10.0), \
        "the shoe never re-sent"
    assert shoe.acked_seq == acked and shoe.pending_count == 1
    assert running.lamps()["alarm"]
    with JournalReader(bench.journal_path) as reader:
        events = list(reader.events())
    assert [e.source for e in events] == ["shoe"] + ["pit:harness"] * stored
    assert all(found for _, found in bench.acks), bench.acks
    # Space again (the cap was only this connection's): a restart rebuilds the table
    # from what was stored, and the card the shoe kept arrives, once.
    bench.close(running)
    again = bench.open()
    assert again.cards.wait_delivered(DELIVERED_S)
    assert [event for _, event in bench.shoe_events()] == [{"shoe": "loaded"},
                                                           {"card": "9S"}]
    staked = sum(amount for box in again.service.table.view().boxes
                 for _, _, amount in box.bets)
    assert staked == 10 * stored
    assert again.service.snapshot.journal_fault is None
    # The card came out before the deal: the table flags it (the alarm is the pit's now).
    assert again.service.table.due().open_flags == ("EXTRA_CARD",)
    assert all(found for _, found in bench.acks), bench.acks


def test_a_shoe_rebooted_while_the_daemon_was_down_is_read(bench: Bench) -> None:
    shoe = bench.start_shoe(["TS", "5C", "7D"])
    first = bench.open()
    assert first.cards.wait_delivered(DELIVERED_S)
    first.post(bet(1, 100), "t:1")
    first.post({"deal": {}}, "t:2")
    first.draw("TS", "5C")
    # The journal keeps the shoe's uptime with each frame; a real shoe has been up
    # for hours, this one for a moment: its last card once the reader has heard it
    # has been up a while (its restart below reports less).
    feed = first.daemon.shoe
    assert feed is not None and feed.link is not None
    link = feed.link
    # Looked at again after each step of the shoe (a heartbeat among them).
    assert shoe.wait_until(lambda: (link.shoe_uptime_ms or 0) >= 2500, 15.0), \
        "the shoe was never heard up for 2.5 s"
    first.draw("7D")
    stored = bench.shoe_events()
    bench.close(first)
    shoe.restart(["9C", "2D"])  # a power cut: the shoe forgets its numbering
    second = bench.open()
    # The new shoe's `loaded` and first card reach the journal.
    second.cards = VirtualShoeCards(shoe)
    second.cards.draw()
    assert second.cards.wait_delivered(3.0), "the rebooted shoe's frames never arrived"
    assert [event for _, event in bench.shoe_events()[-2:]] == [{"shoe": "loaded"},
                                                                 {"card": "9C"}]
    # It came back mid-round (box 1 was to decide): one flag waits for the pit, and the
    # new shoe's card waits behind it instead of flagging a misdeal of its own.
    due = second.service.table.due()
    assert due.halted and due.open_flags == ("SHOE_RELOADED",)
    # The first boot's frames keep their references; the new boot numbers anew.
    assert bench.shoe_events()[:len(stored)] == stored
    assert all(ref.startswith("0:") for ref, _ in stored)
    assert [ref for ref, _ in bench.shoe_events()[-2:]] == ["1:1", "1:2"]


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
    one ACK, for the newest of them, and only once they are all in the file."""
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
    # One ACK per commit (re-sends aside, none here), not one per frame.
    assert len(shoe.ack_log) == len(sizes)
    assert shoe.ack_log[-1] == shoe.records[-1].seq


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
