"""Time `tablectl replay` on generated scenario files; print rounds per second.

A session (7 boxes, a shuffled shoe, simple basic play, see bench_table.py) is
written as a scenario file, one round an object, in both layouts a scenario
can have: one JSON document (indented, one event a line, as people write them)
and JSON Lines (what `tablectl journal export --format jsonl` writes). Each
file goes through the command's own code (load, validate, play, print) in this
process; the best of --repeat runs is reported. Target: 5,000 rounds/s or more
for 3,000 rounds in JSON. The figures for 1,000, 3,000 and 10,000 rounds show
whether the time grows with the rounds (linear) or faster (quadratic: the
rounds/s fall as the file grows).

    python benchmarks/bench_replay.py [--rounds 1000 3000 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_table import generate_session  # noqa: E402

from table.events import Bet, Deal, Event, ShoeStatus  # noqa: E402
from table.scenario import to_jsonl  # noqa: E402
from tablectl.cli import main as tablectl  # noqa: E402


def scenario(profile: str, events: list[Event]) -> dict[str, Any]:
    """The session as a scenario document: a round starts at its first bet (or a
    new shoe) after a deal (the generator plays no mid-round bets)."""
    rounds: list[list[dict[str, Any]]] = [[]]
    dealt = False
    for event in events:
        if dealt and isinstance(event, Bet | ShoeStatus):
            rounds.append([])
            dealt = False
        rounds[-1].append(event.to_json())
        if isinstance(event, Deal):
            dealt = True
    return {"format": "table-scenario/1", "name": "generated session", "profile": profile,
            "rounds": [{"events": evs} for evs in rounds if evs]}


def as_json(doc: dict[str, Any]) -> str:
    """One JSON document, a round's events one a line."""
    head = {key: value for key, value in doc.items() if key != "rounds"}
    body = json.dumps(head)[:-1]
    rounds = []
    for rnd in doc["rounds"]:
        events = ",\n    ".join(json.dumps(event) for event in rnd["events"])
        rounds.append('  {"events": [\n    ' + events + "\n  ]}")
    return body + ', "rounds": [\n' + ",\n".join(rounds) + "\n]}\n"


def time_replay(path: Path, repeat: int) -> tuple[float, float]:
    """The best wall-clock and the best CPU time of `repeat` runs, in seconds."""
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        sink = io.StringIO()
        start, start_cpu = time.perf_counter(), time.process_time()
        with contextlib.redirect_stdout(sink):
            status = tablectl(["replay", str(path), "--json"])
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
        if status != 0:
            raise SystemExit(f"tablectl replay {path} exited {status}")
    return best, best_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, nargs="+", default=[1_000, 3_000, 10_000])
    parser.add_argument("--profile", default="casinos-austria")
    parser.add_argument("--boxes", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"tablectl replay FILE --json, profile {args.profile}, {args.boxes} boxes, "
          f"best of {args.repeat}; {platform.python_implementation()} "
          f"{platform.python_version()}, {os.cpu_count()} cores, load average {load}")
    with tempfile.TemporaryDirectory() as folder:
        for rounds in args.rounds:
            doc = scenario(args.profile, generate_session(args.profile, rounds, args.boxes,
                                                          args.seed))
            played = len(doc["rounds"])
            for layout, text in (("json", as_json(doc)), ("jsonl", to_jsonl(doc))):
                path = Path(folder) / f"session-{rounds}.{layout}"
                path.write_text(text, encoding="utf-8")
                elapsed, cpu = time_replay(path, args.repeat)
                print(f"{played:>6} rounds  {layout:5}  {len(text) / 1e6:5.1f} MB  "
                      f"{elapsed:6.3f} s  {played / elapsed:6,.0f} rounds/s  "
                      f"(CPU {cpu:6.3f} s, {played / cpu:6,.0f} rounds/s)", flush=True)


if __name__ == "__main__":
    main()
