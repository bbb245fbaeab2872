"""Hardware-in-the-loop: play a `table-scenario/1` file through the whole stack.

The scenario's cards leave a virtual ShoeLink shoe on a pseudo-terminal (the
daemon reads them with pyserial and acknowledges each once it is journaled);
bets, decisions and pit resolutions go through the local HTTP API; the lamps
are real gpiozero devices on mock pins and are read back from the pins. Each
round's result is compared with its `expect`, the lamp pins are checked at
key moments, and the journal must hold what was played.

A card with a `box` (a camera's sighting) and the `cut_card` notice cannot
come out of a ShoeLink shoe: they go through the API like the other events.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hwsim.dealer import VirtualShoeCards
from hwsim.panel import MockPanel
from hwsim.shoe import ShoeTiming, VirtualShoe

from firmware_bridge.panel import BoxLamp
from table.conformance import compare_round
from table.scenario import validate_scenario
from table.views import Due
from tablectl.config import parse_config
from tablectl.daemon import Daemon
from tablectl.links import HttpTableLink
from tablectl.sim import SIM_PIN_MAP

DELIVERY_TIMEOUT_S = 10.0
PLAY_ACTIONS = ("hit", "stand", "double", "split", "surrender", "buy", "twist")


@dataclass
class HilResult:
    name: str
    rounds: list[dict[str, Any]] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    lamp_problems: list[str] = field(default_factory=list)
    journal_problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not (self.differences or self.lamp_problems or self.journal_problems)

    def problems(self) -> list[str]:
        return self.differences + self.lamp_problems + self.journal_problems


def shoe_loads(rounds: list[list[dict[str, Any]]]) -> list[list[str]]:
    """The cards each shoe load holds, in order: the first load, then one per
    `{"shoe": "loaded"}` event (cards a camera placed do not come from the shoe)."""
    loads: list[list[str]] = [[]]
    for events in rounds:
        for event in events:
            if event.get("shoe") == "loaded":
                loads.append([])
            elif "card" in event and "box" not in event:
                loads[-1].append(str(event["card"]))
    return loads


@dataclass
class Rig:
    """A running daemon on virtual devices."""

    daemon: Daemon
    shoe: VirtualShoe
    cards: VirtualShoeCards
    panel: MockPanel
    link: HttpTableLink


@contextmanager
def rig(profile: str, rules: dict[str, Any], folder: Path, first_load: list[str]) -> Iterator[Rig]:
    """Start the virtual shoe, the mock panel and the daemon (API on a free port)."""
    shoe = VirtualShoe(first_load, dealer_paced=True, link_path=folder / "virtual-shoe",
                       timing=ShoeTiming(resend_interval_s=0.1, heartbeat_interval_s=0.05))
    panel = MockPanel(SIM_PIN_MAP)
    config = parse_config({
        "table": {"profile": profile, "rules": rules},
        "shoe": {"driver": "shoelink", "port": str(folder / "virtual-shoe")},
        "journal": {"path": str(folder / "journal.sqlite")},
        "api": {"enabled": True, "port": 0},
    }, "<hardware-in-the-loop>")
    daemon = Daemon(config, panel=panel.panel)
    shoe.start()
    link: HttpTableLink | None = None
    try:
        daemon.open()
        daemon.run_in_thread()
        assert daemon.api is not None
        link = HttpTableLink(daemon.api.url)
        cards = VirtualShoeCards(shoe)
        if not cards.wait_delivered(DELIVERY_TIMEOUT_S):
            raise RuntimeError("the virtual shoe's `loaded` never reached the journal")
        yield Rig(daemon, shoe, cards, panel, link)
    finally:
        if link is not None:
            link.close()
        daemon.close()
        shoe.stop()
        panel.close()


def play_scenario(doc: dict[str, Any], folder: Path | None = None) -> HilResult:
    """Play every round through the stack; the result lists every problem found."""
    # Parsed and written back: the events in their one spelling ('10h' -> 'TH').
    rounds = [[event.to_json() for event in events] for events in validate_scenario(doc)]
    result = HilResult(str(doc.get("name", "scenario")))
    loads = shoe_loads(rounds)
    with tempfile.TemporaryDirectory(prefix="tablectl-hil-") as scratch:
        where = folder or Path(scratch)
        with rig(doc["profile"], dict(doc.get("rules") or {}), where, loads[0]) as running:
            _play(running, rounds, loads[1:], doc, result)
            _check_journal(running, result)
    return result


def _play(running: Rig, rounds: list[list[dict[str, Any]]], later_loads: list[list[str]],
          doc: dict[str, Any], result: HilResult) -> None:
    service = running.daemon.service
    assert service is not None
    loads = iter(later_loads)
    for number, events in enumerate(rounds, start=1):
        for position, event in enumerate(events, start=1):
            where = f"round {number}, event {position}"
            _feed(running, event, loads, where, result)
            _check_dealer_lamps(running, where, result)
        played = service.ask(lambda table: table.current_result()) or {"status": "open"}
        result.rounds.append(played)
        expect = doc["rounds"][number - 1].get("expect")
        if isinstance(expect, dict):
            result.differences += compare_round(number, played, expect)
            _check_result_lamps(running, number, expect, result)


def _feed(running: Rig, event: dict[str, Any], loads: Iterator[list[str]], where: str,
          result: HilResult) -> None:
    if "card" in event and "box" not in event:
        running.cards.draw()
        _wait_delivered(running, where)
        return
    if event.get("shoe") == "loaded":
        running.cards.load(next(loads))
        _wait_delivered(running, where)
        return
    due = running.link.due()
    playing = _is_play(event, due)
    blinking = playing and running.panel.is_blinking(event["do"]["box"])
    sent = running.link.send(event, f"hil:{where}")
    if playing and sent.accepted and not blinking:
        result.lamp_problems.append(
            f"{where}: box {event['do']['box']} was up but its lamp was not blinking"
        )


def _is_play(event: dict[str, Any], due: Due) -> bool:
    decision = event.get("do")
    return (isinstance(decision, dict) and decision.get("action") in PLAY_ACTIONS
            and isinstance(decision.get("box"), int) and decision["box"] <= 7
            and due.phase == "playing" and not due.halted)


def _wait_delivered(running: Rig, where: str) -> None:
    if not running.cards.wait_delivered(DELIVERY_TIMEOUT_S):
        raise RuntimeError(f"{where}: the shoe's frame was not acknowledged in "
                           f"{DELIVERY_TIMEOUT_S} s: the daemon did not store it")


def _check_dealer_lamps(running: Rig, where: str, result: HilResult) -> None:
    due = running.link.due()
    panel = running.panel
    wanted = {
        "draw": due.dealer == "draw" and not due.halted,
        "stand": due.dealer == "stand" and not due.halted,
        "alarm": due.halted,
    }
    for lamp, lit in wanted.items():
        if panel.lamp(lamp) != lit:
            result.lamp_problems.append(
                f"{where}: the {lamp} lamp is {'off' if lit else 'lit'} while the table "
                f"is {due.phase}{' (halted)' if due.halted else ''}"
            )


def _check_result_lamps(running: Rig, number: int, expect: dict[str, Any],
                        result: HilResult) -> None:
    """After a settled round each owner's box shows the sign of the expected main net.
    At a net of 0 any result will do: a bonus paid at once can leave a lost hand at 0."""
    if expect.get("status") != "settled":
        return
    for key, net in (expect.get("net") or {}).items():
        owner, _, spot = key.partition("/")
        if spot != "main" or not owner.startswith("box") or not owner[3:].isdigit():
            continue
        box = int(owner[3:])
        shown = running.panel.box_state(box)
        allowed = ({BoxLamp.WON, BoxLamp.BLACKJACK} if net > 0
                   else {BoxLamp.LOST} if net < 0
                   else {BoxLamp.PUSH, BoxLamp.WON, BoxLamp.LOST, BoxLamp.BLACKJACK})
        if shown not in allowed:
            names = "/".join(sorted(lamp.value for lamp in allowed))
            result.lamp_problems.append(
                f"round {number}: box {box} nets {net:+d} but its lamp shows "
                f"{shown.value if shown else 'nothing'}, not {names}"
            )


def _check_journal(running: Rig, result: HilResult) -> None:
    """Every round before the last is in the journal with the result that was
    played (a round is recorded once the next begins)."""
    journal = running.daemon.journal
    assert journal is not None
    recorded = {record.round_no: record.result for record in journal.rounds()}
    for played in result.rounds[:-1]:
        if "round" in played:
            stored = recorded.get(played["round"])
            if stored != played:
                result.journal_problems.append(
                    f"round {played['round']}: the journal holds "
                    f"{'nothing' if stored is None else 'another result'} for it"
                )
