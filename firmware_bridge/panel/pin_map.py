"""The pin map: which GPIO drives which lamp and reads which button.

Parsed from a plain dict (the `[panel]` section of the config). Every problem
is collected and reported at once in `PinMapError.problems`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from firmware_bridge.panel.picture import BOX_COUNT, LAMP_NAMES, BoxLamp

# BCM numbers of the GPIO lines on the Raspberry Pi header.
LOWEST_PIN = 0
HIGHEST_PIN = 27

LED_STATES = tuple(state for state in BoxLamp if state is not BoxLamp.OFF)


class PinMapError(ValueError):
    """The pin map cannot be used; `problems` lists every reason."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("invalid panel pin map:\n" + "\n".join(f"  - {p}" for p in problems))


@dataclass(frozen=True)
class RgbBox:
    """A box lit by one RGB LED."""

    red: int
    green: int
    blue: int
    common_anode: bool = False

    def pins(self) -> tuple[int, ...]:
        return (self.red, self.green, self.blue)


@dataclass(frozen=True)
class LedBox:
    """A box lit by one single-colour LED per state (OFF is all dark)."""

    leds: Mapping[BoxLamp, int]
    active_high: bool = True

    def pins(self) -> tuple[int, ...]:
        return tuple(self.leds[state] for state in LED_STATES)


BoxPins = RgbBox | LedBox


@dataclass(frozen=True)
class ButtonPin:
    name: str
    pin: int
    pull_up: bool = True
    bounce_s: float = 0.05


@dataclass(frozen=True)
class PinMap:
    boxes: Mapping[int, BoxPins]
    lamps: Mapping[str, int]
    buttons: tuple[ButtonPin, ...]
    pwm: bool = True
    blink_on_s: float = 0.5
    blink_off_s: float = 0.5
    lamps_active_high: bool = True

    def button(self, name: str) -> ButtonPin:
        for button in self.buttons:
            if button.name == name:
                return button
        raise KeyError(f"no button named {name!r}")


# The built-in map: seven RGB boxes (as many as any profile deals), four lamps
# and the dealer's stand / next button use all 26 GPIO lines of the 40-pin
# header (BCM numbers). More buttons need fewer boxes or a pin expander. See
# docs/panel.md.
DEFAULT_PIN_MAP: dict[str, Any] = {
    "pwm": True,
    "blink_on_ms": 500,
    "blink_off_ms": 500,
    "bounce_ms": 50,
    "boxes": {
        "1": {"rgb": [4, 17, 27]},
        "2": {"rgb": [22, 10, 9]},
        "3": {"rgb": [11, 5, 6]},
        "4": {"rgb": [13, 19, 26]},
        "5": {"rgb": [14, 15, 18]},
        "6": {"rgb": [3, 7, 12]},
        "7": {"rgb": [16, 20, 21]},
    },
    "lamps": {"draw": 23, "stand": 24, "alarm": 25, "shoe_fault": 8},
    "buttons": {"stand": 2},
}

_TOP_KEYS = (
    "pwm",
    "blink_on_ms",
    "blink_off_ms",
    "bounce_ms",
    "lamps_active_high",
    "boxes",
    "lamps",
    "buttons",
)
_BUTTON_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_PIN_NAME = re.compile(r"^(?:GPIO|BCM)(\d+)$", re.IGNORECASE)


def parse_pin_map(section: Mapping[str, Any]) -> PinMap:
    """Validate a `[panel]` section; an empty section means the built-in map."""
    if not section:
        section = DEFAULT_PIN_MAP
    return _Parser(section).parse()


class _Parser:
    def __init__(self, section: Mapping[str, Any]) -> None:
        self.section = section
        self.problems: list[str] = []
        self.used: dict[int, str] = {}

    def parse(self) -> PinMap:
        section = self.section
        for key in section:
            if key not in _TOP_KEYS:
                self.problems.append(
                    f"unknown key {key!r}; allowed keys are {', '.join(_TOP_KEYS)}"
                )
        pwm = self._flag(section, "pwm", True, "pwm")
        lamps_active_high = self._flag(section, "lamps_active_high", True, "lamps_active_high")
        blink_on = self._millis(section, "blink_on_ms", 500, "blink_on_ms")
        blink_off = self._millis(section, "blink_off_ms", 500, "blink_off_ms")
        bounce = self._millis(section, "bounce_ms", 50, "bounce_ms", allow_zero=True)
        boxes = self._boxes(section.get("boxes"))
        lamps = self._lamps(section.get("lamps"))
        buttons = self._buttons(section.get("buttons", {}), bounce)
        if self.problems:
            raise PinMapError(self.problems)
        return PinMap(
            boxes=boxes,
            lamps=lamps,
            buttons=buttons,
            pwm=pwm,
            blink_on_s=blink_on / 1000,
            blink_off_s=blink_off / 1000,
            lamps_active_high=lamps_active_high,
        )

    # -- parts --------------------------------------------------------------

    def _boxes(self, raw: Any) -> dict[int, BoxPins]:
        if raw is None:
            self.problems.append(
                "missing 'boxes': give each box 1..N an 'rgb' or 'leds' entry "
                "(boxes.1 = { rgb = [4, 17, 27] })"
            )
            return {}
        if not isinstance(raw, Mapping):
            self.problems.append("'boxes' must be a table keyed by box number")
            return {}
        boxes: dict[int, BoxPins] = {}
        for key, entry in raw.items():
            number = _box_number(key)
            if number is None:
                self.problems.append(
                    f"boxes: {key!r} is not a box number; boxes are numbered 1 to {BOX_COUNT}"
                )
                continue
            parsed = self._box(number, entry)
            if parsed is not None:
                boxes[number] = parsed
        numbers = sorted(_box_number(key) or 0 for key in raw)
        expected = list(range(1, len(numbers) + 1))
        if numbers and all(n > 0 for n in numbers) and numbers != expected:
            missing = sorted(set(range(1, max(numbers) + 1)) - set(numbers))
            self.problems.append(
                f"boxes: missing box {', '.join(map(str, missing))}; boxes are numbered "
                "1, 2, 3... without gaps"
            )
        if not raw:
            self.problems.append("boxes: at least box 1 is needed")
        return boxes

    def _box(self, number: int, entry: Any) -> BoxPins | None:
        where = f"boxes.{number}"
        if not isinstance(entry, Mapping):
            self.problems.append(f"{where}: must be a table with 'rgb' or 'leds'")
            return None
        if ("rgb" in entry) == ("leds" in entry):
            self.problems.append(f"{where}: give exactly one of 'rgb' (three pins) or 'leds'")
            return None
        if "rgb" in entry:
            self._unknown(entry, ("rgb", "common_anode"), where)
            common_anode = self._flag(entry, "common_anode", False, f"{where}.common_anode")
            pins = entry["rgb"]
            if not isinstance(pins, list) or len(pins) != 3:
                self.problems.append(f"{where}.rgb: must be three pins [red, green, blue]")
                return None
            colours = ("red", "green", "blue")
            numbers = [self._pin(p, f"{where}.rgb {c}") for p, c in zip(pins, colours, strict=True)]
            if any(n is None for n in numbers):
                return None
            red, green, blue = (n for n in numbers if n is not None)
            return RgbBox(red, green, blue, common_anode)
        self._unknown(entry, ("leds", "active_high"), where)
        active_high = self._flag(entry, "active_high", True, f"{where}.active_high")
        leds_raw = entry["leds"]
        if not isinstance(leds_raw, Mapping):
            self.problems.append(f"{where}.leds: must be a table of state = pin")
            return None
        names = tuple(state.value for state in LED_STATES)
        self._unknown(leds_raw, names, f"{where}.leds")
        leds: dict[BoxLamp, int] = {}
        for state in LED_STATES:
            if state.value not in leds_raw:
                self.problems.append(f"{where}.leds: missing '{state.value}' (states: {names})")
                continue
            pin = self._pin(leds_raw[state.value], f"{where}.leds.{state.value}")
            if pin is not None:
                leds[state] = pin
        if len(leds) != len(LED_STATES):
            return None
        return LedBox(leds, active_high)

    def _lamps(self, raw: Any) -> dict[str, int]:
        if not isinstance(raw, Mapping):
            self.problems.append(
                f"'lamps' must be a table giving a pin for each of {', '.join(LAMP_NAMES)}"
            )
            return {}
        self._unknown(raw, LAMP_NAMES, "lamps")
        lamps: dict[str, int] = {}
        for name in LAMP_NAMES:
            if name not in raw:
                self.problems.append(f"lamps: missing '{name}'")
                continue
            pin = self._pin(raw[name], f"lamps.{name}")
            if pin is not None:
                lamps[name] = pin
        return lamps

    def _buttons(self, raw: Any, bounce_ms: float) -> tuple[ButtonPin, ...]:
        if not isinstance(raw, Mapping):
            self.problems.append("'buttons' must be a table of name = pin")
            return ()
        buttons: list[ButtonPin] = []
        for name, entry in raw.items():
            where = f"buttons.{name}"
            if not isinstance(name, str) or not _BUTTON_NAME.match(name):
                self.problems.append(
                    f"{where}: a button name is lower-case letters, digits and '_'"
                )
                continue
            pull_up = True
            bounce = bounce_ms
            if isinstance(entry, Mapping):
                self._unknown(entry, ("pin", "pull_up", "bounce_ms"), where)
                pull_up = self._flag(entry, "pull_up", True, f"{where}.pull_up")
                bounce = self._millis(
                    entry, "bounce_ms", bounce_ms, f"{where}.bounce_ms", allow_zero=True
                )
                if "pin" not in entry:
                    self.problems.append(f"{where}: missing 'pin'")
                    continue
                entry = entry["pin"]
            pin = self._pin(entry, where)
            if pin is not None:
                buttons.append(ButtonPin(name, pin, pull_up, bounce / 1000))
        return tuple(buttons)

    # -- values -------------------------------------------------------------

    def _pin(self, raw: Any, where: str) -> int | None:
        number: int | None = None
        if isinstance(raw, int) and not isinstance(raw, bool):
            number = raw
        elif isinstance(raw, str) and (match := _PIN_NAME.match(raw.strip())):
            number = int(match.group(1))
        if number is None or not LOWEST_PIN <= number <= HIGHEST_PIN:
            self.problems.append(
                f"{where}: {raw!r} is not a GPIO pin; give its BCM number "
                f"{LOWEST_PIN}..{HIGHEST_PIN} (e.g. 17 or \"GPIO17\")"
            )
            return None
        if number in self.used:
            self.problems.append(
                f"{where}: GPIO{number} is already used by {self.used[number]}; "
                "every lamp and button needs its own pin"
            )
            return None
        self.used[number] = where
        return number

    def _flag(self, raw: Mapping[str, Any], key: str, default: bool, where: str) -> bool:
        value = raw.get(key, default)
        if not isinstance(value, bool):
            self.problems.append(f"{where}: must be true or false, got {value!r}")
            return default
        return value

    def _millis(
        self,
        raw: Mapping[str, Any],
        key: str,
        default: float,
        where: str,
        allow_zero: bool = False,
    ) -> float:
        value = raw.get(key, default)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or value < 0
            or (value == 0 and not allow_zero)
        ):
            kind = "zero or more" if allow_zero else "more than zero"
            self.problems.append(f"{where}: must be a number of milliseconds, {kind}")
            return default
        return float(value)

    def _unknown(self, raw: Mapping[str, Any], allowed: tuple[str, ...], where: str) -> None:
        for key in raw:
            if key not in allowed:
                self.problems.append(
                    f"{where}: unknown key {key!r}; allowed keys are {', '.join(allowed)}"
                )


def _box_number(key: Any) -> int | None:
    text = str(key)
    if not text.isdigit():
        return None
    number = int(text)
    return number if 1 <= number <= BOX_COUNT else None
