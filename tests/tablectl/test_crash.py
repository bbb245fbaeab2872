"""The crash test: SIGKILL the daemon at random moments while a dealer plays on.

The virtual shoe (ShoeLink on a pty) and the virtual dealer live in this
process; the daemon runs as `python -m tablectl run --config ...` in a child
process. A killer thread sends SIGKILL at seeded random moments and starts the
daemon again at once; the dealer keeps dealing through the local API, resending
the same event under the same id while the daemon is down, and the shoe keeps
every unacknowledged frame and sends it again.

Afterwards the journal is checked against the shoe and against a reference run
of the same dealer and shoe played in-process without a daemon and without
kills: every card the shoe dealt is in the journal exactly once and in order,
every round has the result the reference round has, and no round is
half-settled. See docs/crash-safety.md.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hwsim.dealer import (
    InProcessShoe,
    InProcessTable,
    VirtualDealer,
    VirtualShoeCards,
    seeded_shoe,
)
from hwsim.dealer.shoes import derived_seed
from hwsim.shoe import VirtualShoe

from journal import JournalReader, RoundRecord
from table.machine import Table
from table.profiles import Rules, load_profile
from tablectl.auth import UsersFile
from tablectl.links import HttpTableLink

from .helpers import OutputLines, Signal

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


# -- the test --------------------------------------------------------------------------


@pytest.fixture
def journal_folder(tmp_path: Path) -> Iterator[Path]:
    """Where the daemon keeps its journal: in memory (tmpfs) where the machine has one.

    A SIGKILL ends the process, not the machine: what the daemon wrote before it
    died is in the kernel's page cache whether or not it reached the disk, so the
    disk's flush time (most of a commit on a real disk) only slows the test down
    without changing what it checks. The daemon still commits with fsync."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    with tempfile.TemporaryDirectory(prefix="tablectl-crash-", dir=shm) as folder:
        yield Path(folder)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_sigkill_at_random_moments_loses_and_doubles_nothing(
    tmp_path: Path, journal_folder: Path
) -> None:
    mistake_rate = MISTAKE_RATE
    rules = load_profile(PROFILE)
    first_shoe = seeded_shoe(rules, derived_seed(SEED, "first shoe"))
    reference = play_reference(rules, first_shoe, mistake_rate)

    # Woken by the shoe's ACKs, the dealer's answers and the rounds he finished.
    activity = Signal()
    shoe = VirtualShoe(first_shoe, dealer_paced=True, link_path=tmp_path / "shoe",
                       seed=SEED)
    shoe.on_ack = activity.notify
    shoe.start()
    port = free_port()
    journal_path = journal_folder / "journal.sqlite"
    config = write_config(tmp_path, shoe.path, port, journal_path)
    daemon = DaemonProcess(config, tmp_path / "daemon.log")
    link = WatchedLink(f"http://127.0.0.1:{port}", token=dealer_token(tmp_path),
                       changed=activity)
    dealer = VirtualDealer(rules, link, VirtualShoeCards(shoe), seed=SEED, boxes=BOXES,
                           mistake_rate=mistake_rate, session="crash", retry_wait_s=0.01,
                           patience_s=60.0)
    progress = Progress(activity)
    rng = random.Random(derived_seed(SEED, "kills"))
    targets = sorted(rng.sample(range(2, ROUNDS + 1), KILLS))
    killer = Killer(daemon, shoe, link, progress, targets, rng)
    thread = threading.Thread(target=killer.run, name="killer", daemon=True)
    started = time.monotonic()
    daemon.start()
    try:
        assert link.wait_ready(30.0), "the daemon did not start:\n" + daemon.log_tail()
        thread.start()
        # One round more than the test counts: a round is final once the next begins.
        for expected in range(1, ROUNDS + 2):
            number = dealer.play_round()
            assert number == expected, f"the dealer played round {number}, not {expected}"
            progress.finished(number)
        killer.halt()
        thread.join(30.0)
        assert not thread.is_alive(), "the killer did not finish"
        if killer.error is not None:
            raise killer.error
        assert shoe.pending_count == 0, "a shoe frame is still unacknowledged"
        # The last kill may have been a moment ago: SIGTERM once the daemon is up
        # (a daemon still starting has no handler yet and dies of it).
        assert link.wait_ready(30.0), daemon.log_tail()
        daemon.wait_started_up(30.0)
        assert daemon.exited() is None, "the daemon stopped by itself:\n" + daemon.log_tail()
        assert daemon.terminate() == 0, daemon.log_tail()
    finally:
        killer.halt()
        daemon.close()
        link.close()
        shoe.stop()
    elapsed = time.monotonic() - started

    if journal_folder != tmp_path:  # kept with the test's files for a look after a failure
        for stored in journal_folder.iterdir():
            shutil.copy2(stored, tmp_path / stored.name)
    journal = JournalReader(journal_path)
    try:
        events = list(journal.events())
        records = journal.rounds()
    finally:
        journal.close()

    kills = killer.kills
    served = [k for k in kills if k.served]
    report = (
        f"{ROUNDS} rounds, mistake rate {mistake_rate}: {len(kills)} kills "
        f"({len(served)} of a serving daemon, {len(kills) - len(served)} during startup, "
        f"{sum(1 for k in kills if k.frames_unacked)} with a shoe frame unacknowledged, "
        f"{sum(1 for k in kills if k.api_in_flight)} with an API call in flight), "
        f"{daemon.starts} daemon starts, {len(events)} journal events, "
        f"dealer retries {dealer.stats.retries}, duplicates {dealer.stats.duplicates}, "
        f"shoe re-sends {shoe.counters.frames_resent}; {elapsed:.1f} s; the table at the "
        f"restarts: {_phases_at_restarts(rules, events, daemon.log_tail(lines=10**6))}"
    )
    print("\n" + report)

    # (d) The daemon really was killed, at least 50 times while it was serving.
    assert len(served) >= MIN_KILLS, report
    assert all(k.exit_code == -signal.SIGKILL for k in kills), report
    assert daemon.starts == len(kills) + 1, report

    # (a) Every card the shoe dealt is in the journal once, in order, under its frame.
    shoe_events = [e for e in events if e.source == "shoe"]
    sent = [r for r in shoe.records if _shoe_event(r) is not None]
    assert [_frame_number(e.source_ref) for e in shoe_events] == [
        f"0:{r.seq}" for r in sent], report
    assert [e.event for e in shoe_events] == [_shoe_event(r) for r in sent], report
    journal_cards = [e.event["card"] for e in shoe_events if "card" in e.event]
    assert journal_cards == [r.card for r in sent if r.kind == "card"]
    assert journal_cards == reference.drawn, "the shoe dealt other cards than in the reference"
    assert len(journal_cards) == shoe.cards_dealt
    refs = [(e.source, e.source_ref) for e in events if e.source_ref is not None]
    assert len(refs) == len(set(refs)), "an event was stored twice under one reference"

    # Nothing lost, nothing doubled, nothing else: the journal holds exactly the
    # events of the uninterrupted run, in its order.
    _assert_same_events([e.event for e in events], reference.events)

    # (b) Every round is in the journal with the reference round's result.
    numbers = [r.round_no for r in records]
    assert numbers[:ROUNDS] == list(range(1, ROUNDS + 1)), report
    assert numbers[ROUNDS:] in ([], [ROUNDS + 1]), report
    for record in records:
        _assert_same_result(record, reference.results[record.round_no])

    # (c) No round is half-settled: each record is a finished round, it spans the
    # events right after the previous one, the events in its span replay to exactly
    # the recorded result, and nothing was journalled after the last round.
    _assert_rounds_whole(rules, events, records, reference)


def _shoe_event(record: Any) -> dict[str, Any] | None:
    """The table event a shoe frame becomes in the journal (None: not journalled)."""
    if record.kind == "card":
        return {"card": record.card}
    if record.kind == "unreadable":
        return {"flag": "UNREADABLE_CARD"}
    if record.event in ("loaded", "cut_card"):
        return {"shoe": record.event}
    return None


def _phases_at_restarts(rules: Rules, events: list[Any], log_text: str) -> str:
    """How the journal left the table at each restart (from the daemon's start-up
    lines), for the figures: the kills fell in which phases."""
    replayed = Counter(int(n) for n in re.findall(r"(\d+) events replayed", log_text)[1:])
    phases: Counter[str] = Counter()
    table = Table(rules)
    for count in range(len(events) + 1):
        if count:
            table.apply(events[count - 1].event)
        if replayed[count]:
            phases[table.state] += replayed[count]
    return ", ".join(f"{phase} {n}" for phase, n in phases.most_common())


def _frame_number(ref: str | None) -> str:
    """A shoe frame's journal reference without what follows its `EPOCH:SEQ`."""
    return (ref or "").partition("@")[0]


def _as_stored(result: dict[str, Any]) -> dict[str, Any]:
    stored: dict[str, Any] = json.loads(json.dumps(result))
    return stored


def _assert_same_result(record: RoundRecord, expected: dict[str, Any]) -> None:
    expected = _as_stored(expected)
    got = record.result
    for key in KEY_FIELDS:
        assert got.get(key) == expected.get(key), (
            f"round {record.round_no}: {key} is {got.get(key)!r} in the journal, "
            f"{expected.get(key)!r} in the reference run")
    assert got == expected, f"round {record.round_no}: the journal's result differs"
    assert record.status == expected["status"]
    assert list(record.flags) == expected["flags"]


def _assert_same_events(got: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    if got == expected:
        return
    at = next((i for i, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b),
              min(len(got), len(expected)))
    raise AssertionError(
        f"the journal's events part from the reference run at event {at + 1} "
        f"({len(got)} events against {len(expected)}):\n"
        f"  journal:   {got[max(0, at - 3):at + 4]}\n"
        f"  reference: {expected[max(0, at - 3):at + 4]}")


def _assert_rounds_whole(rules: Rules, events: list[Any], records: list[RoundRecord],
                         reference: Reference) -> None:
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    table = Table(rules)
    end = 0
    for record in records:
        assert record.status in ROUND_OVER, f"round {record.round_no} is {record.status}"
        assert record.start_seq == end + 1, (
            f"round {record.round_no} starts at seq {record.start_seq}, not right after "
            f"round {record.round_no - 1} (seq {end})")
        assert record.end_seq >= record.start_seq
        for stored in events[record.start_seq - 1:record.end_seq]:
            table.apply(stored.event)
        assert table.state in ROUND_OVER, (
            f"round {record.round_no}: its events leave the table {table.state}")
        assert _as_stored(table.current_result() or {}) == record.result, (
            f"round {record.round_no}: its events replay to another result than recorded")
        end = record.end_seq
    # After the last record: nothing, or the whole of the next round, ended as in
    # the reference (it is recorded when a round after it begins).
    after = events[end:]
    if after:
        for stored in after:
            table.apply(stored.event)
        result = table.current_result()
        assert table.state in ROUND_OVER and result is not None, (
            f"the events after the last recorded round leave the table {table.state}")
        assert result["round"] == records[-1].round_no + 1
        assert _as_stored(result) == _as_stored(reference.results[result["round"]])
