"""The daemon's resident memory over 10,000 simulated rounds, without the camera.

The daemon runs alone in a child process, as installed: `tablectl run --config`
with a shoe, a journal on disk and the local API, no [camera] section, lamps on
gpiozero mock pins (GPIOZERO_PIN_FACTORY=mock, the default pin map). This
process holds the virtual shoe (ShoeLink on a pseudo-terminal, which the
daemon reads with pyserial) and the virtual dealer, who plays 7 boxes through
the local API. Every `--every` rounds the child's VmRSS is read from
/proc/PID/status. At the end the child says whether OpenCV (cv2) or numpy
were ever imported; its memory map is checked for OpenCV's libraries too.
Target: under 64 MB, flat over time.

gpiozero's mock pins keep every state change they ever had in a list (real
pins keep none); the daemon's own mock pins (GPIOZERO_PIN_FACTORY=mock: a
table without lamps) keep their last 16 changes, so the figure is the
daemon's and not the mock's bookkeeping.

    .venv/bin/python benchmarks/bench_daemon_memory.py [--rounds N] [--every N] [--journal-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CHILD = "--daemon-child"
TARGET_MB = 64.0


# -- the child: the daemon alone ------------------------------------------------------


def run_child(config: str) -> int:
    os.environ["GPIOZERO_PIN_FACTORY"] = "mock"
    from tablectl.cli import main as cli_main

    code = cli_main(["run", "--config", config])
    loaded = {name: name in sys.modules for name in ("cv2", "numpy", "vision")}
    print(json.dumps({"exit": code, "modules": loaded}), flush=True)
    return code


# -- this process: shoe, dealer, sampling ------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def status_kb(pid: int) -> dict[str, int]:
    values = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                values[key] = int(rest.split()[0])
    return values


def opencv_mapped(pid: int) -> bool:
    with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as maps:
        text = maps.read()
    return "cv2" in text or "opencv" in text.lower()


def write_config(folder: Path, shoe_path: str, journal: Path, port: int) -> Path:
    config = folder / "table.toml"
    config.write_text(
        '[table]\nprofile = "casinos-austria"\n'
        f'[shoe]\ndriver = "shoelink"\nport = "{shoe_path}"\n'
        f'[journal]\npath = "{journal}"\n'
        f'[api]\nhost = "127.0.0.1"\nport = {port}\nusers = "{folder / "users.json"}"\n',
        encoding="utf-8",
    )
    return config


def main() -> int:
    if len(sys.argv) >= 3 and sys.argv[1] == CHILD:
        return run_child(sys.argv[2])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10_000)
    parser.add_argument("--every", type=int, default=1000, help="rounds between samples")
    parser.add_argument("--boxes", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mistakes", type=float, default=0.02)
    parser.add_argument("--journal-dir", default=None,
                        help="folder for the journal (default: the system's temporary folder)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)

    from daemon_stack import disk_line, journal_folder, machine_line
    from hwsim.dealer import VirtualDealer, VirtualShoeCards
    from hwsim.dealer.shoes import seeded_shoe
    from hwsim.shoe import VirtualShoe

    from firmware_bridge.panel.mock_pins import DAEMON_PIN_HISTORY
    from table.profiles import load_profile
    from tablectl.auth import UsersFile
    from tablectl.links import HttpTableLink

    machine = machine_line()  # before the run: the load is other work
    rules = load_profile("casinos-austria")
    with journal_folder(args.journal_dir) as folder_name:
        folder = Path(folder_name)
        journal = folder / "journal.sqlite"
        shoe = VirtualShoe(seeded_shoe(rules, args.seed), dealer_paced=True, seed=args.seed,
                           link_path=folder / "virtual-shoe")
        shoe.start()
        port = free_port()
        config = write_config(folder, shoe.path, journal, port)
        command = [sys.executable, os.path.abspath(__file__), CHILD, str(config)]
        log_path = folder / "daemon.log"
        with open(log_path, "wb") as log:
            child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log,
                                     cwd=folder)
        token = UsersFile(folder / "users.json").add_device("dealer", role="pit")
        link = HttpTableLink(f"http://127.0.0.1:{port}", timeout_s=30.0, token=token)
        samples: list[tuple[int, float, dict[str, int], float]] = []
        modules: dict[str, Any] = {}
        mapped = False
        try:
            if not link.wait_ready(30.0):
                raise RuntimeError(f"the daemon did not start; see {log_path}:\n"
                                   + log_path.read_text(errors="replace")[-2000:])
            dealer = VirtualDealer(rules, link, VirtualShoeCards(shoe), seed=args.seed,
                                   boxes=args.boxes, mistake_rate=args.mistakes,
                                   session="bench")
            started = time.monotonic()

            def sample(rounds: int) -> None:
                size = sum(p.stat().st_size for p in folder.glob("journal.sqlite*")) / 1e6
                samples.append((rounds, time.monotonic() - started, status_kb(child.pid), size))

            sample(0)
            played = 0
            while played < args.rounds:
                step = min(args.every, args.rounds - played)
                dealer.play(step)
                played += step
                sample(played)
            mapped = opencv_mapped(child.pid)
        except Exception:
            print(f"the daemon's log ends:\n{log_path.read_text(errors='replace')[-3000:]}",
                  file=sys.stderr)
            raise
        finally:
            link.close()
            child.send_signal(signal.SIGTERM)
            try:
                out, _ = child.communicate(timeout=30)
                for line in out.decode(errors="replace").splitlines():
                    if line.startswith("{"):
                        modules = json.loads(line)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
            shoe.stop()

    print(machine)
    print(disk_line(journal))
    history = f"the last {DAEMON_PIN_HISTORY} changes"
    print(f"daemon: `tablectl run --config` in a child process (pid {child.pid}), no camera, "
          f"local API on, mock pins keeping {history}; dealer and shoe in this process, "
          f"{args.boxes} boxes")
    print(f"{'rounds':>7} {'time s':>8} {'rounds/s':>9} {'VmRSS MB':>9} {'RssAnon MB':>10} "
          f"{'VmHWM MB':>9} {'journal MB':>10}")
    previous = (0, 0.0)
    for rounds, at, kb, size in samples:
        rate = (rounds - previous[0]) / (at - previous[1]) if at > previous[1] else 0.0
        previous = (rounds, at)
        print(f"{rounds:>7,} {at:>8.1f} {rate:>9.1f} {kb['VmRSS'] / 1024:>9.1f} "
              f"{kb.get('RssAnon', 0) / 1024:>10.1f} {kb['VmHWM'] / 1024:>9.1f} {size:>10.1f}")
    loaded = modules.get("modules", {})
    print(f"cv2 imported in the daemon: {loaded.get('cv2', '?')}; numpy: "
          f"{loaded.get('numpy', '?')}; OpenCV libraries mapped: {mapped}")
    after_warmup = [s for s in samples if s[0] >= args.every]
    last_mb = samples[-1][2]["VmRSS"] / 1024
    peak_mb = max(s[2]["VmHWM"] for s in samples) / 1024
    if len(after_warmup) >= 2:
        first_mb = after_warmup[0][2]["VmRSS"] / 1024
        span = after_warmup[-1][0] - after_warmup[0][0]
        growth = last_mb - first_mb
        print(f"after {after_warmup[0][0]:,} rounds -> {after_warmup[-1][0]:,}: VmRSS "
              f"{growth:+.1f} MB ({growth / span * 1000 * 1024:+.0f} KB per 1,000 rounds)")
    verdict = "meets" if peak_mb < TARGET_MB else "MISSES"
    print(f"target VmRSS < {TARGET_MB:g} MB: {verdict} (last {last_mb:.1f} MB, peak "
          f"{peak_mb:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
