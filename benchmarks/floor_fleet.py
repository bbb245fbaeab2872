"""The simulated tables of the floor benchmark (benchmarks/floor_mqtt.py): journals
written by worker processes, five tables a process, each replaying the rounds of a
real `tablectl run --sim` session with the real publisher woken after each commit;
and what the benchmark reads off the machine and its figures."""

from __future__ import annotations

import logging
import multiprocessing
import os
import random
import subprocess
import sys
import threading
import time
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from typing import Any

from journal import Journal, JournalReader
from tablectl.mqtt.publisher import Publisher
from tablectl.mqtt.settings import from_options

Round = tuple[list[tuple[dict[str, Any], str, str | None]], dict[str, Any]]
TABLES_PER_WORKER = 5


def session(folder: Path, rounds: int) -> list[Round]:
    """The rounds of a real simulated session: each round's events and result."""
    path = folder / "session.sqlite"
    subprocess.run([sys.executable, "-m", "tablectl", "run", "--sim", "--rounds", str(rounds),
                    "--journal", str(path), "--view", "rounds", "--api-port", "off",
                    "--faults", "none"], check=True, capture_output=True)
    journal = JournalReader(path)
    played = [([(e.event, e.source, e.source_ref) for e in journal.round_events(r.round_no)],
               r.result) for r in journal.rounds()]
    journal.close()
    return played


def play(table: str, path: Path, rounds: list[Round], url: str, rate: float | None,
         go: EventType, stop: EventType, publish: bool, paced: bool) -> None:
    """One table at `rate` events/s (None: flat out) until `stop`; then (with the broker
    there) it keeps publishing until its outbox is empty.

    `paced`: as a live table, an event a commit, evenly spaced, each table from its
    own round of the session and its own moment; else a round a commit, every table
    in step with the others (the same rounds at the same moments: all the tables'
    rounds reach the floor together)."""
    journal = Journal(path, profile="casinos-austria")
    publisher = Publisher(from_options(url, table), path) if publish else None
    if publisher is not None:
        publisher.start()
    chance = random.Random(table)
    number = len(journal.rounds())
    start_round = chance.randrange(len(rounds)) if paced else 0
    go.wait()
    if paced and rate is not None:
        stop.wait(chance.uniform(0, 1 / rate))
    started, written = time.monotonic(), 0
    while not stop.is_set():
        events, result = rounds[(start_round + number) % len(rounds)]
        number += 1
        for index, (event, source, ref) in enumerate(events):
            if paced and stop.is_set():
                break  # a round in play when the table stops, as at a real table
            journal.append(event, source, None if ref is None else f"{number}:{ref}")
            if index == len(events) - 1:
                journal.record_round(number, {**result, "round": number})
            if paced or index == len(events) - 1:
                journal.commit()
                if publisher is not None:
                    publisher.wake()
                written += len(events) if not paced else 1
                if rate is not None:
                    ahead = written / rate - (time.monotonic() - started)
                    if ahead > 0:
                        stop.wait(ahead)
    if publisher is not None:
        # A table that stops leaves what it has not sent for its next start; here it
        # sends everything first, so that the floor can have it all.
        last = journal.last_committed_seq
        deadline = time.monotonic() + 300
        while (publisher.mark.events < last and publisher.connected.is_set()
               and time.monotonic() < deadline):
            time.sleep(0.05)
        publisher.stop(linger_s=5.0)
    journal.close()


def quiet() -> None:
    """The broker goes away on purpose here: its warnings are not news."""
    logging.getLogger("tablectl.mqtt").setLevel(logging.ERROR)


def worker(tables: list[str], folder: str, rounds: list[Round], url: str, rate: float | None,
           go: EventType, stop: EventType, publish: bool, paced: bool, idle: bool) -> None:
    quiet()
    if idle:
        # Tables on their own machines: here they take only the CPU that the broker
        # and the floor leave (the threads started below inherit the policy).
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    threads = [threading.Thread(target=play, args=(t, Path(folder) / f"{t}.sqlite", rounds,
                                                   url, rate, go, stop, publish, paced))
               for t in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


class Fleet:
    """Tables in worker processes."""

    def __init__(self, names: list[str], folder: Path, rounds: list[Round], url: str,
                 rate: float | None, publish: bool = True, paced: bool = False,
                 idle: bool = False) -> None:
        context = multiprocessing.get_context("spawn")
        self.go, self.stop = context.Event(), context.Event()
        self.processes = [
            context.Process(target=worker, args=(names[i:i + TABLES_PER_WORKER], str(folder),
                                                 rounds, url, rate, self.go, self.stop,
                                                 publish, paced, idle))
            for i in range(0, len(names), TABLES_PER_WORKER)]
        for process in self.processes:
            process.start()
        self.names, self.folder = names, folder

    def run(self, seconds: float, before_stop: Any = None) -> None:
        self.go.set()
        time.sleep(seconds)  # the benchmark's own duration, not a wait for another thread
        if before_stop is not None:
            before_stop()
        self.stop.set()
        for process in self.processes:
            process.join(120)

    def journal_events(self) -> int:
        total = 0
        for name in self.names:
            journal = JournalReader(self.folder / f"{name}.sqlite")
            total += journal.last_committed_seq
            journal.close()
        return total


class Machine:
    """How busy the machine was from here to `report()`: both cores, all processes."""

    def __init__(self) -> None:
        self._start = _cpu_times()

    def report(self) -> str:
        busy, total = (a - b for a, b in zip(_cpu_times(), self._start, strict=True))
        one, five, _ = os.getloadavg()
        return (f"machine: cores {100 * busy / max(total, 1):.0f}% busy, load average "
                f"{one:.1f} (5 min {five:.1f})")


def _cpu_times() -> tuple[int, int]:
    """(busy, total) jiffies of all cores since boot, from /proc/stat."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return sum(fields) - idle, sum(fields)


def wait_until(condition: Any, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def paho_table(port: int, name: str, rate: float, go: EventType, stop: EventType) -> None:
    """A bare paho client in a table's place: QoS 1 messages with their send time, at
    `rate` a second from its own moment; nothing of tablectl."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=name,
                         protocol=mqtt.MQTTv5)
    client.max_inflight_messages_set(0)
    client.connect("127.0.0.1", port)
    client.loop_start()
    go.wait()
    stop.wait(random.Random(name).uniform(0, 1 / rate))
    started, sent = time.monotonic(), 0
    while not stop.is_set():
        client.publish(f"bare/{name}", repr(time.time()).encode(), qos=1)
        sent += 1
        stop.wait(max(0.0, sent / rate - (time.monotonic() - started)))
    client.disconnect()
    client.loop_stop()


def paho_worker(port: int, names: list[str], rate: float, go: EventType,
                stop: EventType) -> None:
    threads = [threading.Thread(target=paho_table, args=(port, n, rate, go, stop))
               for n in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def paho_alone(port: int, tables: int, rate: float, seconds: float) -> list[float]:
    """What paho alone gets through this machine now: `tables` bare clients in
    processes of five, one subscriber; the latencies from send to its receipt."""
    import paho.mqtt.client as mqtt

    latencies: list[float] = []
    subscriber = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bare-floor",
                             protocol=mqtt.MQTTv5)
    subscriber.on_message = lambda client, userdata, message: latencies.append(
        time.time() - float(message.payload))
    subscriber.connect("127.0.0.1", port)
    subscriber.subscribe("bare/#", qos=1)
    subscriber.loop_start()
    context = multiprocessing.get_context("spawn")
    go, stop = context.Event(), context.Event()
    names = [f"bare-{n:03d}" for n in range(tables)]
    processes = [context.Process(target=paho_worker, args=(
        port, names[i:i + TABLES_PER_WORKER], rate, go, stop))
        for i in range(0, tables, TABLES_PER_WORKER)]
    for process in processes:
        process.start()
    time.sleep(3.0)  # the clients connect; the benchmark's own pause
    go.set()
    time.sleep(seconds)  # the benchmark's own duration
    measured = list(latencies)
    stop.set()
    for process in processes:
        process.join(60)
    subscriber.disconnect()
    subscriber.loop_stop()
    return measured
