"""`tablectl run`: the daemon, on a configured table or on the simulated one."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from foundation.arguments import chance, positive_int
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
    sim = parser.add_argument_group(
        "simulated table (--sim only; a configured table takes these from its file)")
    sim.add_argument("--rounds", type=positive_int, metavar="N",
                     help="stop after N rounds (default: run until stopped)")
    sim.add_argument("--profile", help=f"house-rule profile (default: {SIM_DEFAULTS['profile']})")
    sim.add_argument("--journal", metavar="PATH",
                     help="journal file (default: var/sim-journal.sqlite; replayed if it exists)")
    sim.add_argument("--seed", type=int, help="shoe and dealer seed (default 1)")
    sim.add_argument("--boxes", type=_box_count, help="occupied boxes (1-7, default 7)")
    sim.add_argument("--mistakes", type=chance, metavar="P",
                     help="chance of a dealer mistake per dealer step (default 0.02)")
    sim.add_argument("--faults", metavar="SPEC",
                     help="shoe line faults per frame, e.g. 'drop=0.01,noise=0.01', or 'none' "
                          f"(default: {DEFAULT_SIM_FAULTS}; see docs/shoe.md)")
    sim.add_argument("--pace", type=float, metavar="SECONDS",
                     help="pause between rounds (default: 1 s with the live view, else none)")
    sim.add_argument("--api-port", type=_api_port, metavar="PORT",
                     help="serve the local API and the pit display on this port (default "
                          "8765, or any free port if it is taken; 0: any free port; off: none)")
    sim.add_argument("--view", choices=("live", "rounds"),
                     help="live table view (default on a terminal) or one line per round")
    parser.add_argument("--mqtt", metavar="URL",
                        help="publish the journal to this MQTT broker, mqtt://HOST:PORT "
                             "(docs/floor.md); with --config it replaces [mqtt]")
    parser.add_argument("--table", metavar="ID", help="this table's id on the floor (--mqtt)")
    parser.add_argument("--floor-url", metavar="URL",
                        help="show the floor on this table's pit display: the floor's web "
                             "page, http://HOST:PORT (tablectl floor --http; with --mqtt)")
    parser.add_argument("--check", action="store_true",
                        help="check everything the config (or the --sim options) names, list "
                             "every problem, and exit without running")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    parser.set_defaults(func=run)


# The simulated table's options, their defaults, and why a configured table refuses
# each one (its config file says it, or nothing on real hardware does).
SIM_DEFAULTS: dict[str, Any] = {
    "rounds": None, "profile": "casinos-austria", "journal": None, "seed": 1, "boxes": 7,
    "mistakes": 0.02, "faults": DEFAULT_SIM_FAULTS, "pace": None, "api_port": 8765, "view": None,
}
_NOT_WITH_CONFIG = {
    "rounds": "--rounds: a configured table plays until it is stopped (SIGTERM or Ctrl-C)",
    "profile": "--profile: a configured table's profile is [table] profile in its file "
               "(its journal keeps the profile it was started with)",
    "journal": "--journal: a configured table's journal is [journal] path in its file",
    "seed": "--seed: a real shoe and dealer are not seeded",
    "boxes": "--boxes: the players at a real table choose their boxes",
    "mistakes": "--mistakes: only the simulated dealer makes mistakes on purpose",
    "faults": "--faults: only the simulated shoe's line can be made noisy",
    "pace": "--pace: a real dealer sets the pace",
    "api_port": "--api-port: a configured table's API is [api] port in its file",
    "view": "--view: the table view is drawn for the simulated table only",
}


def _api_port(text: str) -> int | str:
    if text == "off":
        return text
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number or off") from None
    if not 0 <= value < 65536:
        raise argparse.ArgumentTypeError(f"{text} is not a TCP port (0-65535)")
    return value


def _sim_api_port(requested: int | str) -> int | None:
    """The simulated table's API port: None for off; the default 8765 gives way to a
    free port when another program (another simulated table) has it."""
    if requested == "off":
        return None
    port = int(requested)
    if port == SIM_DEFAULTS["api_port"]:
        import socket

        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                log.info("port %d is taken: the simulated table's API takes a free one", port)
                return 0
    return port


def _box_count(text: str) -> int:
    value = positive_int(text)
    if value > 7:
        raise argparse.ArgumentTypeError("a table has boxes 1 to 7")
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
    if not args.sim:
        refused = [why for dest, why in _NOT_WITH_CONFIG.items()
                   if getattr(args, dest) is not None]
        if refused:
            print("tablectl run: options of the simulated table (--sim) given with --config:",
                  file=sys.stderr)
            for why in refused:
                print(f"  - {why}", file=sys.stderr)
            return 2
    else:
        for dest, default in SIM_DEFAULTS.items():
            if getattr(args, dest) is None:
                setattr(args, dest, default)
    mqtt = None
    if args.mqtt is not None or args.table is not None or args.floor_url is not None:
        from tablectl.mqtt.settings import MqttSettingsError, from_options

        if args.mqtt is None or args.table is None:
            print("tablectl run: --mqtt URL and --table ID go together (and --floor-url "
                  "needs them)", file=sys.stderr)
            return 2
        try:
            mqtt = from_options(args.mqtt, args.table, args.floor_url)
        except MqttSettingsError as error:
            print(f"tablectl run: {error}", file=sys.stderr)
            return 2
    args.mqtt_config = mqtt
    _logging(args.verbose)
    if args.sim:
        return _check_sim(args) if args.check else _run_sim(args)
    return _run_configured(args.config, args.check, mqtt)


def _run_configured(path: str, check_only: bool = False, mqtt: Any = None) -> int:
    from tablectl.daemon import Daemon, DaemonError

    try:
        config = load_config(path)
    except ConfigError as error:
        print(f"tablectl: {error}", file=sys.stderr)
        return 2
    if mqtt is not None:
        config = dataclasses.replace(config, mqtt=mqtt)
    if check_only:
        from tablectl.config_check import resource_problems

        problems = resource_problems(config)
        if problems:
            print(f"tablectl: {ConfigError(path, problems)}", file=sys.stderr)
            return 2
        print(f"{path}: the configuration is valid (profile {config.table.profile}, shoe "
              f"{config.shoe.driver}, journal {config.journal.path}); its port, files and "
              "pins were checked")
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
        log.info("pit display and local API on %s/", daemon.api.url)
        if not daemon.auth.has_role("pit"):
            log.warning("no pit user in %s yet: add one with `tablectl users add NAME --role "
                        "pit --config %s`", config.api.users, path)
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
        pace_s=pace, api_port=_sim_api_port(args.api_port), live_view=live,
        mqtt=args.mqtt_config,
    )
    try:
        return run_simulation(options, _install_signals)
    except (ConfigError, DaemonError) as error:
        print(f"tablectl: cannot start the simulated table: {error}", file=sys.stderr)
        return 2


def _check_sim(args: argparse.Namespace) -> int:
    """`run --sim --check`: the options and the journal, then exit without playing."""
    from hwsim.shoe import LineFaults

    from table.profiles import ProfileError, load_profile
    from tablectl.config import DEFAULT_SIM_JOURNAL
    from tablectl.config_check import journal_problems

    problems: list[str] = []
    journal = args.journal or DEFAULT_SIM_JOURNAL
    try:
        if args.faults not in ("", "none"):
            LineFaults.parse(args.faults)
    except ValueError as error:
        problems.append(f"--faults: {error}")
    try:
        load_profile(args.profile)
    except ProfileError as error:
        problems.append(f"--profile: {error}")
    else:
        problems += journal_problems(journal, args.profile, {}, "--journal")
    if problems:
        print(f"tablectl: {ConfigError('the simulated table', problems)}", file=sys.stderr)
        return 2
    rounds = f"{args.rounds} rounds" if args.rounds else "until stopped"
    print(f"simulated table: the options are valid (profile {args.profile}, {args.boxes} "
          f"boxes, {rounds}, journal {journal}); nothing was played")
    return 0
