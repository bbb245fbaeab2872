"""Shared by the daemon benchmarks: a simulated table for the latency and memory
benchmarks, the machine and the journal's disk described, percentiles.

The stack is the real one: the virtual ShoeLink shoe on a pseudo-terminal (the
daemon reads it with pyserial), the daemon (table service, journal on disk with
synchronous=FULL, lamps on gpiozero mock pins) and the virtual dealer talking
to the service in-process. Everything runs in one process, so the shoe and the
dealer share the interpreter with the daemon (a harder setting for the daemon's
latencies than `tablectl run --sim`, whose shoe and dealer run in a process of
their own; the throughput benchmark runs that one).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from hwsim.dealer import VirtualDealer, VirtualShoeCards
from hwsim.dealer.shoes import seeded_shoe
from hwsim.panel import MockPanel
from hwsim.shoe import VirtualShoe

from table.profiles import Rules, load_profile
from tablectl.config import Config, parse_config
from tablectl.daemon import Daemon
from tablectl.devices import Devices
from tablectl.links import ServiceLink
from tablectl.service import TableService
from tablectl.sim import SIM_PIN_MAP


def machine_line() -> str:
    """CPU model, cores, Python, kernel and the load average (other work on the machine), in
    one line."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith(("model name", "Model")):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return (f"machine: {model}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}; load average {load}")


def disk_line(path: str | Path) -> str:
    """Which file system and device hold `path` (the longest mount point above it)."""
    real = os.path.realpath(path)
    best = ("?", "?", "?")
    try:
        with open("/proc/mounts", encoding="utf-8") as mounts:
            for line in mounts:
                device, point, fstype = line.split()[:3]
                inside = real == point or real.startswith(point.rstrip("/") + "/")
                if inside and len(point) >= len(best[1]):
                    best = (device, point, fstype)
    except OSError:
        pass
    device, point, fstype = best
    return f"journal: {real} on {point} ({fstype}, {device}), synchronous=FULL"


def percentiles(values_ms: Sequence[float]) -> dict[str, float]:
    cuts = statistics.quantiles(values_ms, n=100, method="inclusive")
    return {"p50": cuts[49], "p90": cuts[89], "p99": cuts[98], "max": max(values_ms),
            "n": float(len(values_ms))}


def figure_line(label: str, values_ms: Sequence[float]) -> str:
    if len(values_ms) < 2:
        return f"  {label:<34} (too few samples: {len(values_ms)})"
    p = percentiles(values_ms)
    return (f"  {label:<34} p50 {p['p50']:7.3f}  p90 {p['p90']:7.3f}  p99 {p['p99']:7.3f}  "
            f"max {p['max']:8.3f} ms  ({len(values_ms)} samples)")


class ThreadCpu:
    """CPU time per thread of this process (Linux /proc), by thread name: looked at
    every `every_s` while running, so threads that end before `stop()` count too."""

    def __init__(self, every_s: float = 0.2) -> None:
        self.every_s = every_s
        self.seconds: dict[str, tuple[float, float]] = {}  # name -> (user, system)
        self._done = threading.Event()
        self._watcher = threading.Thread(target=self._watch, name="cpu-watcher", daemon=True)

    def start(self) -> None:
        self._watcher.start()

    def stop(self) -> dict[str, tuple[float, float]]:
        self._done.set()
        self._watcher.join()
        self._look()
        return dict(self.seconds)

    def _watch(self) -> None:
        while not self._done.wait(self.every_s):
            self._look()

    def _look(self) -> None:
        tick = os.sysconf("SC_CLK_TCK")
        for thread in threading.enumerate():
            if thread.native_id is None or thread is self._watcher:
                continue
            try:
                with open(f"/proc/self/task/{thread.native_id}/stat", encoding="ascii") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue  # ended meanwhile, or not Linux
            self.seconds[thread.name] = (int(fields[11]) / tick, int(fields[12]) / tick)


def thread_cpu_lines(seconds: dict[str, tuple[float, float]], rounds: int) -> list[str]:
    busiest = sorted(seconds.items(), key=lambda item: -sum(item[1]))
    return [f"    {name:<16} {user + system:6.2f} s ({user:.2f} user, {system:.2f} system) "
            f"= {(user + system) / rounds * 1000:5.2f} ms per round"
            for name, (user, system) in busiest if user + system >= 0.01]


def journal_folder(where: str | None) -> tempfile.TemporaryDirectory[str]:
    """A fresh folder for the journal: under `where`, or the system's temporary folder."""
    if where is not None:
        Path(where).mkdir(parents=True, exist_ok=True)
    return tempfile.TemporaryDirectory(prefix="tablectl-bench-", dir=where)


class SimStack:
    """The simulated table of `tablectl run --sim`, built here so that a benchmark can
    watch it: the shoe may stamp each CARD frame's write time, the panel's mock pins
    keep their history, the journal and the service are at hand."""

    def __init__(self, journal: Path, *, profile: str = "casinos-austria", seed: int = 1,
                 boxes: int = 7, mistake_rate: float = 0.02,
                 record_write_times: bool = False) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="tablectl-bench-shoe-")
        link_path = Path(self._folder.name) / "virtual-shoe"
        # Every pin change kept (the simulator keeps the last few): the lamp timings need them.
        self.mock = MockPanel(SIM_PIN_MAP, history=None)
        self.config: Config = parse_config({
            "table": {"profile": profile},
            "shoe": {"driver": "shoelink", "port": str(link_path)},
            "journal": {"path": str(journal)},
            "api": {"enabled": False},
        }, "<benchmark>")
        self.rules: Rules = load_profile(profile)
        self.daemon = Daemon(self.config, Devices(panel=self.mock.panel, fresh_shoe=True))
        self.shoe = VirtualShoe(seeded_shoe(self.rules, seed), dealer_paced=True, seed=seed,
                                link_path=link_path, record_write_times=record_write_times)
        self.seed = seed
        self.boxes = boxes
        self.mistake_rate = mistake_rate
        self.dealer: VirtualDealer | None = None
        self._loop: threading.Thread | None = None

    @property
    def service(self) -> TableService:
        assert self.daemon.service is not None, "start() first"
        return self.daemon.service

    def start(self) -> None:
        self.shoe.start()
        self.daemon.open()
        self._loop = self.daemon.run_in_thread()
        self.dealer = VirtualDealer(
            self.rules, ServiceLink(self.service), VirtualShoeCards(self.shoe), seed=self.seed,
            boxes=self.boxes, mistake_rate=self.mistake_rate, session="bench",
        )

    def play(self, rounds: int) -> None:
        assert self.dealer is not None, "start() first"
        for _ in range(rounds):
            self.dealer.play_round()

    def close(self) -> None:
        self.daemon.close()
        if self._loop is not None:
            self._loop.join(5.0)
        self.shoe.stop()
        self.mock.close()
        self._folder.cleanup()


def stack_parser(description: str, rounds: int) -> argparse.ArgumentParser:
    """The options every simulated-table benchmark takes."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--boxes", type=int, default=7)
    parser.add_argument("--profile", default="casinos-austria")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mistakes", type=float, default=0.02,
                        help="the dealer's mistake rate, as tablectl run --sim (default 0.02)")
    parser.add_argument("--journal-dir", default=None,
                        help="folder for the journal (default: the system's temporary folder)")
    return parser
