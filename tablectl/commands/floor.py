"""`tablectl floor`: every table of the floor from the MQTT broker, and its report."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

DEFAULT_STORE = "var/floor.sqlite"
DEFAULT_CLIENT_ID = "tablectl-floor"
SHIFTS_HELP = "the times of day shifts begin, local time (default 06:00,14:00,22:00)"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "floor", help="the floor: every table's events from the MQTT broker, stored and shown",
        description="Subscribe to every table on the broker, store each event and round once "
                    "(by table and sequence number; what is missing is asked again) and "
                    "show the floor. `tablectl floor report` sums the store. docs/floor.md")
    parser.add_argument("--broker", metavar="URL",
                        help="the broker, mqtt://[USER:PASS@]HOST:PORT or mqtts://... (TLS)")
    parser.add_argument("--store", metavar="FILE", default=None,
                        help=f"the floor's SQLite store (default {DEFAULT_STORE})")
    parser.add_argument("--ca-file", metavar="PEM", help="the CA of the broker's certificate")
    parser.add_argument("--client-id", default=DEFAULT_CLIENT_ID,
                        help="this floor's MQTT client id (the broker keeps its session)")
    parser.add_argument("--share", metavar="GROUP",
                        help="split the events and rounds with the other floor processes of "
                             "GROUP on one store (an MQTT 5 shared subscription; give each "
                             "its own --client-id)")
    parser.add_argument("--shifts", default="06:00,14:00,22:00", help=SHIFTS_HELP)
    parser.add_argument("--view", choices=("live", "lines"),
                        help="redraw the floor (default on a terminal) or print it every "
                             "--every seconds")
    parser.add_argument("--every", type=float, default=10.0, metavar="SECONDS",
                        help="how often --view lines prints the floor (default 10)")
    parser.add_argument("--http", metavar="[HOST:]PORT",
                        help="also show the floor on a web page (read only; host default "
                             "127.0.0.1, port 0: any free port)")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    parser.set_defaults(func=_run)
    commands = parser.add_subparsers(dest="floor_command", metavar="ACTION")
    report = commands.add_parser(
        "report", help="totals per table and per shift from the floor's store",
        description="Rounds, void rounds, events, staked and the house's net per table and "
                    "per shift, from the floor's store (read only).")
    report.add_argument("--store", metavar="FILE", dest="report_store", default=None,
                        help=f"the floor's store (default {DEFAULT_STORE})")
    report.add_argument("--from", dest="since", metavar="WHEN",
                        help="from this local date or time (2026-11-25 or 2026-11-25T06:00)")
    report.add_argument("--to", dest="until", metavar="WHEN", help="up to this one (excluded)")
    report.add_argument("--shifts", dest="report_shifts", default="06:00,14:00,22:00",
                        help=SHIFTS_HELP)
    report.add_argument("--json", action="store_true", help="print JSON")
    report.set_defaults(func=_report)


def _fail(message: str) -> int:
    print(f"tablectl floor: {message}", file=sys.stderr)
    return 2


def _when(text: str | None, option: str) -> float | None:
    if text is None:
        return None
    try:
        return dt.datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise ValueError(f"{option} {text!r}: give a date (2026-11-25) or a local time "
                         "(2026-11-25T06:00)") from None


def _report(args: argparse.Namespace) -> int:
    from tablectl.mqtt.floor_store import FloorStore, FloorStoreError
    from tablectl.mqtt.floor_view import parse_shifts
    from tablectl.mqtt.report import floor_report, report_text

    try:
        shifts = parse_shifts(args.report_shifts)
        since, until = _when(args.since, "--from"), _when(args.until, "--to")
    except ValueError as error:
        return _fail(str(error))
    if since is not None and until is not None and until <= since:
        return _fail("--to must come after --from")
    path = args.report_store or args.store or DEFAULT_STORE
    try:
        store = FloorStore(path, read_only=True)
    except FloorStoreError as error:
        return _fail(str(error))
    try:
        doc = floor_report(store, shifts, since, until)
    finally:
        store.close()
    print(json.dumps(doc, indent=2) if args.json else report_text(doc))
    return 0


def _http_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    try:
        number = int(port)
    except ValueError:
        raise ValueError(f"--http {text!r}: give [HOST:]PORT, e.g. 127.0.0.1:8770") from None
    if not 0 <= number < 65536:
        raise ValueError(f"--http {text!r}: the port is not 0-65535")
    return host or "127.0.0.1", number


def _run(args: argparse.Namespace) -> int:
    from tablectl.mqtt.connect import BrokerError
    from tablectl.mqtt.floor import open_floor
    from tablectl.mqtt.floor_store import FloorStore, FloorStoreError
    from tablectl.mqtt.floor_view import parse_shifts, render, shift_start
    from tablectl.mqtt.settings import Broker, MqttSettingsError, parse_url
    from tablectl.mqtt.topics import check_share_group

    if args.broker is None:
        return _fail("--broker URL is needed (e.g. --broker mqtt://127.0.0.1:1883), or "
                     "`tablectl floor report` to read the store")
    try:
        broker = parse_url(args.broker)
        shifts = parse_shifts(args.shifts)
        http = None if args.http is None else _http_address(args.http)
        share = None if args.share is None else check_share_group(args.share)
    except (MqttSettingsError, ValueError) as error:
        return _fail(str(error))
    if share is not None and args.client_id == DEFAULT_CLIENT_ID:
        return _fail("--share: give each floor process of the group its own --client-id "
                     "(two with one id would push each other off the broker)")
    if args.ca_file:
        broker = Broker(broker.host, broker.port, True, broker.username, broker.password,
                        args.ca_file)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s")
    store_path = args.store or DEFAULT_STORE
    folder = Path(store_path).parent
    if not folder.exists():
        try:
            folder.mkdir(parents=True)
        except OSError as error:
            return _fail(f"the store's folder {folder} cannot be made: "
                         f"{error.strerror or error}")
    try:
        floor = open_floor(broker, store_path, client_id=args.client_id, share=share)
    except (BrokerError, FloorStoreError) as error:
        return _fail(str(error))
    reader = FloorStore(store_path, read_only=True)  # the view's own connection
    page = None
    if http is not None:
        from tablectl.mqtt.floor_web import FloorWeb, floor_json

        web_reader = FloorStore(store_path, read_only=True)  # the web thread's own
        try:
            page = FloorWeb(lambda: floor_json(floor, web_reader, shifts), *http)
        except OSError as error:
            floor.stop()
            reader.close()
            web_reader.close()
            floor.store.close()
            return _fail(f"the floor's web page cannot listen on {http[0]}:{http[1]} "
                         f"({error.strerror or error})")
    stopping = threading.Event()

    def stop(signum: int, frame: Any) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    live = (args.view or ("live" if sys.stdout.isatty() else "lines")) == "live"
    every = 1.0 if live else max(args.every, 0.1)
    print(f"floor on {broker.address}, store {store_path}"
          + (f", sharing as {args.client_id} in group {share}" if share is not None else "")
          + (f", web page {page.url}" if page is not None else ""), flush=True)
    try:
        while not stopping.wait(every):
            now = time.time()
            shift = shift_start(now, shifts)
            text = render(floor.snapshot(), reader.house_since(shift.timestamp()),
                          now=now, shift=shift, broker=broker.address, error=floor.error)
            print(("\x1b[H\x1b[2J" if live else "") + text, flush=True)
    finally:
        if page is not None:
            page.stop()
            web_reader.close()
        floor.stop()
        reader.close()
        floor.store.close()
    print(f"floor stopped: {floor.stored_events} event(s) stored, {floor.duplicates} "
          f"repeat(s) ignored, {floor.bad_messages + floor.refused} message(s) refused",
          flush=True)
    return 0
