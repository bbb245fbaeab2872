"""The simulated table's devices, in a process of their own.

`tablectl run --sim` runs the daemon in one process and the simulated devices
(the virtual ShoeLink shoe on its pseudo-terminal and the virtual dealer with
his own copy of the table) in a second one, as a real shoe and dealer are
outside the controller: neither waits for the other's Python. They meet at the
devices' real interfaces: the shoe's bytes on the pty, and the dealer's bets
and decisions, which a real dealer and his players give at the buttons and
betting terminals, here on a pipe.

On the pipe, devices → daemon:

Messages travel in lists, in order:

- `Ready(shoe_path)` once the shoe's pty is there (the daemon may open it);
- a number N: the shoe has made its Nth reliable frame (sent before the frame's
  bytes leave on the pty);
- `Forwarded(event, ref, expected)`: an event the dealer sent, with the answer
  his own table gave. The daemon applies events and frames in the order they
  were announced here (`tablectl.sim_order`);
- `Done(...)` when he has played every round asked for (what the shoe made,
  how many events he forwarded, his table as it stands, his counts);
- `Failed(reason)` when he cannot go on.

daemon → devices: `Go()` once the daemon has replayed the journal (the dealer
rebuilds his table from it too), `Stop()` to end.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from hwsim.dealer import DealerStats, VirtualDealer
from hwsim.dealer.shadow import ShadowLink, ShadowShoeCards
from hwsim.shoe import LineFaults, SentRecord, VirtualShoe

from journal import JournalReader
from table.machine import Table
from table.profiles import load_profile
from table.views import Outcome, TableView
from tablectl.sim_resume import resumed_shoe

log = logging.getLogger(__name__)

# The simulated shoe keeps up to this many unacknowledged frames (ShoeLink asks
# for at least 64): a slow fsync now and then does not stop the dealer flat out.
SHOE_WINDOW = 1024


@dataclass(frozen=True)
class DeviceOptions:
    profile: str
    rules: dict[str, Any]
    journal: str
    link_path: str
    rounds: int | None
    seed: int
    boxes: int
    mistake_rate: float
    faults: LineFaults | None
    pace_s: float


@dataclass(frozen=True)
class Ready:
    shoe_path: str


@dataclass(frozen=True)
class Go:
    journal_seq: int  # the journal's events as the daemon replayed them, up to here


@dataclass(frozen=True)
class Stop:
    pass


@dataclass(frozen=True)
class Forwarded:
    event: dict[str, Any]
    ref: str
    expected: Outcome


@dataclass(frozen=True)
class Done:
    rounds_played: int
    frames_made: int
    cards_dealt: int
    forwarded: int
    view: TableView
    result: dict[str, Any] | None
    stats: DealerStats
    cpu_s: float  # this process's CPU time, user and system
    gate_stops: int  # times the shoe's window of unacknowledged frames was full


@dataclass(frozen=True)
class Failed:
    reason: str


def replayed_table(journal_path: str, profile: str, rules: dict[str, Any],
                   upto_seq: int) -> Table:
    """The table as the journal's events up to `upto_seq` leave it: the daemon
    rebuilt its own the same way, and may have stored more since."""
    from tablectl.daemon import Daemon

    with JournalReader(journal_path) as journal:
        table, _, _ = Daemon.replay(journal, load_profile(profile, rules), upto_seq)
    return table


def run_devices(options: DeviceOptions, pipe: Connection) -> None:
    """The devices process: the entry point the daemon's side starts."""
    # Ctrl-C reaches the whole process group: the daemon's side ends the devices.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    rules = load_profile(options.profile, options.rules)
    # A restart goes on with what is left of the shoe in play (`tablectl.sim_resume`).
    resumed = resumed_shoe(options.journal, rules, options.seed)
    if resumed.in_play:
        log.info("the shoe in play goes on: %d cards dealt, %d left%s", resumed.dealt,
                 len(resumed.cards), "" if resumed.exact else " (reshuffled)")
    shoe = VirtualShoe(resumed.cards, dealer_paced=True,
                       faults=options.faults, seed=options.seed, link_path=options.link_path,
                       coalesce_writes=True, buffer_size=SHOE_WINDOW,
                       announce_loaded=not resumed.in_play)
    sender = _Sender(pipe)
    shoe.on_frame = sender.frame_made  # before the first frame, the shoe's "loaded"
    shoe.start()
    try:
        sender.send(Ready(str(shoe.path)))
        go = _receive(pipe)
        if not isinstance(go, Go):
            return
        devices = _Devices(options, shoe, sender, go.journal_seq)
        devices.start()
        while not isinstance(_receive(pipe), Stop):
            pass
        devices.stop()
    finally:
        sender.close()
        shoe.stop()


def _receive(pipe: Connection) -> Go | Stop:
    try:
        message = pipe.recv()
    except (EOFError, OSError):  # the daemon's side is gone
        return Stop()
    return message if isinstance(message, Go | Stop) else Stop()


class _Sender:
    """The pipe to the daemon, shared by the shoe's thread and the dealer's.

    Messages go in lists: a thread of its own sends whatever has gathered while
    it sent the last list (one pickle and one write instead of one per
    message). A frame announced late is no harm: the daemon holds a frame
    that came over the pty until its announcement is read."""

    def __init__(self, pipe: Connection) -> None:
        self.pipe = pipe
        self.frames_made = 0
        self._gathered: list[object] = []
        self._wanted = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._send_gathered, name="devices-sender",
                                        daemon=True)
        self._thread.start()

    def frame_made(self, record: SentRecord) -> None:
        with self._wanted:
            self.frames_made += 1
            self._gathered.append(self.frames_made)
            self._wanted.notify()

    def send(self, message: object) -> None:
        with self._wanted:
            self._gathered.append(message)
            self._wanted.notify()

    def close(self) -> None:
        """Send what is gathered, then stop."""
        with self._wanted:
            self._closed = True
            self._wanted.notify()
        self._thread.join(5.0)

    def _send_gathered(self) -> None:
        while True:
            with self._wanted:
                while not self._gathered and not self._closed:
                    self._wanted.wait()
                gathered, self._gathered = self._gathered, []
                closed = self._closed
            if gathered:
                try:
                    self.pipe.send(gathered)
                except OSError:  # the daemon's side is gone
                    return
            if closed:
                return


class _Devices:
    """The dealer's thread and his way to the daemon (the pipe)."""

    def __init__(self, options: DeviceOptions, shoe: VirtualShoe, sender: _Sender,
                 journal_seq: int) -> None:
        self.options = options
        self.shoe = shoe
        self.sender = sender
        self._stop = threading.Event()
        self.forwarded = 0
        table = replayed_table(options.journal, options.profile, options.rules, journal_seq)
        self.cards = ShadowShoeCards(shoe, table)
        self.dealer = VirtualDealer(
            load_profile(options.profile, options.rules),
            ShadowLink(table, self.cards, self._forward), self.cards,
            seed=options.seed, boxes=options.boxes, mistake_rate=options.mistake_rate,
        )
        self._thread = threading.Thread(target=self._deal, name="virtual-dealer", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.cards.stop()
        self._thread.join(5.0)

    def _forward(self, event: dict[str, Any], ref: str, after_frames: int,
                 expected: Outcome) -> None:
        # `after_frames` need not travel: the frames before it were announced before it.
        self.forwarded += 1
        self.sender.send(Forwarded(event, ref, expected))

    def _deal(self) -> None:
        options = self.options
        played = 0
        try:
            while not self._stop.is_set():
                if options.rounds is not None and played >= options.rounds:
                    break
                self.dealer.play_round()
                played += 1
                if options.pace_s:
                    self._stop.wait(options.pace_s)
            if self._stop.is_set():
                return
            self.cards.mirror()
            table = self.cards.table
            times = os.times()
            self.sender.send(Done(played, len(self.shoe.records), self.shoe.cards_dealt,
                            self.forwarded, table.view(), table.current_result(),
                            self.dealer.stats, times.user + times.system,
                            self.shoe.counters.gate_stops))
        except BaseException as error:  # reported by the daemon's side; the table stops
            if not self._stop.is_set():
                # The daemon's side says it, in one line, when the run ends; the
                # traceback only at debug level.
                log.debug("the virtual dealer stopped: %s", error, exc_info=True)
                try:
                    self.sender.send(Failed(str(error) or type(error).__name__))
                except OSError:
                    pass


__all__ = ["DeviceOptions", "Done", "Failed", "Forwarded", "Go", "Ready", "Stop",
           "run_devices"]
