"""The daemon's test bench: a stacked virtual ShoeLink shoe on a pty read with
pyserial, lamps and buttons on gpiozero mock pins, the local API on a free port and a
real SQLite journal; the round worked out by hand that most daemon tests deal."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hwsim.dealer import VirtualShoeCards
from hwsim.panel import MockPanel
from hwsim.shoe import LineFaults, ShoeTiming, VirtualShoe

from firmware_bridge.panel import BoxLamp
from journal import JournalReader
from tablectl.config import ApiConfig, Config, parse_config
from tablectl.daemon import Daemon
from tablectl.devices import (
    Devices,
    OpenShoeLink,
    open_shoelink,
)
from tablectl.service import TableService
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


def bench_in(tmp_path: Path) -> Iterator[Bench]:
    """A bench in `tmp_path`, shut down after its test."""
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

