"""Latency of the shoe link: from the virtual shoe writing a CARD frame to the
consumer receiving the card, over 10,000 cards (target: p99 under 2 ms).

The virtual shoe runs in its own process, as a real shoe is its own device;
both sides stamp with CLOCK_MONOTONIC, which the processes share.

    .venv/bin/python benchmarks/bench_shoe_latency.py [--cards N] [--rate R] [--same-process]
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import statistics
import sys
import threading
import time
from multiprocessing.connection import Connection

from hwsim.shoe import ShoeTiming, VirtualShoe, shuffled_shoe
from hwsim.shoe.cards import repeat_to

from firmware_bridge.shoelink import ShoeCard, ShoeEvent, ShoeLinkReader


def make_shoe(cards: int, rate: float) -> VirtualShoe:
    timing = ShoeTiming(card_interval_s=1.0 / rate if rate else 0.0)
    # Switched on when the host opens the port: no card waits in the buffer for
    # the host, so every card's time is the link's.
    return VirtualShoe(repeat_to(shuffled_shoe(8, seed=1), cards), timing=timing,
                       record_write_times=True, wait_for_host=True)


def shoe_process(cards: int, rate: float, pipe: Connection) -> None:
    shoe = make_shoe(cards, rate)
    shoe.start()
    pipe.send(shoe.path)
    pipe.recv()  # the host is reading
    shoe.wait_drained(600)
    pipe.send(dict(shoe.write_times_ns))
    pipe.recv()  # the host has let go of the port
    shoe.stop()


def measure(cards: int, rate: float, same_process: bool) -> tuple[dict[int, int], dict[int, int]]:
    received: dict[int, int] = {}
    done = threading.Event()
    reader: ShoeLinkReader | None = None

    def deliver(event: ShoeEvent) -> None:
        if isinstance(event, ShoeCard):
            received[event.seq] = time.monotonic_ns()
            if len(received) == cards:
                done.set()
        if hasattr(event, "seq"):
            assert reader is not None
            reader.ack(event.seq)

    if same_process:
        shoe = make_shoe(cards, rate)
        shoe.start()
        reader = ShoeLinkReader(shoe.path, deliver, resume_after=0)
        reader.start()
        done.wait(600)
        shoe.wait_drained(10)
        reader.stop()
        shoe.stop()
        return dict(shoe.write_times_ns), received

    ours, theirs = multiprocessing.Pipe()
    process = multiprocessing.Process(target=shoe_process, args=(cards, rate, theirs))
    process.start()
    path = ours.recv()
    reader = ShoeLinkReader(path, deliver, resume_after=0)
    reader.start()
    ours.send("go")
    done.wait(600)
    written: dict[int, int] = ours.recv()
    reader.stop()
    ours.send("bye")
    process.join(10)
    return written, received


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=1000.0,
                        help="cards per second (0: as fast as the buffer allows)")
    parser.add_argument("--same-process", action="store_true",
                        help="run the shoe in this process (shares the interpreter lock)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    started = time.monotonic()
    written, received = measure(args.cards, args.rate, args.same_process)
    elapsed = time.monotonic() - started
    latencies_ms = [(received[s] - written[s]) / 1e6 for s in sorted(received) if s in written]
    if len(received) != args.cards or len(latencies_ms) != args.cards:
        print(f"only {len(received)} of {args.cards} cards arrived "
              f"({len(latencies_ms)} with a write time)", file=sys.stderr)
        return 1
    cuts = statistics.quantiles(latencies_ms, n=100, method="inclusive")
    where = "same process" if args.same_process else "separate processes"
    print(f"shoe -> consumer latency over {len(latencies_ms)} cards "
          f"({args.rate:g} cards/s, {where}, {elapsed:.1f} s):")
    print(f"  p50 {cuts[49]:.3f} ms   p90 {cuts[89]:.3f} ms   p99 {cuts[98]:.3f} ms   "
          f"max {max(latencies_ms):.3f} ms")
    verdict = "meets" if cuts[98] < 2.0 else "MISSES"
    print(f"  target p99 < 2 ms: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
