"""The local API under load, on loopback: many terminals at once, and a flood of
refused calls.

1. `--clients` concurrent clients (default 200, in 4 processes of their own) for
   `--seconds` (default 60): each opens a connection, sends a bet with its token
   (or reads /state, one call in four), reads the answer, closes, and again at
   once (flat out: the latency is then mostly the queue of 200 callers before a
   saturated server), or every `--interval` seconds (a terminal's pace);
   `--keep-alive` keeps each client's connection open between calls.
   Prints calls/s, the answers' statuses, connection errors (resets, refusals,
   time-outs) and the latency percentiles. Targets: 0 resets, p99 <= 200 ms.
2. `--refused` refused calls (default 10,000): anonymous writes, forged tokens,
   nested and oversized bodies, amounts out of limits, ids reused with another
   event, decisions the rules refuse. Prints how much the journal (with its
   WAL) grew. Target: <= 1 MB.

    .venv/bin/python benchmarks/bench_api_load.py [--clients N] [--seconds S] [--refused N]
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from journal import Journal
from table.machine import Table
from table.profiles import load_profile
from tablectl.api import ApiServer
from tablectl.service import TableService

PROCESSES = 4


def client_process(port: int, token: str, threads: int, seconds: float, first: int,
                   results: Any, interval: float, keep_alive: bool) -> None:
    """`threads` clients in this process; puts (latencies, statuses, errors) on `results`."""
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def client(number: int) -> None:
        calls = 0
        mine: list[float] = []
        seen: Counter[str] = Counter()
        failed: Counter[str] = Counter()
        conn: http.client.HTTPConnection | None = None
        next_call = time.monotonic() + interval * (number % 100) / 100
        while time.monotonic() < deadline:
            if interval:
                pause = next_call - time.monotonic()
                if pause > 0:
                    time.sleep(pause)
                next_call += interval
            calls += 1
            read = calls % 4 == 0
            body = None if read else json.dumps({
                "event": {"bet": {"box": 1 + number % 7, "amount": 10}},
                "id": f"load-{number}:{calls}"}).encode()
            started = time.perf_counter()
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                if read:
                    conn.request("GET", "/state")
                else:
                    conn.request("POST", "/events", body=body,
                                 headers={"Authorization": f"Bearer {token}",
                                          "Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
                mine.append(time.perf_counter() - started)
                seen[str(response.status)] += 1
            except (OSError, http.client.HTTPException) as error:
                failed[type(error).__name__] += 1
                conn.close()
                conn = None
            if not keep_alive and conn is not None:
                conn.close()
                conn = None
        with lock:
            latencies.extend(mine)
            statuses.update(seen)
            errors.update(failed)

    workers = [threading.Thread(target=client, args=(first + k,)) for k in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    results.put((latencies, dict(statuses), dict(errors)))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def load(server: ApiServer, token: str, clients: int, seconds: float, interval: float,
         keep_alive: bool) -> None:
    port = server.address[1]
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    per = [clients // PROCESSES + (1 if k < clients % PROCESSES else 0) for k in range(PROCESSES)]
    processes = [context.Process(target=client_process,
                                 args=(port, token, n, seconds, sum(per[:k]), results,
                                       interval, keep_alive))
                 for k, n in enumerate(per)]
    started = time.monotonic()
    for process in processes:
        process.start()
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    for _ in processes:
        mine, seen, failed = results.get(timeout=seconds + 120)
        latencies.extend(mine)
        statuses.update(seen)
        errors.update(failed)
    for process in processes:
        process.join()
    elapsed = time.monotonic() - started
    how = (f"a call every {interval:g} s each" if interval else "flat out") + (
        ", keep-alive" if keep_alive else ", a new connection per call")
    print(f"{clients} clients for {seconds:g} s ({how}): {len(latencies)} answers "
          f"({len(latencies) / elapsed:.0f}/s), statuses {dict(sorted(statuses.items()))}, "
          f"connection errors {dict(errors) or 0}")
    print(f"latency ms: p50 {1000 * percentile(latencies, 0.5):.1f}  "
          f"p90 {1000 * percentile(latencies, 0.9):.1f}  "
          f"p99 {1000 * percentile(latencies, 0.99):.1f}  "
          f"max {1000 * max(latencies, default=0.0):.1f}  (target: p99 <= 200, 0 resets)")


def journal_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


def refused(server: ApiServer, service: TableService, token: str, count: int,
            path: Path) -> None:
    host, port = server.address
    conn = http.client.HTTPConnection(host, port, timeout=30)

    def post(body: bytes, headers: dict[str, str]) -> int:
        nonlocal conn
        try:
            conn.request("POST", "/events", body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            return response.status
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = http.client.HTTPConnection(host, port, timeout=30)
            return 0

    auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    assert post(json.dumps({"event": {"bet": {"box": 1, "amount": 10}},
                            "id": "taken"}).encode(), auth) == 200
    service.ask(lambda table: None)  # every answer given: the journal is as it stays
    before = journal_bytes(path)
    kinds = [
        (json.dumps({"event": {"bet": {"box": 1, "amount": 10}}}).encode(), {}),
        (json.dumps({"event": {"bet": {"box": 1, "amount": 10}}}).encode(),
         {"Authorization": "Bearer tct_forged"}),
        (b"[" * 4000 + b"]" * 4000, auth),
        (json.dumps({"event": {"bet": {"box": 1, "amount": int("9" * 4200)}}}).encode(), auth),
        (json.dumps({"event": {"bet": {"box": 1, "amount": 20}}, "id": "taken"}).encode(), auth),
        (json.dumps({"event": {"do": {"box": 1, "action": "split"}}}).encode(), auth),
        (b"x" * 20_000, auth),
    ]
    statuses: Counter[int] = Counter()
    started = time.monotonic()
    for k in range(count):
        body, headers = kinds[k % len(kinds)]
        statuses[post(body, headers)] += 1
    elapsed = time.monotonic() - started
    conn.close()
    service.ask(lambda table: None)
    grown = journal_bytes(path) - before
    print(f"{count} refused calls in {elapsed:.1f} s, statuses {dict(sorted(statuses.items()))}: "
          f"the journal grew {grown} bytes (target <= 1,000,000); "
          f"{server.refusals.total} noted, at most 60 log lines a minute")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--refused", type=int, default=10_000)
    parser.add_argument("--interval", type=float, default=0.0,
                        help="seconds between one client's calls (default 0: flat out)")
    parser.add_argument("--keep-alive", action="store_true")
    args = parser.parse_args()
    import logging

    logging.basicConfig(level=logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="bench-api-") as folder:
        path = Path(folder) / "journal.sqlite"
        journal = Journal(path, profile="casinos-austria")
        service = TableService(Table(load_profile("casinos-austria"), keep_rounds=4), journal)
        loop = threading.Thread(target=service.run, daemon=True)
        loop.start()
        server = ApiServer(service, "127.0.0.1", 0)
        server.start()
        token = server.auth.issue_token("bench", "device")
        print(f"cpu cores {os.cpu_count()}, python {sys.version.split()[0]}, loopback only")
        try:
            if args.clients and args.seconds > 0:
                load(server, token, args.clients, args.seconds, args.interval,
                     args.keep_alive)
            if args.refused:
                refused(server, service, token, args.refused, path)
        finally:
            server.stop()
            service.stop()
            loop.join(10.0)
            journal.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
