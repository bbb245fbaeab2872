"""The virtual panel: a real `Panel` on gpiozero's mock pins.

Press and release virtual buttons, read back what the lamps show from the pin
states themselves, and render the whole panel as one line for a terminal.

gpiozero's mock pins keep every state change they ever had (`pin.states`), so
a simulated table left running would grow without end; the panel's pins keep
the last `history` changes (all of them with `history=None`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpiozero.pins.mock import MockPin

from firmware_bridge.panel import (
    BOX_COLOURS,
    LAMP_NAMES,
    BoxLamp,
    Colour,
    LedBox,
    Panel,
    PinMap,
    RgbBox,
    parse_pin_map,
)
from firmware_bridge.panel.mock_pins import mock_factory

_COLOUR_STATES = {colour: state for state, colour in BOX_COLOURS.items()}


# Changes each pin of a `MockPanel` remembers (gpiozero's own mock pins keep all).
PIN_HISTORY = 256


class MockPanel:
    """A `Panel` built on a fresh `MockFactory` (PWM pins when the map uses PWM);
    each pin keeps its last `history` state changes (None: every one)."""

    def __init__(self, pin_map: PinMap | Mapping[str, Any] | None = None,
                 history: int | None = PIN_HISTORY) -> None:
        if pin_map is None or isinstance(pin_map, Mapping):
            pin_map = parse_pin_map(pin_map or {})
        self.pin_map = pin_map
        self.factory = mock_factory(pin_map.pwm, history)
        self.panel = Panel(pin_map, pin_factory=self.factory)

    # -- buttons -------------------------------------------------------------

    def _button_pin(self, name: str) -> MockPin:
        try:
            spec = self.pin_map.button(name)
        except KeyError:
            known = ", ".join(b.name for b in self.pin_map.buttons) or "none"
            raise KeyError(f"no button named {name!r}; buttons: {known}") from None
        pin: MockPin = self.factory.pin(spec.pin)
        return pin

    def press(self, name: str) -> None:
        """Close the button's contact (drives the pin to its active level)."""
        pin = self._button_pin(name)
        if self.pin_map.button(name).pull_up:
            pin.drive_low()
        else:
            pin.drive_high()

    def release(self, name: str) -> None:
        pin = self._button_pin(name)
        if self.pin_map.button(name).pull_up:
            pin.drive_high()
        else:
            pin.drive_low()

    def click(self, name: str) -> None:
        self.press(name)
        self.release(name)

    # -- lamps ---------------------------------------------------------------

    def pin_level(self, pin: int) -> float:
        """The electrical level of an output pin, 0.0 to 1.0."""
        return float(self.factory.pin(pin).state)

    def _lit(self, pin: int, active_high: bool) -> float:
        level = self.pin_level(pin)
        return level if active_high else 1.0 - level

    def box_colour(self, box: int) -> Colour:
        """The (red, green, blue) an RGB box shows at this instant."""
        pins = self.pin_map.boxes[box]
        if not isinstance(pins, RgbBox):
            raise TypeError(f"box {box} has single LEDs, not an RGB LED; use box_state")
        active_high = not pins.common_anode
        return (
            self._lit(pins.red, active_high),
            self._lit(pins.green, active_high),
            self._lit(pins.blue, active_high),
        )

    def box_state(self, box: int) -> BoxLamp | None:
        """The state box `box` shows, read from its pins; None if no state matches.

        A blinking box reads as its state while on and OFF while dark; see
        `is_blinking`.
        """
        pins = self.pin_map.boxes[box]
        if isinstance(pins, RgbBox):
            return _COLOUR_STATES.get(self.box_colour(box))
        return _led_box_state(self, pins)

    def is_blinking(self, box: int) -> bool:
        return self.panel.is_blinking(box)

    def lamp(self, name: str) -> bool:
        if name not in LAMP_NAMES:
            raise KeyError(f"no lamp named {name!r}; lamps: {', '.join(LAMP_NAMES)}")
        return self._lit(self.pin_map.lamps[name], self.pin_map.lamps_active_high) > 0

    def render(self) -> str:
        """One line: each box's state (`~` while blinking), then the lit lamps."""
        parts = []
        for box in sorted(self.pin_map.boxes):
            if self.is_blinking(box):
                label = f"{self.panel.shown.box(box).value}~"
            else:
                state = self.box_state(box)
                label = state.value if state is not None else "?"
            parts.append(f"{box}:{label}")
        lamps = [
            name.upper() if self.lamp(name) else name
            for name in LAMP_NAMES
        ]
        return " ".join(parts) + " | " + " ".join(lamps)

    def close(self) -> None:
        self.panel.close()

    def __enter__(self) -> MockPanel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _led_box_state(mock: MockPanel, pins: LedBox) -> BoxLamp | None:
    lit = [state for state, pin in pins.leds.items() if mock._lit(pin, pins.active_high) > 0]
    if not lit:
        return BoxLamp.OFF
    return lit[0] if len(lit) == 1 else None
