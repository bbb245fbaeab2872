"""`python -m hwsim shoe` / `tablectl sim shoe`: run a virtual shoe until Ctrl-C."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from dataclasses import asdict
from types import FrameType
from typing import Any

from foundation.arguments import non_negative, positive_int
from hwsim.shoe.cards import CardListError, load_stacked, shuffled_shoe
from hwsim.shoe.faults import LineFaults
from hwsim.shoe.text_scanner import VirtualTextScanner
from hwsim.shoe.virtual_shoe import ShoeTiming, VirtualShoe


def _faults(text: str) -> LineFaults:
    try:
        return LineFaults.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_shoe_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a virtual shoe, shared by both command lines."""
    load = parser.add_argument_group("the cards")
    load.add_argument("--decks", type=positive_int, default=6, help="decks shuffled together")
    load.add_argument("--seed", type=int, default=None, help="shuffle seed (reproducible)")
    load.add_argument("--stacked", metavar="FILE",
                      help="deal these cards in this order (codes like AS TD 10h, # comments)")
    load.add_argument("--rate", type=non_negative, default=2.0,
                      help="cards per second; 0 = as fast as the buffer allows (default 2)")
    load.add_argument("--cut-card", type=positive_int, default=None, metavar="N",
                      help="send 'cut card reached' after card N")
    load.add_argument("--unreadable", type=non_negative, default=0.0, metavar="P",
                      help="chance that a card leaves unread (UNREADABLE frame)")
    device = parser.add_argument_group("the device")
    device.add_argument("--link", metavar="PATH",
                        help="stable path kept pointing at the pty, like /dev/serial/by-id "
                             "(default: a new temporary folder)")
    device.add_argument("--serial-number", default="SHOE-0001")
    device.add_argument("--text", action="store_true",
                        help="a plain-text scanner (one card per line) instead of ShoeLink")
    device.add_argument("--garbage", type=non_negative, default=0.0, metavar="P",
                        help="text scanner: chance of a garbage line before a card")
    device.add_argument("--wait-for-host", action="store_true",
                        help="switch on only once a host has opened the port, so the host "
                             "reads from the first line or frame (a text scanner otherwise "
                             "loses what it sent before the host opened the port)")
    device.add_argument("--resend-ms", type=non_negative, default=250.0)
    device.add_argument("--heartbeat-ms", type=non_negative, default=1000.0)
    device.add_argument("--buffer", type=positive_int, default=64,
                        help="frames kept until acknowledged (the gate stops when full)")
    device.add_argument("--faults", type=_faults, default=LineFaults(), metavar="SPEC",
                        help="e.g. noise=0.01,drop=0.01,unplug=0.001,unplug_s=2 or all=0.005 "
                             "(kinds: noise corrupt drop duplicate reorder stall unplug)")
    device.add_argument("--seconds", type=non_negative, default=None,
                        help="stop after this long (default: run until Ctrl-C)")


def run_shoe(args: argparse.Namespace) -> int:
    try:
        cards = load_stacked(args.stacked) if args.stacked else shuffled_shoe(args.decks, args.seed)
    except CardListError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, on_signal)
    device: Any
    try:
        if args.text:
            device = VirtualTextScanner(
                cards, card_interval_s=1.0 / args.rate if args.rate else 0.0,
                garbage=args.garbage, seed=args.seed, link_path=args.link,
                wait_for_host=args.wait_for_host,
            )
        else:
            timing = ShoeTiming(
                resend_interval_s=args.resend_ms / 1000,
                heartbeat_interval_s=args.heartbeat_ms / 1000,
                card_interval_s=1.0 / args.rate if args.rate else 0.0,
            )
            device = VirtualShoe(
                cards, serial_number=args.serial_number, decks=None if args.stacked else args.decks,
                timing=timing, faults=args.faults, seed=args.seed, link_path=args.link,
                buffer_size=args.buffer, cut_card_after=args.cut_card,
                unreadable=args.unreadable, wait_for_host=args.wait_for_host,
            )
        device.start()
    except (OSError, ValueError) as error:
        print(f"error: cannot start the virtual shoe: {error}", file=sys.stderr)
        signal.signal(signal.SIGTERM, previous)
        return 1
    kind = "text scanner" if args.text else "ShoeLink shoe"
    driver = " --driver text" if args.text else ""
    deadline = None if args.seconds is None else time.monotonic() + args.seconds
    try:  # from the first line printed: a Ctrl-C as soon as the path is read stops cleanly
        print(device.path, flush=True)
        print(f"virtual {kind} with {len(cards)} cards on {device.path} "
              f"(pty {device.device_name}); read it with:\n"
              f"  tablectl shoe monitor --port {device.path}{driver}\n"
              "Ctrl-C stops it.", file=sys.stderr, flush=True)
        while not stop.is_set():
            if deadline is not None and time.monotonic() >= deadline:
                break
            stop.wait(0.1)
    except KeyboardInterrupt:
        pass
    finally:
        device.stop()
        signal.signal(signal.SIGTERM, previous)
    if isinstance(device, VirtualShoe):
        summary = {"counters": asdict(device.counters), "faults": asdict(device.faults.counts),
                   "cards_left": device.cards_left, "acked_seq": device.acked_seq}
    else:
        summary = {"cards_sent": len(device.cards_sent), "garbage_sent": device.garbage_sent}
    print(json.dumps(summary), file=sys.stderr)
    return 0


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add `shoe` to a subcommand group (hwsim's own or `tablectl sim`)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "shoe", help="start a virtual card shoe on a pseudo-terminal",
        description="Start a virtual card shoe (ShoeLink v1, or a plain-text scanner) "
                    "on a pseudo-terminal and print the path to open.",
    )
    add_shoe_arguments(parser)
    parser.set_defaults(func=run_shoe)
    return parser
