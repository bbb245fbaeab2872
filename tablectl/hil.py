"""Hardware-in-the-loop: play a `table-scenario/1` file through the whole stack.

The scenario's cards leave a virtual ShoeLink shoe on a pseudo-terminal (the
daemon reads them with pyserial and acknowledges each once it is journaled);
bets, decisions and pit resolutions go through the local HTTP API; the lamps
are real gpiozero devices on mock pins and are read back from the pins. Each
round's result is compared with its `expect`, the lamp pins are checked at
key moments, and the journal must hold what was played.

A card with a `box` (a camera's sighting) and the `cut_card` notice cannot
come out of a ShoeLink shoe: they go through the API like the other events.

With a camera (`camera=`) the daemon also films a simulated felt
(`hwsim.camera.felt`): rendered frames go through the real recognizer,
tracker and fusion inside the daemon.

- `"witness"`: the shoe deals as above, and the harness lays each card on
  the felt where the table put it (`due.card_for` before the draw; the dealer
  area for a card the table has no place for); the camera must agree.
- `"only"`: no shoe (`[shoe] driver = "none"`); each scenario card is laid on
  the felt where the table expects it (a card with a `box` on that box) and
  the camera deals it. `{"shoe": "loaded"}` goes through the API, as the
  dealer's `new_shoe` button would send it.

After each card the harness waits until the camera has reported it and the
fusion has judged it (or the round is halted) before the next event. `lay`
replaces the harness's dealer (a card on the wrong box, two cards swapped, a
card that never left the shoe); the felt is swept between rounds.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hwsim.dealer import VirtualShoeCards
from hwsim.panel import MockPanel
from hwsim.shoe import ShoeTiming, VirtualShoe

from firmware_bridge.panel import BoxLamp
from table.conformance import compare_round
from table.scenario import validate_scenario
from table.views import Due
from tablectl.config import parse_config
from tablectl.daemon import Daemon
from tablectl.devices import Devices
from tablectl.hil_felt import (
    CAMERA_FPS,
    FELT_CARD_WIDTH,
    FELT_SEED,
    FeltCard,
    FeltWatch,
    Lay,
    lay_where_due,
)
from tablectl.links import HttpTableLink
from tablectl.sim import SIM_PIN_MAP

if TYPE_CHECKING:
    from hwsim.camera.felt import Felt

# Importable from here, where a hardware-in-the-loop run is played.
__all__ = ["CAMERA_MODES", "FELT_SEED", "FeltCard", "HilResult", "Lay", "Rig",
           "lay_where_due", "play_scenario", "rig"]

DELIVERY_TIMEOUT_S = 10.0
PLAY_ACTIONS = ("hit", "stand", "double", "split", "surrender", "buy", "twist")

CAMERA_MODES = ("witness", "only")


@dataclass
class HilResult:
    name: str
    rounds: list[dict[str, Any]] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    lamp_problems: list[str] = field(default_factory=list)
    journal_problems: list[str] = field(default_factory=list)
    # (event, open flags) after every event that left the alarm lamp lit
    alarms: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    # with a camera: the flags the fusion raised, frames read and rendered
    camera: dict[str, Any] = field(default_factory=dict)

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
    shoe: VirtualShoe | None  # None for a camera-only table
    cards: VirtualShoeCards | None
    panel: MockPanel
    link: HttpTableLink
    camera: str | None = None
    felt: FeltWatch | None = None


@contextmanager
def rig(profile: str, rules: dict[str, Any], folder: Path, first_load: list[str],
        camera: str | None = None, *, lay: Lay = lay_where_due,
        felt_seed: int = FELT_SEED, camera_deck: str | None = None,
        camera_settings: Mapping[str, Any] | None = None) -> Iterator[Rig]:
    """Start the virtual shoe, the mock panel and the daemon (API on a free port);
    with `camera` also the simulated felt and its camera inside the daemon, drawing the
    cards of `camera_deck` (a drawn design, or a deck of real artwork from the corpus);
    `camera_settings` are further `[camera]` keys (e.g. `learn_house_deck`)."""
    if camera is not None and camera not in CAMERA_MODES:
        raise ValueError(f"camera must be one of {', '.join(CAMERA_MODES)}, got {camera!r}")
    shoe: VirtualShoe | None = None
    raw: dict[str, Any] = {
        "table": {"profile": profile, "rules": rules},
        "shoe": {"driver": "none"},
        "journal": {"path": str(folder / "journal.sqlite")},
        "api": {"enabled": True, "port": 0},
    }
    if camera != "only":
        shoe = VirtualShoe(first_load, dealer_paced=True, link_path=folder / "virtual-shoe",
                           timing=ShoeTiming(resend_interval_s=0.1, heartbeat_interval_s=0.05))
        raw["shoe"] = {"driver": "shoelink", "port": str(folder / "virtual-shoe")}
    felt: Felt | None = None
    felt_camera: Any = None
    if camera is not None:
        # OpenCV and the renderer only for a run with a camera.
        from hwsim.camera.felt import Felt, FeltCamera
        from hwsim.camera.table_frames import DEFAULT_DESIGN

        felt = Felt()
        felt_camera = FeltCamera(felt, seed=felt_seed, card_width=FELT_CARD_WIDTH,
                                 design=camera_deck or DEFAULT_DESIGN)
        layout_file = folder / "felt-layout.json"
        layout_file.write_text(json.dumps(felt_camera.layout()), encoding="utf-8")
        # The daemon reads `felt_camera`; the section gives the layout file and the rate.
        raw["camera"] = {"source": "simulated-felt", "layout": str(layout_file),
                         "fps": CAMERA_FPS, **(camera_settings or {})}
    panel = MockPanel(SIM_PIN_MAP)
    config = parse_config(raw, "<hardware-in-the-loop>")
    daemon = Daemon(config, Devices(panel=panel.panel, camera=felt_camera))
    if shoe is not None:
        shoe.start()
    link: HttpTableLink | None = None
    try:
        daemon.open()
        daemon.run_in_thread()
        assert daemon.api is not None and daemon.service is not None
        link = HttpTableLink(daemon.api.url, token=daemon.auth.issue_token("hil", "pit"))
        cards: VirtualShoeCards | None = None
        if shoe is not None:
            cards = VirtualShoeCards(shoe)
            if not cards.wait_delivered(DELIVERY_TIMEOUT_S):
                raise RuntimeError("the virtual shoe's `loaded` never reached the journal")
        watch = None
        if felt is not None:
            watch = FeltWatch(felt, daemon.camera, daemon.service, lay)
        yield Rig(daemon, shoe, cards, panel, link, camera, watch)
    finally:
        if link is not None:
            link.close()
        daemon.close()
        if shoe is not None:
            shoe.stop()
        panel.close()


def play_scenario(doc: dict[str, Any], folder: Path | None = None, camera: str | None = None,
                  *, lay: Lay = lay_where_due, felt_seed: int = FELT_SEED,
                  camera_deck: str | None = None,
                  camera_settings: Mapping[str, Any] | None = None,
                  inspect: Callable[[Rig], None] | None = None) -> HilResult:
    """Play every round through the stack; the result lists every problem found.
    `camera`: None (the shoe alone), "witness" (shoe and camera) or "only" (the
    camera alone); `lay` lays each card on the felt, `felt_seed` draws it, with the
    cards of `camera_deck` (default: the simulator's drawn design), under the further
    `[camera]` keys of `camera_settings`. `inspect` is called with the rig after the
    last round, while the daemon still runs."""
    # Parsed and written back: the events in their one spelling ('10h' -> 'TH').
    rounds = [[event.to_json() for event in events] for events in validate_scenario(doc)]
    result = HilResult(str(doc.get("name", "scenario")))
    loads = shoe_loads(rounds)
    with tempfile.TemporaryDirectory(prefix="tablectl-hil-") as scratch:
        where = folder or Path(scratch)
        with rig(doc["profile"], dict(doc.get("rules") or {}), where, loads[0], camera,
                 lay=lay, felt_seed=felt_seed, camera_deck=camera_deck,
                 camera_settings=camera_settings) as running:
            _play(running, rounds, loads[1:], doc, result)
            _check_journal(running, result)
            if inspect is not None:
                inspect(running)
            if running.felt is not None:
                result.camera = running.felt.stats()
    return result


def _play(running: Rig, rounds: list[list[dict[str, Any]]], later_loads: list[list[str]],
          doc: dict[str, Any], result: HilResult) -> None:
    service = running.daemon.service
    assert service is not None
    loads = iter(later_loads)
    for number, events in enumerate(rounds, start=1):
        if running.felt is not None:
            running.felt.sweep(f"before round {number}")
        for position, event in enumerate(events, start=1):
            where = f"round {number}, event {position}"
            _feed(running, event, loads, where, result)
            due = _check_dealer_lamps(running, where, result)
            if running.panel.lamp("alarm"):
                result.alarms.append((where, due.open_flags))
        played = service.ask(lambda table: table.current_result()) or {"status": "open"}
        result.rounds.append(played)
        expect = doc["rounds"][number - 1].get("expect")
        if isinstance(expect, dict):
            result.differences += compare_round(number, played, expect)
            _check_result_lamps(running, number, expect, result)


def _feed(running: Rig, event: dict[str, Any], loads: Iterator[list[str]], where: str,
          result: HilResult) -> None:
    felt = running.felt
    if "card" in event and (running.camera == "only" or "box" not in event):
        place = event.get("box") or running.link.due().card_for or "dealer"
        card = FeltCard(str(event["card"]), place, where)
        if running.cards is not None:  # the shoe deals it
            running.cards.draw()
            _wait_delivered(running, where)
        if felt is not None:
            try:
                felt.lay(card)
            except ValueError as error:  # a place the felt does not have
                raise RuntimeError(f"{where}: {card.card} cannot be laid: {error}") from error
        return
    if event.get("shoe") == "loaded" and running.cards is not None:
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
    if felt is not None:
        if "card" in event:  # a card a terminal reported where it lies: on the felt too
            felt.lay(FeltCard(str(event["card"]), event["box"], where))
        else:  # a resolution may free cards the camera held or has still to judge
            felt.settle(where, new_frame=False)


def _is_play(event: dict[str, Any], due: Due) -> bool:
    decision = event.get("do")
    return (isinstance(decision, dict) and decision.get("action") in PLAY_ACTIONS
            and isinstance(decision.get("box"), int) and decision["box"] <= 7
            and due.phase == "playing" and not due.halted)


def _wait_delivered(running: Rig, where: str) -> None:
    assert running.cards is not None
    if not running.cards.wait_delivered(DELIVERY_TIMEOUT_S):
        raise RuntimeError(f"{where}: the shoe's frame was not acknowledged in "
                           f"{DELIVERY_TIMEOUT_S} s: the daemon did not store it")


def _check_dealer_lamps(running: Rig, where: str, result: HilResult) -> Due:
    due = running.link.due()
    panel = running.panel
    wanted = {
        "draw": due.dealer == "draw" and not due.halted,
        "stand": (due.dealer == "stand" or due.phase == "settled") and not due.halted,
        "alarm": due.halted,
    }
    for lamp, lit in wanted.items():
        if panel.lamp(lamp) != lit:
            result.lamp_problems.append(
                f"{where}: the {lamp} lamp is {'off' if lit else 'lit'} while the table "
                f"is {due.phase}{' (halted)' if due.halted else ''}"
            )
    return due


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
