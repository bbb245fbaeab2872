"""The crash test's rig: the daemon in a child process, the killer that SIGKILLs it at
seeded random moments and starts it again, the dealer's link that notes each answer,
and the reference run of the same dealer and shoe in-process (tests/tablectl/
test_crash.py)."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hwsim.dealer import (
    InProcessShoe,
    InProcessTable,
    VirtualDealer,
)
from hwsim.shoe import VirtualShoe

from table.machine import Table
from table.profiles import Rules
from tablectl.auth import UsersFile
from tablectl.links import HttpTableLink
from tests.tablectl.helpers import OutputLines, Signal

PROFILE = "casinos-austria"
ROUNDS = int(os.environ.get("TABLECTL_CRASH_ROUNDS", "1000"))
KILLS = int(os.environ.get("TABLECTL_CRASH_KILLS", "60"))
MIN_KILLS = min(50, KILLS)
SEED = int(os.environ.get("TABLECTL_CRASH_SEED", "4"))
# The dealer's mistakes (a stand on a draw, a card after the settlement) halt
# rounds for the pit to resolve; they depend only on the seed and the round, so
# the reference run makes the same ones.
MISTAKE_RATE = float(os.environ.get("TABLECTL_CRASH_MISTAKES", "0.02"))
BOXES = 7
ROUND_OVER = ("settled", "void")
# The parts of a round's result the comparison insists on (the whole result is
# compared too; these are named in the failure message).
KEY_FIELDS = ("status", "net", "settlement", "dealer", "flags")


# -- the reference: the same dealer and shoe, in-process, never interrupted ----------


@dataclass
class Reference:
    results: dict[int, dict[str, Any]]  # by round number, as the run ended
    drawn: list[str]  # every card drawn, in order
    events: list[dict[str, Any]]  # every event the table was given, in order


def play_reference(rules: Rules, cards: list[str], mistake_rate: float) -> Reference:
    table = Table(rules)
    link = InProcessTable(table)
    link.feed({"shoe": "loaded"})  # the virtual shoe reports its first load too
    shoe = InProcessShoe(link, cards)
    dealer = VirtualDealer(rules, link, shoe, seed=SEED, boxes=BOXES,
                           mistake_rate=mistake_rate, session="reference")
    numbers = dealer.play(ROUNDS + 1)
    assert numbers == list(range(1, ROUNDS + 2))
    results = {result["round"]: result for result in table.results()}
    return Reference(results, list(shoe.drawn), list(link.events))


# -- the daemon in a child process, and the killer ------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def write_config(folder: Path, shoe_path: str, port: int, journal: Path) -> Path:
    config = folder / "table.toml"
    config.write_text(
        f'[table]\nprofile = "{PROFILE}"\n\n'
        f'[shoe]\ndriver = "shoelink"\nport = "{shoe_path}"\n\n'
        f'[journal]\npath = "{journal}"\n\n'
        f'[api]\nhost = "127.0.0.1"\nport = {port}\nusers = "{folder / "users.json"}"\n',
        encoding="utf-8",
    )
    return config


def dealer_token(folder: Path) -> str:
    """The virtual dealer's token: he resolves his own mistakes, as the pit would."""
    return UsersFile(folder / "users.json").add_device("dealer", role="pit")


class DaemonProcess:
    """`tablectl run --config` as a child process; its output goes to one log file.
    Once `close()`d it starts no more: no daemon outlives the test (a stray one
    would go on opening its shoe path, and a pty is soon handed out again)."""

    def __init__(self, config: Path, log_path: Path) -> None:
        self.config = config
        self.log_path = log_path
        self.env = dict(os.environ, GPIOZERO_PIN_FACTORY="mock", PYTHONUNBUFFERED="1")
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self._lock = threading.Lock()
        self._closed = False
        self.output: OutputLines

    def start(self) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError("the test is over: no more daemons")
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tablectl", "run", "--config", str(self.config)],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=self.env,
                cwd=self.config.parent,
            )
            assert self.process.stdout is not None
            # Read as it comes; each start's output after the last in the log file.
            self.output = OutputLines(self.process.stdout, copy_to=self.log_path)
            self.starts += 1

    def started_up(self) -> bool:
        """The daemon started last has said where its API listens (its last words
        before it takes SIGTERM as a stop)."""
        return any("local API on" in line for line in list(self.output.lines))

    def wait_started_up(self, timeout_s: float) -> None:
        """Until the daemon started last said so, or its output ended."""
        self.output.wait_until(lambda: self.started_up() or self.output.ended,
                               "the daemon's start-up", timeout_s)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self.process is not None and self.process.poll() is None:
                self.process.kill()
                self.process.wait(10)

    def kill(self) -> int | None:
        """SIGKILL; the exit status (None if it had already stopped by itself)."""
        assert self.process is not None
        already = self.process.poll()
        if already is None:
            self.process.send_signal(signal.SIGKILL)
        code = self.process.wait(10)
        return None if already is not None else code

    def exited(self) -> int | None:
        return None if self.process is None else self.process.poll()

    def terminate(self, timeout_s: float = 10.0) -> int:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout_s)

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


class WatchedLink(HttpTableLink):
    """The dealer's `HttpTableLink`, telling the killer whether a call is in flight
    (and waking `changed` with each answer)."""

    def __init__(self, url: str, token: str, changed: Signal) -> None:
        super().__init__(url, timeout_s=30.0, token=token)
        self.in_flight = 0
        self.answers = 0
        self.changed = changed

    def _request(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        self.in_flight += 1
        try:
            answer = super()._request(method, path, body)
        finally:
            self.in_flight -= 1
        self.answers += 1
        self.changed.notify()
        return answer


class Progress:
    """The rounds the dealer has finished, and when (for the killer's timing)."""

    def __init__(self, changed: Signal) -> None:
        self.done = 0
        self._finished: list[float] = [time.monotonic()]
        self.changed = changed

    def finished(self, number: int) -> None:
        self.done = number
        self._finished.append(time.monotonic())
        self.changed.notify()

    def typical_round_s(self) -> float:
        recent = self._finished[-21:]
        if len(recent) < 2:
            return 0.1
        return (recent[-1] - recent[0]) / (len(recent) - 1)


@dataclass
class Kill:
    round: int  # the round in play
    served: bool  # the daemon had answered the dealer or acknowledged a frame since its start
    frames_unacked: int  # shoe frames not yet acknowledged
    api_in_flight: bool  # a call of the dealer's was waiting for its answer
    exit_code: int


class Killer:
    """Kills the daemon as the dealer reaches seeded random rounds, at a random moment
    of the round (anywhere from its first bet to a little after its end) once the
    daemon has answered a call or acknowledged a frame, and starts it again at once;
    now and then it kills the new daemon again while it starts."""

    AGAIN_CHANCE = 0.15
    STARTUP_S = 0.8

    def __init__(self, daemon: DaemonProcess, shoe: VirtualShoe, link: WatchedLink,
                 progress: Progress, targets: list[int], rng: random.Random) -> None:
        self.daemon = daemon
        self.shoe = shoe
        self.link = link
        self.progress = progress
        self.targets = targets
        self.rng = rng
        self.kills: list[Kill] = []
        self.error: BaseException | None = None
        self.stop = threading.Event()
        self._seen = (0, 0)

    def halt(self) -> None:
        self.stop.set()
        self.progress.changed.notify()

    def _wait(self, condition: Callable[[], bool]) -> bool:
        """Until `condition` holds (True) or the test stops the killer (False); woken
        by the rounds finished, the dealer's answers, the shoe's ACKs and the stop."""
        self.progress.changed.wait(lambda: condition() or self.stop.is_set(), 3600.0)
        return not self.stop.is_set()

    def run(self) -> None:
        try:
            self._seen = self._activity()
            for target in self.targets:
                if not self._wait(lambda t=target: self.progress.done >= t - 1):
                    return
                # The kill's moment in the round, at random: a wait that is the test's own.
                if self.stop.wait(self.rng.uniform(0.0, 1.2 * self.progress.typical_round_s())):
                    return
                # Not before the daemon is at work.
                if not self._wait(lambda: self._activity() != self._seen):
                    return
                self._kill_and_restart()
                if self.rng.random() < self.AGAIN_CHANCE:
                    if self.stop.wait(self.rng.uniform(0.0, self.STARTUP_S)):
                        return
                    self._kill_and_restart()
        except BaseException as error:  # reported by the test
            self.error = error

    def _activity(self) -> tuple[int, int]:
        return self.link.answers, self.shoe.counters.acks

    def _kill_and_restart(self) -> None:
        served = self._activity() != self._seen
        in_flight = self.link.in_flight > 0
        unacked = self.shoe.pending_count
        code = self.daemon.kill()
        if code is None:
            raise AssertionError("the daemon had stopped before it was killed:\n"
                                 + self.daemon.log_tail())
        self.kills.append(Kill(self.progress.done + 1, served, unacked, in_flight, code))
        self.daemon.start()
        self._seen = self._activity()
