"""The simulated table of `tablectl run --sim`: the real daemon on hw-sim devices.

A virtual ShoeLink shoe on a pseudo-terminal (the daemon reads it with
pyserial, as it would a real one), a virtual dealer who deals real rounds by
the profile's rules with basic-strategy players and the occasional mistake,
lamps and buttons on gpiozero's mock pins, and a journal in a local file.
"""

from __future__ import annotations

import logging
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from hwsim.dealer import VirtualDealer
from hwsim.dealer.protocols import DealerError
from hwsim.dealer.shadow import ShadowLink, ShadowShoeCards
from hwsim.dealer.shoes import seeded_shoe
from hwsim.panel import MockPanel
from hwsim.shoe import LineFaults, VirtualShoe

from table.profiles import Rules
from tablectl.config import Config, parse_config
from tablectl.daemon import Daemon
from tablectl.display import render_table, round_line
from tablectl.lamps import lamp_picture
from tablectl.links import ServiceForward
from tablectl.service import TableService

log = logging.getLogger(__name__)

DEFAULT_SIM_JOURNAL = "var/sim-journal.sqlite"
# Seven RGB boxes and the four lamps; the virtual dealer needs no buttons but
# these three (a real header has too few pins for seven boxes and every button).
SIM_PIN_MAP: dict[str, Any] = {
    "pwm": True,
    "boxes": {str(box): {"rgb": [3 * box - 3, 3 * box - 2, 3 * box - 1]} for box in range(1, 8)},
    "lamps": {"draw": 21, "stand": 22, "alarm": 23, "shoe_fault": 24},
    "buttons": {"stand": 25, "void": 26, "new_shoe": 27},
}


@dataclass(frozen=True)
class SimOptions:
    profile: str = "casinos-austria"
    journal: str = DEFAULT_SIM_JOURNAL
    rounds: int | None = None
    seed: int = 1
    boxes: int = 7
    mistake_rate: float = 0.02
    faults: LineFaults | None = None
    pace_s: float = 0.0
    api_port: int = 0
    live_view: bool = False


class SimulatedTable:
    """Build with options, `start()`, then `run()` on the main thread; `stop()` from anywhere."""

    def __init__(self, options: SimOptions, out: TextIO = sys.stdout) -> None:
        self.options = options
        self.out = out
        self._folder = tempfile.TemporaryDirectory(prefix="tablectl-sim-")
        self.shoe: VirtualShoe | None = None
        self.panel: MockPanel | None = None
        self.daemon: Daemon | None = None
        self.dealer: VirtualDealer | None = None
        self.cards: ShadowShoeCards | None = None
        self.forward: ServiceForward | None = None
        self.rounds_played = 0
        self.error: BaseException | None = None
        self._dealer_thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._last_drawn = 0.0
        self._shown_round = 0

    def config(self, shoe_path: str) -> Config:
        options = self.options
        return parse_config({
            "table": {"profile": options.profile},
            "shoe": {"driver": "shoelink", "port": shoe_path},
            "journal": {"path": options.journal},
            "api": {"enabled": True, "port": options.api_port} if options.api_port
            else {"enabled": False},
        }, "<simulated table>")

    def start(self) -> None:
        options = self.options
        link_path = Path(self._folder.name) / "virtual-shoe"
        self.panel = MockPanel(SIM_PIN_MAP)
        # The daemon checks the config and profile before the shoe is made.
        config = self.config(str(link_path))
        self.daemon = Daemon(config, panel=self.panel.panel, fresh_shoe=True)
        rules = self._rules(config)
        self.shoe = VirtualShoe(seeded_shoe(rules, options.seed), dealer_paced=True,
                                faults=options.faults, seed=options.seed, link_path=link_path)
        self.shoe.start()
        report = self.daemon.open()
        service = self._service()
        service.on_change(self._show)
        # The dealer keeps his own copy of the table (rebuilt from the journal as the
        # daemon's was) and never waits for the daemon: each event reaches it in
        # the same order, and the journal stores them in group commits.
        shadow, _, _ = Daemon.replay(service.journal, rules)
        cards = ShadowShoeCards(self.shoe, shadow)
        assert self.daemon.shoe is not None
        self.daemon.shoe.on_handled = cards.handled
        self.forward = ServiceForward(service, lambda: cards.frames_taken)
        self.cards = cards
        self.dealer = VirtualDealer(
            rules, ShadowLink(shadow, cards, self.forward), cards, seed=options.seed,
            boxes=options.boxes, mistake_rate=options.mistake_rate,
        )
        print(f"simulated table: profile {options.profile}, {options.boxes} boxes, journal "
              f"{options.journal} ({report.events_replayed} events replayed), virtual shoe "
              f"{self.shoe.path}", file=self.out, flush=True)
        if self.daemon.api is not None:
            print(f"local API: {self.daemon.api.url}", file=self.out, flush=True)
        self._dealer_thread = threading.Thread(target=self._deal, name="virtual-dealer",
                                               daemon=True)
        self._dealer_thread.start()

    def _rules(self, config: Config) -> Rules:
        from table.profiles import load_profile

        return load_profile(config.table.profile, dict(config.table.rules))

    def _service(self) -> TableService:
        assert self.daemon is not None and self.daemon.service is not None
        return self.daemon.service

    def run(self) -> None:
        assert self.daemon is not None, "start() first"
        try:
            self.daemon.run()
        finally:
            self.close()

    def stop(self) -> None:
        self._stop.set()
        if self.cards is not None:
            self.cards.stop()
        if self.daemon is not None:
            self.daemon.stop()

    def close(self) -> None:
        self._stop.set()
        if self.daemon is not None:
            self.daemon.close()
        if self._dealer_thread is not None:
            self._dealer_thread.join(5.0)
        if self.shoe is not None:
            self.shoe.stop()
        self._folder.cleanup()

    # -- the dealer's thread --------------------------------------------------------------

    def _deal(self) -> None:
        assert self.dealer is not None
        options = self.options
        try:
            while not self._stop.is_set():
                if options.rounds is not None and self.rounds_played >= options.rounds:
                    break
                self.dealer.play_round()
                self.rounds_played += 1
                if options.pace_s:
                    self._stop.wait(options.pace_s)
            self._wait_for_the_table()
        except BaseException as error:  # reported by the command; the table stops
            if not self._stop.is_set():
                self.error = error
                log.exception("the virtual dealer stopped")
        finally:
            self.stop()

    def _wait_for_the_table(self) -> None:
        """The dealer is done: wait until the table has applied all he did."""
        assert self.cards is not None and self.forward is not None
        while not self._stop.is_set():
            if self.cards.wait_taken(0.1) and self.forward.wait_applied(0.1):
                break
        if self.forward.error is not None:
            raise DealerError(self.forward.error)

    # -- what the terminal shows ---------------------------------------------------------

    def _show(self, service: TableService) -> None:
        if self.options.live_view:
            self._draw_live(service)
        else:
            self._print_finished_rounds(service)

    def _draw_live(self, service: TableService) -> None:
        now = time.monotonic()
        if now - self._last_drawn < 0.1:
            return
        self._last_drawn = now
        snapshot = service.snapshot
        picture = lamp_picture(snapshot.view, snapshot.due, shoe_online=snapshot.shoe_online,
                               journal_fault=snapshot.journal_fault is not None)
        stats = {"rounds": self.rounds_played, "events": service.journal.last_committed_seq}
        text = render_table(snapshot.view, snapshot.due, picture, stats)
        self.out.write("\x1b[H\x1b[J" + text + "\n")
        self.out.flush()

    def _print_finished_rounds(self, service: TableService) -> None:
        """A line per round once it is over, in order. Not when the journal records
        it: that waits for the next round, so the last round would never show."""
        table = service.table
        behind = table.rounds_played - self._shown_round
        if behind <= 0 or (behind == 1 and table.state not in ("settled", "void")):
            return
        for result in table.results(since=self._shown_round):
            if result["status"] not in ("settled", "void"):
                break
            print(round_line(result), file=self.out, flush=True)
            self._shown_round = result["round"]


def run_simulation(options: SimOptions, install_signals: Callable[[Callable[[], None]], Any],
                   out: TextIO = sys.stdout) -> int:
    """Start, run until stopped or the rounds are played; 0 on success."""
    sim = SimulatedTable(options, out)
    sim.start()
    install_signals(sim.stop)
    sim.run()
    if sim.error is not None:
        print(f"tablectl: the simulated table stopped: {sim.error}", file=sys.stderr)
        return 1
    print(f"{sim.rounds_played} rounds played; journal {options.journal}", file=out)
    return 0
