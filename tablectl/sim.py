"""The simulated table of `tablectl run --sim`: the real daemon on hw-sim devices.

A virtual ShoeLink shoe on a pseudo-terminal (the daemon reads it with
pyserial, as it would a real one), a virtual dealer who deals real rounds by
the profile's rules with basic-strategy players and the occasional mistake,
lamps and buttons on gpiozero's mock pins, and a journal in a local file. The
shoe and the dealer run in a process of their own (`tablectl.sim_devices`);
the daemon, its lamps and its journal run in this one.
"""

from __future__ import annotations

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

from firmware_bridge.shoelink.events import ShoeEvent
from journal import JournalError, JournalReader
from tablectl.auth import UsersFile
from tablectl.config import DEFAULT_SIM_JOURNAL, Config, parse_config
from tablectl.daemon import Daemon, DaemonError
from tablectl.devices import Devices, ShoeLinkDevice, ShoeLinkSettings, open_shoelink
from tablectl.display import round_line
from tablectl.links import ServiceForward, views_difference
from tablectl.mqtt.settings import MqttConfig
from tablectl.service import Submission, TableService
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
from tablectl.sim_view import LiveView

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
# How often a wait for the table looks whether the simulation was stopped meanwhile.
STOP_CHECK_S = 0.1
# How long the end of a run waits for the table's loop to show its table (idle by then).
ANSWER_WAIT_S = 10.0


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
        self.forward = ServiceForward()
        # The shoe's frames and the dealer's events, in the devices' order.
        self.order = DevicesOrder(self._submit)
        # What the devices' side reported once the dealer played every round.
        self.done: Done | None = None
        self.error: BaseException | str | None = None
        self._devices: BaseProcess | None = None
        self._pipe: Connection | None = None
        self._link_thread: threading.Thread | None = None
        self._backlog: list[object] = []  # what came before the daemon was open
        self._stop = threading.Event()
        self._view: LiveView | None = None
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
        # The dealer's own table runs ahead of the journal: after a journal fault a
        # table rebuilt from what was stored would not be his. The simulation stops
        # instead and says so; the next run resumes from the journal.
        self.daemon = Daemon(config, Devices(panel=self.panel.panel,
                                             shoe_link=self._open_shoe_link,
                                             fresh_shoe=True),
                             resume_after_journal_fault=False)
        shoe_path = self._start_devices(DeviceOptions(
            options.profile, dict(config.table.rules), options.journal, str(link_path),
            options.rounds, options.seed, options.boxes, options.mistake_rate,
            options.faults, options.pace_s,
        ))
        report = self.daemon.open()
        self._rounds_before = report.rounds_recorded
        service = self._service()
        service.on_change(self._stop_on_journal_fault)
        if options.live_view:
            self._view = LiveView(service, self.out)
            service.on_event(self._view.event_applied)
            self._view.start()
        else:
            service.on_round_recorded(self._print_round)
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

    def _open_shoe_link(self, settings: ShoeLinkSettings,
                        deliver: Callable[[ShoeEvent], None]) -> ShoeLinkDevice:
        """The virtual shoe's reader on its pty, whose frames reach the daemon in the
        devices' order, among the dealer's events."""
        return open_shoelink(settings, self.order.reader_delivers_to(deliver))

    def _submit(self, submission: Submission) -> None:
        self._service().submit(submission)

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
        if self._view is not None:
            self._view.stop()
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
        assert self._pipe is not None
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
        """The dealer is done: wait until the table has stored all he did."""
        forward, order = self.forward, self.order
        while not self._stop.is_set():
            if (order.wait_frames_passed(done.frames_made, STOP_CHECK_S)
                    and forward.wait_answered(STOP_CHECK_S) and self._loop_caught_up()):
                break
        if forward.error is not None:
            self.error = forward.error
        elif not self._stop.is_set():
            self.error = views_difference(
                self._service().ask(lambda table: table.view(), ANSWER_WAIT_S), done.view)
        self.done = done

    def _loop_caught_up(self) -> bool:
        """True once the table's loop has applied everything submitted before."""
        try:
            self._service().ask(lambda _: None, STOP_CHECK_S)
        except TimeoutError:
            return False
        return True

    # -- what the terminal shows ---------------------------------------------------------

    def _print_round(self, result: dict[str, Any]) -> None:
        """One line per round as the journal records it (when the next round begins,
        or at the stop), each round once (on the table's loop)."""
        print(round_line(result), file=self.out, flush=True)


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
