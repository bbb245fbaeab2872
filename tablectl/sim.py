"""The simulated table of `tablectl run --sim`: the real daemon on hw-sim devices.

A virtual ShoeLink shoe on a pseudo-terminal (the daemon reads it with
pyserial, as it would a real one), a virtual dealer who deals real rounds by
the profile's rules with basic-strategy players and the occasional mistake,
lamps and buttons on gpiozero's mock pins, and a journal in a local file. The
shoe and the dealer run in a process of their own (`tablectl.sim_devices`);
the daemon, its lamps and its journal run in this one.
"""

from __future__ import annotations

import collections
import logging
import multiprocessing
import os
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, TextIO

from hwsim.panel import MockPanel
from hwsim.shoe import LineFaults

from journal import JournalError, JournalReader
from table.views import Outcome
from tablectl.auth import UsersFile
from tablectl.config import DEFAULT_SIM_JOURNAL, Config, parse_config
from tablectl.daemon import Daemon, DaemonError
from tablectl.display import dealer_instruction, render_table, round_line
from tablectl.lamps import lamp_picture
from tablectl.links import ServiceForward
from tablectl.mqtt.settings import MqttConfig
from tablectl.service import TableService
from tablectl.shoe_feed import ShoeFeed
from tablectl.sim_cleanup import FOLDER_PREFIX, signal_name, sweep_stale_folders
from tablectl.sim_devices import (
    DeviceOptions,
    Done,
    Failed,
    Forwarded,
    Go,
    Ready,
    Stop,
    run_devices,
)
from tablectl.sim_order import DevicesOrder

log = logging.getLogger(__name__)

# Seven RGB boxes and the four lamps; the virtual dealer needs no buttons but
# these three (a real header has too few pins for seven boxes and every button).
SIM_PIN_MAP: dict[str, Any] = {
    "pwm": True,
    "boxes": {str(box): {"rgb": [3 * box - 3, 3 * box - 2, 3 * box - 1]} for box in range(1, 8)},
    "lamps": {"draw": 21, "stand": 22, "alarm": 23, "shoe_fault": 24},
    "buttons": {"stand": 25, "void": 26, "new_shoe": 27},
}
DEVICES_START_S = 60.0  # a slow Pi importing the simulator for the first time
# The live view shows each change of the table for this long (the dealer's DRAW,
# then STAND or BUST, are each seen); behind by more frames than FRAMES_BEHIND
# (a table flat out) it jumps to the newest.
FRAME_S = 0.08
FRAMES_BEHIND = 64


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
    # The local API and pit display: None off, 0 any free port.
    api_port: int | None = None
    live_view: bool = False
    # The users file of the API (default: sim-users.json beside the journal).
    users: str | None = None
    # The broker the table publishes to (docs/floor.md); None: off.
    mqtt: MqttConfig | None = None

    @property
    def users_path(self) -> str:
        return self.users or str(Path(self.journal).parent / "sim-users.json")


class SimulatedTable:
    """Build with options, `start()`, then `run()` on the main thread; `stop()` from anywhere.

    The daemon runs here; the virtual shoe and dealer run in a process of their
    own (`tablectl.sim_devices`), started by `start()`."""

    def __init__(self, options: SimOptions, out: TextIO = sys.stdout) -> None:
        self.options = options
        self.out = out
        sweep_stale_folders()
        self._folder = tempfile.TemporaryDirectory(prefix=f"{FOLDER_PREFIX}{os.getpid()}-")
        self.panel: MockPanel | None = None
        self.daemon: Daemon | None = None
        self.forward: ServiceForward | None = None
        self.order: DevicesOrder | None = None
        # What the devices' side reported once the dealer played every round.
        self.done: Done | None = None
        self.frames_taken = 0  # the shoe's frames the table has applied
        self.error: BaseException | str | None = None
        self._devices: BaseProcess | None = None
        self._pipe: Connection | None = None
        self._link_thread: threading.Thread | None = None
        self._backlog: list[object] = []  # what came before the daemon was open
        self._stop = threading.Event()
        self._frames: collections.deque[str] = collections.deque()
        self._frames_ready = threading.Condition()
        self._last_key: tuple[Any, ...] = ()
        self._drawer: threading.Thread | None = None
        self._rounds_before = 0

    @property
    def rounds_played(self) -> int:
        """Rounds the dealer has played to the end (all of them once he is done)."""
        if self.done is not None:
            return self.done.rounds_played
        if self.daemon is None or self.daemon.service is None:
            return 0
        return self.daemon.service.table.rounds_played

    def config(self, shoe_path: str) -> Config:
        options = self.options
        return replace(parse_config({
            "table": {"profile": options.profile},
            "shoe": {"driver": "shoelink", "port": shoe_path},
            "journal": {"path": options.journal},
            "api": {"enabled": True, "port": options.api_port, "users": options.users_path}
            if options.api_port is not None else {"enabled": False},
        }, "<simulated table>"), mqtt=options.mqtt)

    def start(self) -> None:
        """Start the devices' process and open the daemon. On failure (a journal
        that is not this table's, say) the devices' process is ended again."""
        try:
            self._start()
        except BaseException:
            self._end_devices()
            if self.daemon is not None:
                self.daemon.close()
            self._folder.cleanup()
            raise

    def _start(self) -> None:
        options = self.options
        link_path = Path(self._folder.name) / "virtual-shoe"
        self.panel = MockPanel(SIM_PIN_MAP)
        # The daemon checks the config and profile before the devices are made.
        config = self.config(str(link_path))
        self.daemon = Daemon(config, panel=self.panel.panel, fresh_shoe=True)
        shoe_path = self._start_devices(DeviceOptions(
            options.profile, dict(config.table.rules), options.journal, str(link_path),
            options.rounds, options.seed, options.boxes, options.mistake_rate,
            options.faults, options.pace_s,
        ))
        self.daemon.prepare_shoe = self._prepare_shoe
        report = self.daemon.open()
        self._rounds_before = report.rounds_recorded
        service = self._service()
        # The dealer's own table runs ahead of the journal: after a journal fault a
        # table rebuilt from what was stored would not be his. The simulation stops
        # instead and says so; the next run resumes from the journal.
        service.retry = None
        service.on_change(self._stop_on_journal_fault)
        if options.live_view:
            service.on_event(self._frame)
            self._drawer = threading.Thread(target=self._draw_frames, name="sim-view",
                                            daemon=True)
            self._drawer.start()
        else:
            service.on_round_recorded(self._print_round)
        self.forward = ServiceForward(service)
        print(f"simulated table: profile {options.profile}, {options.boxes} boxes, journal "
              f"{options.journal} ({report.events_replayed} events replayed), virtual shoe "
              f"{shoe_path}", file=self.out, flush=True)
        if self.daemon.api is not None:
            print(f"pit display and local API: {self.daemon.api.url}/", file=self.out,
                  flush=True)
            print(pit_login(UsersFile(options.users_path)), file=self.out, flush=True)
        assert self._pipe is not None
        # The dealer rebuilds his own table from the journal as the daemon replayed it
        # (its loop has not run yet: nothing more is stored).
        self._pipe.send(Go(service.journal.last_committed_seq))
        self._link_thread = threading.Thread(target=self._listen, name="sim-devices",
                                             daemon=True)
        self._link_thread.start()

    def _start_devices(self, options: DeviceOptions) -> str:
        """Start the devices' process; returns the shoe's pty once it is there."""
        # Spawned, not forked: the daemon's side may already run threads.
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        ready: Ready | None = None
        self._pipe = ours
        self._devices = context.Process(target=run_devices, args=(options, theirs),
                                        name="tablectl-sim-devices", daemon=True)
        self._devices.start()
        theirs.close()
        deadline = time.monotonic() + DEVICES_START_S
        while True:
            if not ours.poll(max(0.0, deadline - time.monotonic())):
                raise DaemonError(f"the simulated devices did not start within "
                                  f"{DEVICES_START_S:g} s")
            try:
                messages = ours.recv()
            except (EOFError, OSError):
                raise DaemonError(f"{self._devices_ended()} while starting; start again "
                                  "(the journal is as it was)") from None
            # The shoe may announce its first frames before it says it is ready.
            for message in messages:
                if isinstance(message, Ready):
                    ready = message
                else:
                    self._backlog.append(message)
            if ready is not None:
                return ready.shoe_path

    def _stop_on_journal_fault(self, service: TableService) -> None:
        if service.journal_fault is not None and self.error is None:
            self.error = service.journal_fault
            self.stop()

    def rounds_stored(self) -> int:
        """Rounds this run recorded in the journal (what is stored, not what the
        dealer played), read from the file once the daemon closed it."""
        try:
            with JournalReader(self.options.journal) as journal:
                return len(journal.rounds()) - self._rounds_before
        except JournalError:
            return 0

    def _devices_ended(self) -> str:
        """The devices' process named, and how it ended (once it has)."""
        process = self._devices
        if process is None:
            return "the simulated devices' process ended"
        process.join(1.0)
        code = process.exitcode
        if code is None:
            how = "stopped answering"
        elif code < 0:
            how = f"was killed by {signal_name(-code)}"
        else:
            how = f"exited with status {code}"
        return f"the simulated devices' process ({process.name}, pid {process.pid}) {how}"

    def _prepare_shoe(self, feed: ShoeFeed) -> None:
        """Before the shoe's reader starts: its frames go in the devices' order."""
        self.order = DevicesOrder(feed.service.submit)
        feed.route = self.order.frame_arrived
        feed.on_handled = self._frame_handled

    def _frame_handled(self, seq: int) -> None:
        self.frames_taken += 1  # on the table's loop, one call per shoe frame, in order

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
        if self.daemon is not None:
            self.daemon.stop()

    def close(self) -> None:
        self._stop.set()
        if self.daemon is not None:
            self.daemon.close()
        self._end_devices()
        if self._link_thread is not None:
            self._link_thread.join(5.0)
        with self._frames_ready:
            self._frames_ready.notify_all()
        if self._drawer is not None:
            self._drawer.join(2.0)
        self._folder.cleanup()

    def _end_devices(self) -> None:
        if self._pipe is not None:
            try:
                self._pipe.send(Stop())
            except OSError:
                pass  # already gone
        if self._devices is not None:
            self._devices.join(10.0)
            if self._devices.is_alive():
                self._devices.terminate()
                self._devices.join(5.0)

    # -- the devices' side, on the sim-devices thread ---------------------------------------

    def _listen(self) -> None:
        assert self._pipe is not None and self.forward is not None and self.order is not None
        pipe, forward, order = self._pipe, self.forward, self.order
        messages, self._backlog = self._backlog, []
        try:
            while not self._stop.is_set():
                if not messages:
                    try:
                        messages = pipe.recv()
                    except (EOFError, OSError):
                        if not self._stop.is_set():
                            self.error = f"{self._devices_ended()} unexpectedly"
                        break
                taken, messages = messages, []
                for message in taken:
                    if isinstance(message, int):
                        order.frame_announced(message)
                    elif isinstance(message, Forwarded):
                        order.event(forward.submission(message.event, message.ref,
                                                       message.expected))
                    elif isinstance(message, Done):
                        self._wait_for_the_table(message)
                        return
                    elif isinstance(message, Failed):
                        self.error = f"the virtual dealer stopped: {message.reason}"
                        return
        except BaseException as error:  # a difference between the two tables
            if not self._stop.is_set():
                self.error = error
                # Said once, in one line, when the run ends (run_simulation); the
                # traceback only at debug level (-v).
                log.debug("the simulated table stopped: %s", error, exc_info=True)
        finally:
            self.stop()

    def _wait_for_the_table(self, done: Done) -> None:
        """The dealer is done: wait until the table has applied all he did."""
        assert self.forward is not None
        forward = self.forward
        while not self._stop.is_set():
            if self.frames_taken >= done.frames_made and forward.wait_applied(0.1):
                break
            time.sleep(0.002)
        if forward.error is not None:
            self.error = forward.error
        self.done = done

    # -- what the terminal shows ---------------------------------------------------------

    def _print_round(self, result: dict[str, Any]) -> None:
        """One line per round as the journal records it (when the next round begins,
        or at the stop), each round once (on the table's loop)."""
        print(round_line(result), file=self.out, flush=True)

    def _frame(self, event: dict[str, Any], outcome: Outcome) -> None:
        """On the table's loop after each event: the table as it now stands, kept for
        the drawing thread as a frame of its own when the phase, the box that is up,
        the dealer's hand or instruction, or the flags changed; else it updates the
        newest frame not yet drawn."""
        service = self._service()
        table = service.table
        view, due = table.view(), table.due()
        picture = lamp_picture(view, due, shoe_online=service.status.shoe_online,
                               journal_fault=service.journal_fault is not None)
        net = None
        if view.phase in ("settled", "void"):
            result = table.current_result()
            net = result.get("net", {}) if result is not None else None
        inventory = table.inventory
        shoe = {"online": service.status.shoe_online, "size": inventory.size,
                "dealt": inventory.dealt, "cut_card_out": table.new_shoe_due}
        stats = {"rounds": table.rounds_played, "events": service.events_applied}
        text = render_table(view, due, picture, stats, net=net, shoe=shoe, legend=True)
        key = (view.round, view.phase, due.box, due.hand, dealer_instruction(view, picture),
               len(view.dealer) if view.phase == "dealer" else 0, view.halted, view.flags)
        with self._frames_ready:
            if key == self._last_key and self._frames:
                self._frames[-1] = text
            else:
                self._frames.append(text)
            self._last_key = key
            self._frames_ready.notify()

    def _draw_frames(self) -> None:
        """Draws each kept frame for FRAME_S, so every phase of a round is seen."""
        while not self._stop.is_set():
            with self._frames_ready:
                while not self._frames and not self._stop.is_set():
                    self._frames_ready.wait()
                if self._stop.is_set():  # the table as it ended stays on the screen
                    if self._frames:
                        self.out.write("\x1b[H\x1b[J" + self._frames[-1] + "\n")
                        self.out.flush()
                    return
                if len(self._frames) > FRAMES_BEHIND:  # flat out: the newest only
                    newest = self._frames[-1]
                    self._frames.clear()
                    self._frames.append(newest)
                text = self._frames.popleft()
            self.out.write("\x1b[H\x1b[J" + text + "\n")
            self.out.flush()
            self._stop.wait(FRAME_S)


def pit_login(users: UsersFile) -> str:
    """How to log in to the pit display: on the first start a pit user with a new
    password, shown only now; later, how to make one."""
    try:
        known = users.load()
    except Exception as error:  # a damaged users file: say so, the table still runs
        return f"the users file {users.path} cannot be read ({error})"
    if any(entry.get("role") == "pit" for entry in known.values()):
        return (f"log in as a pit user of {users.path} (a new one: tablectl users add NAME "
                f"--role pit --users {users.path})")
    password = secrets.token_urlsafe(12)
    users.add_person("pit", "pit", password)
    return (f"pit login (shown only now): user pit, password {password} -- another one: "
            f"tablectl users add NAME --role pit --users {users.path}")


def run_simulation(options: SimOptions, install_signals: Callable[[Callable[[], None]], Any],
                   out: TextIO = sys.stdout) -> int:
    """Start, run until stopped or the rounds are played; 0 on success."""
    sim = SimulatedTable(options, out)
    sim.start()
    install_signals(sim.stop)
    sim.run()
    stored = sim.rounds_stored()
    if sim.error is not None:
        print(f"tablectl: the simulated table stopped: {sim.error}; {stored} rounds "
              f"stored in {options.journal}", file=sys.stderr)
        return 1
    print(f"{stored} rounds played; journal {options.journal}", file=out)
    return 0
