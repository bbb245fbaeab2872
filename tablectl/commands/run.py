"""`tablectl run`: the daemon, on a configured table or on the simulated one."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from tablectl.config import ConfigError, load_config

log = logging.getLogger("tablectl")

# The simulated shoe's line misbehaves now and then, as cables do; the link
# must deliver every card anyway.
DEFAULT_SIM_FAULTS = "noise=0.002,corrupt=0.002,duplicate=0.002,drop=0.001"


def register(subparsers: Any) -> None:
    """Add this group's commands to the top-level parser."""
    parser = subparsers.add_parser(
        "run", help="run the table controller (or the simulated table with --sim)",
        description="Run the table controller: one process owning the table, the shoe, the "
                    "lamps, the local API and the journal. SIGTERM or Ctrl-C stops it cleanly.",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--config", metavar="PATH", help="the table's TOML config file")
    where.add_argument("--sim", action="store_true",
                       help="the simulated table: virtual shoe, dealer and lamps; no hardware")
    sim = parser.add_argument_group("simulated table (--sim)")
    sim.add_argument("--rounds", type=_positive_int, metavar="N",
                     help="stop after N rounds (default: run until stopped)")
    sim.add_argument("--profile", default="casinos-austria",
                     help="house-rule profile (default: casinos-austria)")
    sim.add_argument("--journal", default=None, metavar="PATH",
                     help="journal file (default: var/sim-journal.sqlite; replayed if it exists)")
    sim.add_argument("--seed", type=int, default=1, help="shoe and dealer seed (default 1)")
    sim.add_argument("--boxes", type=_box_count, default=7, help="occupied boxes (1-7)")
    sim.add_argument("--mistakes", type=_chance, default=0.02, metavar="P",
                     help="chance of a dealer mistake per dealer step (default 0.02)")
    sim.add_argument("--faults", default=DEFAULT_SIM_FAULTS, metavar="SPEC",
                     help="shoe line faults per frame, e.g. 'drop=0.01,noise=0.01', or 'none' "
                          f"(default: {DEFAULT_SIM_FAULTS}; see docs/shoe.md)")
    sim.add_argument("--pace", type=float, default=None, metavar="SECONDS",
                     help="pause between rounds (default: 1 s with the live view, else none)")
    sim.add_argument("--api-port", type=int, default=0, metavar="PORT",
                     help="serve the local API on this port (default: off in the simulation)")
    sim.add_argument("--view", choices=("live", "rounds"), default=None,
                     help="live table view (default on a terminal) or one line per round")
    parser.add_argument("--check", action="store_true",
                        help="with --config: check the file (every problem listed) and exit")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    parser.set_defaults(func=run)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} must be at least 1")
    return value


def _box_count(text: str) -> int:
    value = _positive_int(text)
    if value > 7:
        raise argparse.ArgumentTypeError("a table has boxes 1 to 7")
    return value


def _chance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not a chance between 0 and 1")
    return value


def _install_signals(stop: Callable[[], None]) -> None:
    def handler(signum: int, frame: Any) -> None:
        log.info("signal %d: stopping", signum)
        stop()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def _logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO, stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("transitions").setLevel(logging.WARNING)


def run(args: argparse.Namespace) -> int:
    _logging(args.verbose)
    if args.sim:
        return _run_sim(args)
    return _run_configured(args.config, args.check)


def _run_configured(path: str, check_only: bool = False) -> int:
    from tablectl.daemon import Daemon, DaemonError

    try:
        config = load_config(path)
    except ConfigError as error:
        print(f"tablectl: {error}", file=sys.stderr)
        return 2
    if check_only:
        print(f"{path}: the configuration is valid (profile {config.table.profile}, shoe "
              f"{config.shoe.driver}, journal {config.journal.path})")
        return 0
    daemon = Daemon(config)
    stopping = threading.Event()

    def stop() -> None:
        stopping.set()
        daemon.stop()

    # Before the journal's replay, which can take seconds: a SIGTERM then must
    # still close cleanly rather than kill the process.
    _install_signals(stop)
    try:
        report = daemon.open()
    except DaemonError as error:
        daemon.close()
        print(f"tablectl: cannot start: {error}", file=sys.stderr)
        return 2
    if stopping.is_set():
        daemon.close()
        return 0
    log.info("table %s: %d events replayed from %s, %d rounds recorded",
             config.table.profile, report.events_replayed, config.journal.path,
             report.rounds_recorded)
    if daemon.api is not None:
        log.info("local API on %s", daemon.api.url)
    try:
        daemon.run()
    finally:
        daemon.close()
    return 0


def _run_sim(args: argparse.Namespace) -> int:
    from hwsim.shoe import LineFaults

    from tablectl.daemon import DaemonError
    from tablectl.sim import DEFAULT_SIM_JOURNAL, SimOptions, run_simulation

    try:
        faults = None if args.faults in ("", "none") else LineFaults.parse(args.faults)
    except ValueError as error:
        print(f"tablectl: --faults: {error}", file=sys.stderr)
        return 2
    live = (args.view or ("live" if sys.stdout.isatty() else "rounds")) == "live"
    pace = args.pace if args.pace is not None else (1.0 if live else 0.0)
    options = SimOptions(
        profile=args.profile, journal=args.journal or DEFAULT_SIM_JOURNAL, rounds=args.rounds,
        seed=args.seed, boxes=args.boxes, mistake_rate=args.mistakes, faults=faults,
        pace_s=pace, api_port=args.api_port, live_view=live,
    )
    try:
        return run_simulation(options, _install_signals)
    except (ConfigError, DaemonError) as error:
        print(f"tablectl: cannot start the simulated table: {error}", file=sys.stderr)
        return 2
