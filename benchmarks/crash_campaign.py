"""A crash campaign against the simulated table, as a test engineer runs one.

For each profile, `tablectl run --sim` plays towards a number of rounds while
it is killed with SIGKILL (the table and its devices' process) at random
points: while the journal is being created, in the middle of a round, right
after a settlement, while the pit's resolution of a misdeal is awaited or
stored, and at random (a WAL checkpoint among them). After each kill it is
started again and plays on. Full-disk episodes run the table on a 16 MB tmpfs
that is filled until the journal cannot store, then freed, and the table is
started again.

At the end every journal must open (as the daemon opens it), every recorded
round be settled or void exactly once and follow the one before, no shoe frame
be stored twice and no card be impossible for its shoe, every requested round
be played, and every start after a kill resume play (a new event stored) within
the limit. It prints the tally and the restart times.

    .venv/bin/python benchmarks/crash_campaign.py [--kills 200] [--full-disk 20]
        [--rounds 40] [--seed 7] [--folder DIR]

Full-disk episodes need root (mount -t tmpfs); without it they are skipped
and the tally says so.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from journal import Journal, JournalError, JournalReader  # noqa: E402
from table.profiles import list_profiles  # noqa: E402

KILL_POINTS = ("creation", "mid-round", "settlement", "pit-action", "random")
RESUME_LIMIT_S = 2.0
WAIT_FOR_POINT_S = 30.0
EPISODE_ROUNDS = 5


@dataclass
class Tally:
    kills: Counter[str] = field(default_factory=Counter)
    recovered: int = 0
    full_disk: int = 0
    full_disk_recovered: int = 0
    restart_s: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    starts_needing_a_human: int = 0


def _command(journal: Path, profile: str, rounds: int, seed: int) -> list[str]:
    return [sys.executable, "-m", "tablectl", "run", "--sim", "--api-port", "off",
            "--view", "rounds", "--profile", profile, "--journal", str(journal),
            "--rounds", str(rounds), "--seed", str(seed), "--mistakes", "0.05",
            "--pace", "0.005"]


def _env(folder: Path) -> dict[str, str]:
    return {**os.environ, "GPIOZERO_PIN_FACTORY": "mock", "TMPDIR": str(folder),
            "PYTHONPATH": str(REPO)}


def _state(journal: Path) -> tuple[int, int, list[dict[str, object]]] | None:
    """(rounds recorded, last seq, events of the round in play), None if unreadable."""
    if not journal.exists():
        return None
    try:
        with JournalReader(journal) as reader:
            return (len(reader.rounds()), reader.last_committed_seq,
                    [e.event for e in reader.open_round_events()])
    except JournalError:
        return None


def _reached(point: str, journal: Path, start: tuple[int, int]) -> bool:
    state = _state(journal)
    if point == "creation":
        return True
    if state is None:
        return False
    rounds, seq, open_events = state
    if seq <= start[1]:
        return False  # not resumed yet
    if point == "mid-round":
        return any("deal" in e for e in open_events) and sum("card" in e for e in open_events) >= 2
    if point == "settlement":
        return rounds > start[0]
    if point == "pit-action":
        return any("resolve" in e for e in open_events) or any(
            "flag" in e for e in open_events)
    return True


def _resumed_within(journal: Path, seq_before: int, process: subprocess.Popen[bytes],
                    limit_s: float) -> float | None:
    """Seconds until the journal stored a new event (None: not within `limit_s` x 10)."""
    began = time.monotonic()
    while time.monotonic() - began < limit_s * 10:
        state = _state(journal)
        if state is not None and state[1] > seq_before:
            return time.monotonic() - began
        if process.poll() is not None:
            return None
        time.sleep(0.02)
    return None


def _kill(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(10)


def _episode(journal: Path, profile: str, target: int, seed: int, point: str,
             rng: random.Random, tally: Tally, folder: Path) -> None:
    state = _state(journal)
    rounds, seq = (state[0], state[1]) if state else (0, 0)
    # Enough rounds that the kill point comes before the run ends by itself.
    left = max(EPISODE_ROUNDS, target - rounds)
    process = subprocess.Popen(_command(journal, profile, left, seed), cwd=folder,
                               env=_env(folder), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, start_new_session=True)
    if state is not None:
        took = _resumed_within(journal, seq, process, RESUME_LIMIT_S)
        if took is None and process.poll() is None:
            tally.problems.append(f"{profile}: no event stored within "
                                  f"{RESUME_LIMIT_S * 10:g} s of a restart")
        elif took is not None:
            tally.restart_s.append(took)
    if point == "creation":
        time.sleep(rng.uniform(0.2, 1.2))
    else:
        deadline = time.monotonic() + WAIT_FOR_POINT_S
        while not _reached(point, journal, (rounds, seq)) and time.monotonic() < deadline:
            if process.poll() is not None:
                break
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.05))
    if process.poll() is not None:
        _finished(process, profile, tally)
        return
    _kill(process)
    tally.kills[point] += 1


def _finished(process: subprocess.Popen[bytes], profile: str, tally: Tally) -> None:
    err = process.stderr.read().decode() if process.stderr else ""
    if process.returncode != 0:
        tally.starts_needing_a_human += 1
        tally.problems.append(f"{profile}: exit {process.returncode}: "
                              f"{err.strip().splitlines()[-1:]}")


def _play_out(journal: Path, profile: str, target: int, seed: int, tally: Tally,
              folder: Path) -> None:
    """Start once more and play every round still missing."""
    state = _state(journal)
    rounds = state[0] if state else 0
    if rounds >= target:
        return
    done = subprocess.run(_command(journal, profile, target - rounds, seed), cwd=folder,
                          env=_env(folder), capture_output=True, timeout=600, check=False)
    if done.returncode != 0:
        tally.starts_needing_a_human += 1
        tally.problems.append(f"{profile}: the last run ended {done.returncode}: "
                              f"{done.stderr.decode().strip().splitlines()[-1:]}")


def check_journal(journal: Path, target: int, tally: Tally) -> None:
    """Every round settled or void once, in order; no frame twice; none impossible."""
    name = journal.parent.name
    try:
        with Journal(journal) as opened:  # as the daemon opens it
            records = opened.rounds()
            events = list(opened.events())
    except JournalError as error:
        tally.problems.append(f"{name}: the journal does not open: {error}")
        return
    end = 0
    for number, record in enumerate(records, start=1):
        if record.round_no != number or record.start_seq != end + 1:
            tally.problems.append(f"{name}: round {record.round_no} does not follow "
                                  f"round {number - 1}")
        if record.status not in ("settled", "void"):
            tally.problems.append(f"{name}: round {number} is {record.status}")
        if "IMPOSSIBLE_CARD" in record.flags:
            tally.problems.append(f"{name}: round {number} has an impossible card")
        end = record.end_seq
    refs = Counter((e.source, e.source_ref) for e in events if e.source_ref is not None)
    twice = [ref for ref, count in refs.items() if count > 1]
    if twice:
        tally.problems.append(f"{name}: stored twice: {twice[:3]}")
    if len(records) < target:
        tally.problems.append(f"{name}: {len(records)} of {target} rounds played")


def _mount(folder: Path) -> bool:
    if os.geteuid() != 0:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(folder)],
                          capture_output=True, check=False)
    return done.returncode == 0


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as file:
        try:
            while True:
                file.write(b"\0" * 4096)
        except OSError:
            pass
    return filler


def full_disk_episodes(count: int, rounds: int, seed: int, folder: Path,
                       tally: Tally) -> Path | None:
    disk = folder / "small-disk"
    disk.mkdir(exist_ok=True)
    if count == 0 or not _mount(disk):
        return None
    journal = disk / "journal.sqlite"
    profile = "casinos-austria"
    try:
        for _ in range(count):
            state = _state(journal)
            before = state[0] if state else 0
            process = subprocess.Popen(_command(journal, profile, 100_000, seed), cwd=folder,
                                       env=_env(folder), stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, start_new_session=True)
            deadline = time.monotonic() + WAIT_FOR_POINT_S
            while time.monotonic() < deadline and process.poll() is None:
                state = _state(journal)
                if state is not None and state[0] >= before + 2:
                    break
                time.sleep(0.02)
            filler = _fill(disk)
            try:
                code = process.wait(60)
            except subprocess.TimeoutExpired:
                _kill(process)
                code = None
            err = process.stderr.read().decode() if process.stderr else ""
            filler.unlink()
            tally.full_disk += 1
            if code == 1 and "rounds stored" in err and "Traceback" not in err:
                tally.full_disk_recovered += 1
            else:
                tally.problems.append(f"full disk: exit {code}: {err.strip()[-200:]}")
        _play_out(journal, profile, (_state(journal) or (0, 0, []))[0] + 3, seed, tally,
                  folder)
        check_journal(journal, 0, tally)
        return journal
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--full-disk", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=40, help="rounds per profile")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--folder", type=Path)
    args = parser.parse_args()
    folder = args.folder or Path(tempfile.mkdtemp(prefix="crash-campaign-"))
    rng = random.Random(args.seed)
    tally = Tally()
    profiles = list_profiles()
    began = time.monotonic()
    journals: dict[str, Path] = {}
    for profile in profiles:
        (folder / profile).mkdir(parents=True, exist_ok=True)
        journals[profile] = folder / profile / "journal.sqlite"
    visited: set[str] = set()
    for kill in range(args.kills):
        profile = profiles[kill % len(profiles)]
        journal = journals[profile]
        point = "creation" if profile not in visited else rng.choice(KILL_POINTS[1:])
        visited.add(profile)
        _episode(journal, profile, args.rounds, args.seed, point, rng, tally,
                 journal.parent)
    for profile in profiles:
        _play_out(journals[profile], profile, args.rounds, args.seed, tally,
                  journals[profile].parent)
        check_journal(journals[profile], args.rounds, tally)
    kills = sum(tally.kills.values())
    tally.recovered = kills if not tally.problems else kills - len(tally.problems)
    full = full_disk_episodes(args.full_disk, args.rounds, args.seed, folder, tally)
    took = time.monotonic() - began
    print(f"crash campaign: {len(profiles)} profiles, {args.rounds} rounds each, "
          f"seed {args.seed}, {took:.0f} s, folder {folder}")
    print(f"SIGKILLs: {kills} ({', '.join(f'{k} {n}' for k, n in sorted(tally.kills.items()))})")
    print(f"recovered with nothing lost or doubled: {max(tally.recovered, 0)}/{kills}")
    if full is None:
        print("full-disk episodes: skipped (no root, or tmpfs cannot be mounted)")
    else:
        print(f"full-disk episodes recovered: {tally.full_disk_recovered}/{tally.full_disk}")
    print(f"starts that needed a human: {tally.starts_needing_a_human}")
    if tally.restart_s:
        times = sorted(tally.restart_s)
        print(f"restart to the first new event: median {statistics.median(times):.2f} s, "
              f"slowest {times[-1]:.2f} s, over {RESUME_LIMIT_S:g} s: "
              f"{sum(t > RESUME_LIMIT_S for t in times)} of {len(times)}")
    for problem in tally.problems:
        print(f"PROBLEM {problem}")
    return 1 if tally.problems else 0


if __name__ == "__main__":
    sys.exit(main())
