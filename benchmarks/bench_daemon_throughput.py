"""Full-stack simulated rounds per second: `tablectl run --sim` as it runs, flat out.

The simulated table (tablectl/sim.py, SimulatedTable) deals rounds with 7
boxes: the virtual shoe on a pseudo-terminal, the daemon reading it with
pyserial, the table service applying every event at once and its committer
storing them in group commits (SQLite on disk, synchronous=FULL) before a frame
is acknowledged, the lamps on gpiozero mock pins, and the virtual dealer, who
keeps his own copy of the table and never waits for the daemon (his decisions
are held behind the shoe frames before them, so the daemon applies the same
sequence). Prints rounds/s, cards/s, events/s, CPU time and the journal's
group-commit batch sizes. Target: 500 rounds/s or more with 7 boxes.

    .venv/bin/python benchmarks/bench_daemon_throughput.py [--rounds N] [--journal-dir DIR]
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections import Counter
from pathlib import Path

from daemon_stack import (
    ThreadCpu,
    disk_line,
    journal_folder,
    machine_line,
    stack_parser,
    thread_cpu_lines,
)

from journal import JournalReader, SealedBatch
from tablectl.sim import SimOptions, SimulatedTable

TARGET_ROUNDS_PER_S = 500.0
BATCH_BINS = ((1, 1), (2, 2), (3, 4), (5, 8), (9, 16), (17, 10**9))


def batch_table(sizes: Counter[int]) -> str:
    commits = sum(sizes.values())
    cells = []
    for low, high in BATCH_BINS:
        count = sum(n for size, n in sizes.items() if low <= size <= high)
        label = str(low) if low == high else f"{low}+" if high > 10**8 else f"{low}-{high}"
        cells.append(f"{label}: {count / commits * 100:.1f}%")
    return "  ".join(cells)


def main() -> int:
    parser = stack_parser(__doc__.splitlines()[0], rounds=2000)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    machine = machine_line()  # before the run: the load is other work

    with journal_folder(args.journal_dir) as folder, open(os.devnull, "w") as quiet:
        journal_path = Path(folder) / "journal.sqlite"
        options = SimOptions(profile=args.profile, journal=str(journal_path),
                             rounds=args.rounds, seed=args.seed, boxes=args.boxes,
                             mistake_rate=args.mistakes)
        sim = SimulatedTable(options, out=quiet)
        batch_sizes: Counter[int] = Counter()
        commit_s = [0.0]  # time inside the journal's commit (the WAL's fsync, mostly)
        threads = ThreadCpu()
        threads.start()
        cpu_started = time.process_time()
        started = time.monotonic()
        try:
            sim.start()
            assert sim.daemon is not None and sim.daemon.service is not None
            service = sim.daemon.service
            journal = service.journal
            real_write = journal.write

            def write(batch: SealedBatch) -> int:
                batch_sizes[batch.size] += 1
                began = time.perf_counter()
                try:
                    return real_write(batch)
                finally:
                    commit_s[0] += time.perf_counter() - began

            journal.write = write  # type: ignore[method-assign]
            sim.daemon.run()  # returns once the dealer has played every round
            elapsed = time.monotonic() - started
            cpu = time.process_time() - cpu_started
            cpu_by_thread = threads.stop()
            rounds = sim.rounds_played
            done = sim.done
            assert done is not None, "the dealer did not finish"
            cards = done.cards_dealt
            events = journal.last_committed_seq
            dealer_stats = done.stats
        finally:
            sim.close()
        with JournalReader(journal_path) as stored:
            recorded = len(stored.rounds())
            stored_events = stored.last_committed_seq
        size_mb = sum(p.stat().st_size for p in Path(folder).glob("journal.sqlite*")) / 1e6

    if sim.error is not None:
        print(f"the simulated table stopped: {sim.error}", file=sys.stderr)
        return 1
    commits = sum(batch_sizes.values())
    print(machine)
    print(disk_line(journal_path))
    print(f"profile {args.profile}, {args.boxes} boxes, mistake rate {args.mistakes:g}, "
          f"SimulatedTable (tablectl run --sim): daemon here, shoe and dealer in a process "
          f"of their own")
    print(f"  rounds     {rounds:>8,}  in {elapsed:.2f} s  = {rounds / elapsed:8.1f} rounds/s")
    print(f"  cards      {cards:>8,}  = {cards / elapsed:8.1f} cards/s "
          f"({cards / rounds:.1f} per round)")
    print(f"  events     {events:>8,}  = {events / elapsed:8.1f} events/s "
          f"({events / rounds:.1f} per round; {stored_events:,} in the journal, "
          f"{recorded:,} rounds recorded, {size_mb:.1f} MB)")
    print(f"  commits    {commits:>8,}  = {commits / elapsed:8.1f} commits/s, "
          f"{events / commits:.2f} events per commit")
    print(f"  batch sizes (events per commit): {batch_table(batch_sizes)}; "
          f"largest {max(batch_sizes)}")
    print(f"  in commit  {commit_s[0]:.2f} s of the wall time "
          f"({commit_s[0] / elapsed * 100:.0f}%), "
          f"{commit_s[0] / commits * 1000:.3f} ms per commit, "
          f"{commit_s[0] / rounds * 1000:.1f} ms per round")
    print(f"  CPU        {cpu:.2f} s of {elapsed:.2f} s wall "
          f"({cpu / elapsed * 100:.0f}% of one core), {cpu / rounds * 1000:.2f} ms per round")
    print("  CPU by thread of the daemon's process (the table's loop runs on MainThread):")
    for line in thread_cpu_lines(cpu_by_thread, rounds):
        print(line)
    print(f"  devices' process (virtual shoe and dealer): CPU {done.cpu_s:.2f} s = "
          f"{done.cpu_s / rounds * 1000:.2f} ms per round; the shoe's window of "
          f"unacknowledged frames was full {done.gate_stops:,} times")
    print(f"  dealer: {dealer_stats}")
    rate = rounds / elapsed
    verdict = "meets" if rate >= TARGET_ROUNDS_PER_S else "MISSES"
    print(f"  target >= {TARGET_ROUNDS_PER_S:g} rounds/s with 7 boxes: {verdict} ({rate:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
