"""`tablectl panel test`: walk every lamp through each of its states and
report button presses, on the real GPIO pins or on mock ones (`--mock`)."""

from __future__ import annotations

import argparse
import os
import queue
import signal
import sys
import time
import tomllib
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware_bridge.panel import (
    BOX_COLOURS,
    LAMP_NAMES,
    BoxLamp,
    LampPicture,
    Panel,
    PanelError,
    PinMap,
    PinMapError,
    RgbBox,
    parse_pin_map,
)
from foundation.arguments import non_negative

_COLOUR_NAMES = {
    (0.0, 0.0, 1.0): "blue",
    (1.0, 1.0, 1.0): "white",
    (0.0, 1.0, 0.0): "green",
    (1.0, 0.0, 0.0): "red",
    (1.0, 1.0, 0.0): "yellow",
    (1.0, 0.0, 1.0): "magenta",
}


def register(subparsers: Any) -> None:
    """Add this group's commands to the top-level parser."""
    panel = subparsers.add_parser(
        "panel", help="the lamp and button panel",
        description="Check the table's lamps and buttons.",
    )
    group = panel.add_subparsers(dest="panel_command", metavar="ACTION")
    panel.set_defaults(func=lambda args: _help(panel))
    test = group.add_parser(
        "test", help="light every lamp in turn, then report button presses",
        description=(
            "Walks every box through each state (bet, turn, won, lost, push, blackjack), "
            "then the DRAW, STAND, alarm and shoe-fault lamps, then prints each button "
            "press until --listen-s runs out or Ctrl-C."
        ),
    )
    test.add_argument(
        "--config", metavar="FILE",
        help="a tablectl TOML config; its [panel] section is the pin map "
        "(default: the built-in pin map)",
    )
    test.add_argument(
        "--mock", action="store_true",
        help="use gpiozero mock pins instead of the GPIO header (shows each step as text); "
        "the same as GPIOZERO_PIN_FACTORY=mock",
    )
    test.add_argument(
        "--step-ms", type=non_negative, default=700.0, metavar="MS",
        help="how long each lamp state is shown (default 700)",
    )
    test.add_argument(
        "--listen-s", type=non_negative, default=None, metavar="S",
        help="how long to report button presses after the walk "
        "(default: 30 on real pins, 0 with --mock)",
    )
    test.add_argument(
        "--press", action="append", default=[], metavar="BUTTON",
        help="with --mock: press and release this virtual button while listening "
        "(repeatable)",
    )
    test.set_defaults(func=run_test)


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def load_pin_map(config: str | None) -> PinMap:
    """The pin map from a config file's [panel] section, or the built-in one."""
    if config is None:
        return parse_pin_map({})
    path = Path(config)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise PinMapError([f"{path}: cannot read the file: {error.strerror}"]) from error
    except tomllib.TOMLDecodeError as error:
        raise PinMapError([f"{path}: not valid TOML: {error}"]) from error
    section = raw.get("panel", {})
    if not isinstance(section, dict):
        raise PinMapError([f"{path}: [panel] must be a table of keys"])
    return parse_pin_map(section)


def run_test(args: argparse.Namespace) -> int:
    # gpiozero's own mock factory has no PWM, which the RGB boxes need: with
    # GPIOZERO_PIN_FACTORY=mock the test runs on the panel's PWM-capable mock pins.
    args.mock = args.mock or os.environ.get("GPIOZERO_PIN_FACTORY") == "mock"
    if args.press and not args.mock:
        print("tablectl panel test: --press needs --mock (real buttons are pressed by hand)",
              file=sys.stderr)
        return 2
    try:
        pin_map = load_pin_map(args.config)
    except PinMapError as error:
        print(f"tablectl panel test: {error}", file=sys.stderr)
        return 2
    unknown = [name for name in args.press if name not in {b.name for b in pin_map.buttons}]
    if unknown:
        names = ", ".join(b.name for b in pin_map.buttons) or "none"
        print(f"tablectl panel test: no button named {', '.join(unknown)}; "
              f"the pin map has: {names}", file=sys.stderr)
        return 2

    show: Callable[[], str]
    press: Callable[[str], None]
    if args.mock:
        from hwsim.panel import MockPanel

        mock = MockPanel(pin_map)
        panel = mock.panel
        show = mock.render
        press = mock.click
        listen_s = 0.0 if args.listen_s is None else args.listen_s
    else:
        try:
            with warnings.catch_warnings():
                # gpiozero warns for every pin library it tries; the error says enough.
                warnings.simplefilter("ignore")
                panel = Panel(pin_map)
        except Exception as error:  # gpiozero raises many kinds when pins are unusable
            print(
                f"tablectl panel test: cannot open the GPIO pins ({type(error).__name__}: "
                f"{error}); on a Raspberry Pi install the pin library (pip install "
                "'tablectl[pi]'), check the pin map, or try --mock",
                file=sys.stderr,
            )
            return 1
        show = _nothing_to_show
        press = _no_press
        listen_s = 30.0 if args.listen_s is None else args.listen_s
    previous = _stop_on_sigterm()
    try:
        _walk(panel, pin_map, args.step_ms / 1000, show)
        _listen(panel, listen_s, press, args.press)
    except PanelError as error:
        print(f"tablectl panel test: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("stopped")
    finally:
        panel.close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return 0


def _stop_on_sigterm() -> Any:
    """SIGTERM stops the test like Ctrl-C, so the pins are released on the way out;
    returns the handler it replaced (None when it could not install one)."""

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        return signal.signal(signal.SIGTERM, stop)
    except ValueError:
        return None  # not the main thread


def _no_press(name: str) -> None:
    del name


def _nothing_to_show() -> str:
    return ""  # real lamps are looked at, not printed


def _walk(panel: Panel, pin_map: PinMap, step_s: float, show: Callable[[], str]) -> None:
    blank = LampPicture()
    steps: list[tuple[str, LampPicture]] = []
    for box, pins in sorted(pin_map.boxes.items()):
        for state in BoxLamp:
            if state is BoxLamp.OFF:
                continue
            how = (
                _COLOUR_NAMES.get(BOX_COLOURS[state], str(BOX_COLOURS[state]))
                if isinstance(pins, RgbBox) else f"{state.value} LED"
            )
            blink = ", blinking" if state is BoxLamp.TURN else ""
            steps.append((f"box {box}: {state.value} ({how}{blink})", blank.with_box(box, state)))
    for name in LAMP_NAMES:
        steps.append((f"lamp {name}: on", blank.with_lamp(name, True)))
    steps.append(("all off", blank))
    for label, picture in steps:
        panel.apply(picture)
        line = show()
        print(f"{label:<40} {line}".rstrip(), flush=True)
        time.sleep(step_s)


def _listen(
    panel: Panel, listen_s: float, press: Callable[[str], None], to_press: list[str]
) -> None:
    names = ", ".join(panel.button_names) or "none"
    print(f"buttons ({names}): press each one; listening for {listen_s:g} s", flush=True)
    started = time.monotonic()
    for name in to_press:
        press(name)
    deadline = started + listen_s
    count = 0
    while True:
        timeout = deadline - time.monotonic()
        try:
            event = panel.events.get(timeout=max(timeout, 0.0)) if timeout > 0 else (
                panel.events.get_nowait()
            )
        except queue.Empty:
            break
        count += 1
        print(f"button {event.name} pressed at +{event.monotonic_time - started:.3f} s",
              flush=True)
    print(f"{count} button press(es) reported")
