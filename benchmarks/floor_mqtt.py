"""The floor on one Mosquitto: many tables publishing, one floor storing.

Tables here are journals written by worker processes (5 tables a process), each
replaying the rounds of a real simulated session (`tablectl run --sim`) into its
own journal, one commit a round, with the real publisher (tablectl/mqtt) woken
after each commit; the floor (tablectl/mqtt/floor.py) runs in this process with
its SQLite store. Prints:

- live: messages/s through broker and floor, and publish-to-floor latency (from
  the publisher's `sent` to the floor's commit) p50/p99, at a steady rate and
  flat out;
- outage: the tables write on while the broker is stopped for --outage seconds;
  then how fast the backlog drains into the floor (all tables, and one alone);
- kills: --kills SIGKILLs of the broker while tables publish; lost and duplicated
  events in the floor's store against the journals;
- round rate of `tablectl run --sim` with the broker down against MQTT off.

Targets: 0 lost and 0 duplicated over 20 kills; p99 <= 50 ms with 50 tables;
drain >= 5,000 events/s; round rate with the broker down within 5% of MQTT off.

    .venv/bin/python benchmarks/floor_mqtt.py [--tables 50] [--outage 60] [--kills 20]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from floor_fleet import (  # noqa: E402
    TABLES_PER_WORKER,
    Fleet,
    Machine,
    Round,
    paho_alone,
    percentile,
    quiet,
    session,
    wait_until,
)

from journal import Journal, JournalReader  # noqa: E402
from tablectl.mqtt.floor import Floor  # noqa: E402
from tablectl.mqtt.floor_store import FloorStore  # noqa: E402
from tablectl.mqtt.publisher import Publisher  # noqa: E402
from tablectl.mqtt.settings import from_options, parse_url  # noqa: E402
from tests.tablectl.mqtt.broker import Mosquitto  # noqa: E402


def live(folder: Path, broker: Mosquitto, rounds: list[Round], tables: int,
         rate: float | None, seconds: float, paced: bool = True, idle: bool = False) -> None:
    store = FloorStore(folder / "floor.sqlite")
    floor = Floor(parse_url(broker.url), store, client_id=f"floor-{folder.name}", measure=True)
    floor.start()
    names = [f"bj-{n:03d}" for n in range(1, tables + 1)]
    fleet = Fleet(names, folder, rounds, broker.url, rate, paced=paced and rate is not None,
                  idle=idle)
    started = time.monotonic()
    machine = Machine()
    cut: dict[str, int] = {}

    def steady_until_now() -> None:
        cut["latencies"] = len(floor.latencies or [])
        cut["received"] = len(floor.receive_latencies)

    # Latency while every table plays: the end, when all the tables stop at once (50
    # processes' threads, connections and interpreters closing), is not a floor's.
    fleet.run(seconds, before_stop=steady_until_now)
    load = machine.report()
    total = fleet.journal_events()
    done = wait_until(lambda: floor.stored_events >= total, 120)
    elapsed = time.monotonic() - started
    latencies = (floor.latencies or [])[:cut["latencies"]]
    received = floor.receive_latencies[:cut["received"]]
    label = "flat out" if rate is None else f"{rate:g} events/s a table" + (
        ", an event a commit" if paced else ", a round a commit, all tables in step")
    label += f", {floor.duplicates} repeats ignored" + (", tables at idle priority" if idle else "")
    print(f"live, {tables} tables, {label}: {total} events in {elapsed:.1f} s, "
          f"{floor.stored_events / elapsed:,.0f} events/s into the floor "
          f"({'all' if done else 'NOT all'} stored); publish-to-floor p50 "
          f"{percentile(latencies, 0.5) * 1000:.1f} ms, p99 "
          f"{percentile(latencies, 0.99) * 1000:.1f} ms (to the floor's paho p50 "
          f"{percentile(received, 0.5) * 1000:.1f} ms, p99 "
          f"{percentile(received, 0.99) * 1000:.1f} ms); with the stop of all tables "
          f"p99 {percentile(floor.latencies or [], 0.99) * 1000:.1f} ms; {load}")
    floor.stop()
    store.close()


def drain_worker(tables: list[str], folder: str, url: str, go: EventType, stop: EventType,
                 done: Any) -> None:
    """Each table's next start: its publisher drains what its journal holds."""
    quiet()
    journals = [Journal(Path(folder) / f"{t}.sqlite") for t in tables]
    publishers = [Publisher(from_options(url, t), j.path)
                  for t, j in zip(tables, journals, strict=True)]
    last = [j.last_committed_seq for j in journals]
    done.put("ready")
    go.wait()
    for publisher in publishers:
        publisher.start()
    pending = set(range(len(tables)))
    while pending and not stop.is_set():
        for index in list(pending):
            if publishers[index].mark.events >= last[index]:
                done.put(time.time())
                pending.discard(index)
        time.sleep(0.005)
    stop.wait()  # serving the floor's resend requests until it has everything
    for publisher in publishers:
        publisher.stop()
    for journal in journals:
        journal.close()


def drain(folder: Path, names: list[str], url: str, floor: Floor, total: int) -> str:
    """Start every table's publisher (five tables a process) on its journal; how fast
    the backlog reaches the broker and the floor."""
    context = multiprocessing.get_context("spawn")
    go, stop, done = context.Event(), context.Event(), context.Queue()
    processes = [context.Process(target=drain_worker, args=(
        names[i:i + TABLES_PER_WORKER], str(folder), url, go, stop, done))
        for i in range(0, len(names), TABLES_PER_WORKER)]
    for process in processes:
        process.start()
    for _ in processes:  # the workers import and open their journals before the clock starts
        assert done.get(timeout=120) == "ready"
    before = floor.stored_events
    started = time.time()
    go.set()
    stored = wait_until(lambda: floor.stored_events - before >= total, 300)
    to_floor = time.time() - started
    acked = [done.get(timeout=60) for _ in names]
    to_broker = max(acked) - started
    stop.set()
    for process in processes:
        process.join(60)
    return (f"acknowledged by the broker in {to_broker:.1f} s ({total / to_broker:,.0f} "
            f"events/s), in the floor in {to_floor:.1f} s ({total / to_floor:,.0f} events/s)"
            + ("" if stored else " (NOT all in the floor)"))


def bare(broker: Mosquitto, tables: int, rate: float, seconds: float) -> None:
    machine = Machine()
    latencies = paho_alone(broker.port, tables, rate, seconds)
    print(f"paho alone, {tables} bare clients at {rate:g} messages/s each (nothing of "
          f"tablectl, nothing stored): {len(latencies)} messages, send to receipt p50 "
          f"{percentile(latencies, 0.5) * 1000:.1f} ms, p99 "
          f"{percentile(latencies, 0.99) * 1000:.1f} ms; {machine.report()}")


def outage(folder: Path, broker: Mosquitto, rounds: list[Round], tables: int, rate: float,
           seconds: float) -> None:
    store = FloorStore(folder / "floor.sqlite")
    floor = Floor(parse_url(broker.url), store, client_id=f"floor-{folder.name}")
    floor.start()
    broker.stop()
    names = [f"bj-{n:03d}" for n in range(1, tables + 1)]
    fleet = Fleet(names, folder, rounds, broker.url, rate)
    fleet.run(seconds)  # the tables write on while the broker is away; then they stop
    total = fleet.journal_events()
    broker.start()
    print(f"outage of {seconds:.0f} s, {tables} tables at {rate:.0f} events/s each: {total} "
          f"events waited in the journals; at the tables' next start "
          + drain(folder, names, broker.url, floor, total))
    floor.stop()
    store.close()


def one_table_drain(folder: Path, broker: Mosquitto, rounds: list[Round], events: int) -> None:
    journal = Journal(folder / "alone.sqlite", profile="casinos-austria")
    number = 0
    while journal.last_committed_seq < events:
        round_events, result = rounds[number % len(rounds)]
        number += 1
        for event, source, ref in round_events:
            journal.append(event, source, None if ref is None else f"{number}:{ref}")
        journal.record_round(number, {**result, "round": number})
        journal.commit()
    total = journal.last_committed_seq
    journal.close()
    store = FloorStore(folder / "floor-alone.sqlite")
    floor = Floor(parse_url(broker.url), store, client_id="floor-alone")
    floor.start()
    print(f"one table's outbox of {total} events: "
          + drain(folder, ["alone"], broker.url, floor, total))
    floor.stop()
    store.close()


def kills(folder: Path, broker: Mosquitto, rounds: list[Round], tables: int, rate: float,
          count: int) -> None:
    store = FloorStore(folder / "floor.sqlite")
    floor = Floor(parse_url(broker.url), store, client_id=f"floor-{folder.name}")
    floor.start()
    names = [f"bj-{n:03d}" for n in range(1, tables + 1)]
    fleet = Fleet(names, folder, rounds, broker.url, rate)
    fleet.go.set()
    for _ in range(count):
        time.sleep(0.5)  # the tables publish for a while between two kills
        broker.kill()
        broker.start()
    fleet.stop.set()
    for process in fleet.processes:
        process.join(120)
    # What was not acknowledged when a table stopped goes out at its next start.
    journals = [Journal(folder / f"{n}.sqlite") for n in names]
    publishers = [Publisher(from_options(broker.url, n), j.path)
                  for n, j in zip(names, journals, strict=True)]
    for publisher in publishers:
        publisher.start()
    total = sum(j.last_committed_seq for j in journals)
    wait_until(lambda: floor.stored_events >= total, 120)
    time.sleep(1.0)  # late repeats, to count them too
    lost = duplicated = 0
    for name, journal in zip(names, journals, strict=True):
        expected = {e.seq: e.event for e in journal.events()}
        rows = store.db.execute("SELECT seq, event FROM events WHERE table_id = ?",
                                (name,)).fetchall()
        seqs = [seq for seq, _ in rows]
        duplicated += len(seqs) - len(set(seqs))
        lost += len(set(expected) - set(seqs))
    print(f"{count} broker kills, {tables} tables at {rate:.0f} events/s each: {total} "
          f"events, {lost} lost, {duplicated} duplicated in the floor's store "
          f"({floor.duplicates} repeats received and ignored)")
    for publisher in publishers:
        publisher.stop()
    for journal in journals:
        journal.close()
    floor.stop()
    store.close()


def round_rate(folder: Path, rounds: int, repeats: int) -> None:
    """`tablectl run --sim` flat out: MQTT off, and publishing to a broker that is down."""
    from tests.tablectl.mqtt.broker import free_port

    dead = f"mqtt://127.0.0.1:{free_port()}"
    rates: dict[str, list[float]] = {"off": [], "down": []}
    for attempt in range(repeats):
        for mode in ("off", "down"):
            path = folder / f"rate-{mode}-{attempt}.sqlite"
            extra = ["--mqtt", dead, "--table", "bj-1"] if mode == "down" else []
            subprocess.run([sys.executable, "-m", "tablectl", "run", "--sim", "--rounds",
                            str(rounds), "--journal", str(path), "--view", "rounds",
                            "--api-port", "off", "--faults", "none", *extra],
                           check=True, capture_output=True)
            journal = JournalReader(path)
            times = journal.event_times(1, journal.last_committed_seq)
            journal.close()
            rates[mode].append(rounds / (max(times.values()) - min(times.values())))
    off, down = statistics.median(rates["off"]), statistics.median(rates["down"])
    print(f"round rate, {rounds} rounds x {repeats}: MQTT off {off:.0f} rounds/s, broker "
          f"down {down:.0f} rounds/s ({(down / off - 1) * 100:+.1f}%)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--rate", type=float, default=40.0, help="events/s a table, steady")
    parser.add_argument("--seconds", type=float, default=20.0, help="each live run")
    parser.add_argument("--outage", type=float, default=60.0)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--tables-at-idle", action="store_true",
                        help="live, lockstep and flat tables at idle CPU priority, as if on "
                             "their own machines: they get only what the broker and the floor "
                             "leave of the cores")
    parser.add_argument("--only", help="paho,live,lockstep,flat,outage,alone,kills,rate "
                                       "(default all)")
    args = parser.parse_args()
    quiet()
    parts = set((args.only or "paho,live,lockstep,flat,outage,alone,kills,rate").split(","))
    print(f"{os.cpu_count()} cores; mosquitto on loopback; SQLite journals and floor store "
          "in a temporary folder")
    with tempfile.TemporaryDirectory(prefix="floor-bench-") as temp:
        root = Path(temp)
        rounds = session(root, 200)
        for name in ("paho", "live", "lockstep", "flat", "outage", "alone", "kills"):
            if name not in parts:
                continue
            folder = root / name
            folder.mkdir()
            broker = Mosquitto(folder)
            broker.start()
            try:
                if name == "paho":
                    bare(broker, args.tables, args.rate, args.seconds)
                elif name == "live":
                    live(folder, broker, rounds, args.tables, args.rate, args.seconds,
                         idle=args.tables_at_idle)
                elif name == "lockstep":
                    live(folder, broker, rounds, args.tables, args.rate, args.seconds,
                         paced=False, idle=args.tables_at_idle)
                elif name == "flat":
                    live(folder, broker, rounds, args.tables, None, args.seconds / 2,
                         idle=args.tables_at_idle)
                elif name == "outage":
                    outage(folder, broker, rounds, args.tables, args.rate, args.outage)
                elif name == "alone":
                    one_table_drain(folder, broker, rounds, 50_000)
                else:
                    kills(folder, broker, rounds, 10, args.rate * 5, args.kills)
            finally:
                broker.stop()
        if "rate" in parts:
            (root / "rate").mkdir()
            round_rate(root / "rate", 300, 5)


if __name__ == "__main__":
    main()
