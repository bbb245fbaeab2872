"""`tablectl shoe monitor` (read a shoe and print its cards) and the `sim`
group with `tablectl sim shoe` (start a virtual shoe).

Other modules add their own simulators to `tablectl sim` through
`sim_subparsers(subparsers)`.
"""

from __future__ import annotations

import argparse
import json
import logging
import queue
import signal
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any, TypeVar

from firmware_bridge.serial_port import Backoff
from firmware_bridge.shoelink import (
    RELIABLE_EVENTS,
    LinkState,
    ShoeCard,
    ShoeEvent,
    ShoeHello,
    ShoeLinkReader,
    ShoeStatus,
    ShoeUnreadable,
)
from firmware_bridge.text_scanner import (
    DELIVERY_WARNING,
    RejectedLine,
    ScannedCard,
    ScannerEvent,
    TextScannerReader,
)

_SIM_GROUP_ATTRIBUTE = "_tablectl_sim_group"
Event = TypeVar("Event")


def sim_subparsers(subparsers: Any) -> Any:
    """The subcommand group of `tablectl sim`, created on first use; call
    `.add_parser(...)` on it to add a simulator.

    The group is kept on the `subparsers` object itself: a table keyed by
    `id()` handed a stale group to a later parser that reused a freed id."""
    group = getattr(subparsers, _SIM_GROUP_ATTRIBUTE, None)
    if group is None:
        sim = subparsers.add_parser(
            "sim", help="simulated hardware for tests and demonstrations",
            description="Start simulated devices (they print how to connect to them).",
        )
        group = sim.add_subparsers(dest="sim_command", metavar="DEVICE")
        sim.set_defaults(func=lambda args: _help(sim))
        setattr(subparsers, _SIM_GROUP_ATTRIBUTE, group)
    return group


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def register(subparsers: Any) -> None:
    """Add `shoe monitor` and `sim shoe` to the top-level parser."""
    shoe = subparsers.add_parser("shoe", help="the card shoe's link",
                                 description="Read and check the card shoe's serial link.")
    shoe.set_defaults(func=lambda args: _help(shoe))
    shoe_commands = shoe.add_subparsers(dest="shoe_command", metavar="ACTION")
    monitor = shoe_commands.add_parser(
        "monitor", help="print each card the shoe delivers as a JSON line",
        description="Open the shoe's port, print each card as a JSON line once it is "
                    "delivered (acknowledging it after printing) and the link statistics "
                    "on exit (Ctrl-C or --count).",
    )
    monitor.add_argument("--port", required=True, metavar="URL",
                         help="/dev/serial/by-id/..., /dev/ttyACM0, socket://host:port "
                              "(ser2net) or rfc2217://host:port")
    monitor.add_argument("--driver", choices=("shoelink", "text"), default="shoelink")
    monitor.add_argument("--baudrate", type=int, default=None,
                         help="default 115200 (shoelink) or 9600 (text)")
    monitor.add_argument("--count", type=int, default=None, metavar="N",
                         help="stop after N cards")
    monitor.add_argument("--resume-after", type=int, default=None, metavar="SEQ",
                         help="last sequence number already stored elsewhere (default: "
                              "take the shoe's first frame after its HELLO)")
    monitor.set_defaults(func=run_monitor)

    from hwsim.shoe.cli import register as register_sim_shoe

    register_sim_shoe(sim_subparsers(subparsers))


def run_monitor(args: argparse.Namespace) -> int:
    if args.count is not None and args.count < 1:
        print("error: --count must be at least 1", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s",
                        stream=sys.stderr)
    previous = signal.signal(signal.SIGTERM, _interrupt)  # stop as on Ctrl-C, with stats
    try:
        if args.driver == "text":
            return _monitor_text(args)
        return _monitor_shoelink(args)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _print(record: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def _note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _print_stats(stats: dict[str, Any]) -> None:
    _note("link statistics:")
    for key, value in stats.items():
        _note(f"  {key:26} {value}")


def _monitor_shoelink(args: argparse.Namespace) -> int:
    if args.resume_after is not None and not 0 <= args.resume_after <= 65535:
        print("error: --resume-after must be a sequence number 0-65535", file=sys.stderr)
        return 2
    inbox: queue.Queue[ShoeEvent] = queue.Queue()
    reader = ShoeLinkReader(args.port, inbox.put, resume_after=args.resume_after,
                            baudrate=args.baudrate or 115_200, backoff=Backoff(0.1, 2.0))

    def show(event: ShoeEvent) -> int:
        cards = 0
        if isinstance(event, ShoeCard):
            _print({"seq": event.seq, "index": event.index, "card": event.code,
                    "low_confidence": event.low_confidence})
            cards = 1
        elif isinstance(event, ShoeUnreadable):
            _print({"seq": event.seq, "index": event.index, "unreadable": True})
            cards = 1
        elif isinstance(event, ShoeStatus):
            _print({"seq": event.seq, "shoe": event.event})
        elif isinstance(event, ShoeHello):
            _note(f"shoe: {json.dumps(event.info)}"
                  + (" (new shoe)" if event.new_shoe else "")
                  + (" (restarted)" if event.restarted else ""))
        elif isinstance(event, LinkState):
            _note(f"link {'online' if event.online else 'OFFLINE'}: {event.reason}")
        if isinstance(event, RELIABLE_EVENTS):
            reader.ack(event.seq)  # printed, so "stored": tell the shoe
        return cards

    reader.start()
    _note(f"reading the ShoeLink shoe on {args.port} (Ctrl-C to stop)")
    _watch(inbox, args.count, show, reader.stop)
    _print_stats(reader.stats.as_dict())
    return 0


def _monitor_text(args: argparse.Namespace) -> int:
    inbox: queue.Queue[ScannerEvent] = queue.Queue()
    reader = TextScannerReader(args.port, inbox.put, baudrate=args.baudrate or 9600,
                               backoff=Backoff(0.1, 2.0))
    _note(f"warning: {DELIVERY_WARNING}")

    def show(event: ScannerEvent) -> int:
        if isinstance(event, ScannedCard):
            _print({"number": event.number, "card": event.code})
            return 1
        if isinstance(event, RejectedLine):
            _note(f"rejected line {event.line_number} {event.text!r}: {event.reason}")
        elif isinstance(event, LinkState):
            _note("port open" if event.online else f"port CLOSED: {event.reason}")
        return 0

    # The monitor prints rejected lines itself: the driver's own warnings stay
    # quiet while it runs, and the logger is given back as it was.
    scanner_log = logging.getLogger("firmware_bridge.text_scanner")
    level = scanner_log.level
    scanner_log.setLevel(logging.ERROR)
    reader.start()
    _note(f"reading the text scanner on {args.port} (Ctrl-C to stop)")
    try:
        _watch(inbox, args.count, show, reader.stop)
    finally:
        scanner_log.setLevel(level)
    _print_stats(reader.stats.as_dict())
    return 0


def _watch(inbox: queue.Queue[Event], count: int | None, show: Callable[[Event], int],
           stop: Callable[[], None]) -> None:
    """Show what the reader delivers until `count` cards (None: no end) or Ctrl-C,
    then stop the reader. `show` says how many cards the event was."""
    cards = 0
    try:
        while count is None or cards < count:
            try:
                event = inbox.get(timeout=0.2)
            except queue.Empty:
                continue
            cards += show(event)
    except KeyboardInterrupt:
        pass
    finally:
        stop()
