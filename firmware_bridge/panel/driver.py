"""The panel driver: applies lamp pictures to gpiozero devices, reports buttons.

It knows nothing of the game: a picture says which state each box shows and
which single lamps are lit; a button press is a name and a time.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpiozero import LED, PWMLED, RGBLED, Button

from firmware_bridge.panel.picture import (
    BLINKING,
    BOX_COLOURS,
    LAMP_NAMES,
    BoxLamp,
    LampPicture,
)
from firmware_bridge.panel.pin_map import LED_STATES, LedBox, PinMap, RgbBox


class PanelError(Exception):
    """A picture or request the panel cannot carry out."""


@dataclass(frozen=True)
class ButtonPress:
    name: str
    monotonic_time: float


ButtonCallback = Callable[[ButtonPress], None]


Light = Callable[[bool], None]  # a blinking indicator's "lit now" or "dark now"


class _Blinker:
    """One thread that blinks every blinking indicator, all in step.

    A thread per blinking lamp (gpiozero's `blink`) would be started and joined
    at every turn; this one starts with the first blink and runs until `stop`.
    `lock` is the panel's: `blink`/`steady` are called holding it, and the
    thread takes it to switch the lamps."""

    def __init__(self, on_s: float, off_s: float, lock: threading.Lock) -> None:
        self.on_s = on_s
        self.off_s = off_s
        self._lock = lock
        self._lights: dict[int, Light] = {}
        self._lit = True
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def blink(self, key: int, light: Light) -> None:
        # Lit at once, so the change shows now; in step from the next switch on.
        light(True)
        self._lights[key] = light
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="panel-blink", daemon=True)
            self._thread.start()

    def steady(self, key: int) -> None:
        self._lights.pop(key, None)

    def stop(self) -> None:
        """Stop the thread (call without holding the panel's lock)."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stopping.wait(self.on_s if self._lit else self.off_s):
            with self._lock:
                self._lit = not self._lit
                for light in self._lights.values():
                    light(self._lit)


class _RgbIndicator:
    def __init__(self, number: int, pins: RgbBox, pin_map: PinMap, factory: Any,
                 blinker: _Blinker) -> None:
        self.number = number
        self.led = RGBLED(
            pins.red,
            pins.green,
            pins.blue,
            active_high=not pins.common_anode,
            pwm=pin_map.pwm,
            pin_factory=factory,
        )
        self.blinker = blinker

    def show(self, state: BoxLamp) -> None:
        colour = BOX_COLOURS[state]
        if state in BLINKING:
            def light(lit: bool) -> None:
                self.led.value = colour if lit else (0, 0, 0)

            self.blinker.blink(self.number, light)
        else:
            self.blinker.steady(self.number)
            self.led.value = colour

    def close(self) -> None:
        self.blinker.steady(self.number)
        self.led.close()


class _LedIndicator:
    def __init__(self, number: int, pins: LedBox, pin_map: PinMap, factory: Any,
                 blinker: _Blinker) -> None:
        self.number = number
        self.leds = {
            state: LED(pins.leds[state], active_high=pins.active_high, pin_factory=factory)
            for state in LED_STATES
        }
        self.blinker = blinker

    def show(self, state: BoxLamp) -> None:
        self.blinker.steady(self.number)
        for other, led in self.leds.items():
            if other is not state:
                led.off()
        if state is BoxLamp.OFF:
            return
        if state in BLINKING:
            led = self.leds[state]

            def light(lit: bool) -> None:
                led.value = 1 if lit else 0

            self.blinker.blink(self.number, light)
        else:
            self.leds[state].on()

    def close(self) -> None:
        self.blinker.steady(self.number)
        for led in self.leds.values():
            led.close()


_Indicator = _RgbIndicator | _LedIndicator


class Panel:
    """The lamps and buttons of one table, built from a pin map."""

    def __init__(
        self,
        pin_map: PinMap,
        pin_factory: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pin_map = pin_map
        self._clock = clock
        self._lock = threading.Lock()
        self._callbacks: list[ButtonCallback] = []
        self.events: queue.Queue[ButtonPress] = queue.Queue()
        self._last_edge: dict[str, float] = {}
        self._indicators: dict[int, _Indicator] = {}
        self._lamps: dict[str, LED | PWMLED] = {}
        self._buttons: dict[str, Button] = {}
        self._shown = LampPicture()
        self._closed = False
        self._blinker = _Blinker(pin_map.blink_on_s, pin_map.blink_off_s, self._lock)
        try:
            for number, pins in sorted(pin_map.boxes.items()):
                if isinstance(pins, RgbBox):
                    self._indicators[number] = _RgbIndicator(number, pins, pin_map,
                                                             pin_factory, self._blinker)
                else:
                    self._indicators[number] = _LedIndicator(number, pins, pin_map,
                                                             pin_factory, self._blinker)
            for name in LAMP_NAMES:
                self._lamps[name] = LED(
                    pin_map.lamps[name],
                    active_high=pin_map.lamps_active_high,
                    pin_factory=pin_factory,
                )
            for spec in pin_map.buttons:
                button = Button(
                    spec.pin,
                    pull_up=spec.pull_up,
                    bounce_time=spec.bounce_s or None,
                    pin_factory=pin_factory,
                )
                button.when_pressed = self._press_handler(spec.name, spec.bounce_s)
                button.when_released = self._release_handler(spec.name)
                self._buttons[spec.name] = button
        except Exception:
            self.close()
            raise

    # -- lamps ---------------------------------------------------------------

    @property
    def shown(self) -> LampPicture:
        """The picture the lamps show now (the last one applied)."""
        return self._shown

    def apply(self, picture: LampPicture) -> None:
        """Show `picture`, touching only the devices whose state changed."""
        with self._lock:
            if self._closed:
                raise PanelError("the panel is closed; build a new Panel to drive the lamps")
            for number, state in enumerate(picture.boxes, start=1):
                if state is not BoxLamp.OFF and number not in self._indicators:
                    raise PanelError(
                        f"box {number} is to show {state.value} but the pin map wires boxes "
                        f"1..{len(self._indicators)} only; add box {number} to [panel.boxes]"
                    )
            for number, indicator in self._indicators.items():
                state = picture.box(number)
                if state is not self._shown.box(number):
                    indicator.show(state)
            for name, lamp in self._lamps.items():
                lit = picture.lamp(name)
                if lit != self._shown.lamp(name):
                    lamp.value = 1 if lit else 0
            self._shown = picture

    @property
    def wired_boxes(self) -> tuple[int, ...]:
        """The box numbers the pin map wires; other boxes must stay OFF."""
        return tuple(sorted(self._indicators))

    def is_blinking(self, box: int) -> bool:
        """Whether box `box`'s indicator is blinking now."""
        return box in self._indicators and self._shown.box(box) in BLINKING

    # -- buttons -------------------------------------------------------------

    @property
    def button_names(self) -> tuple[str, ...]:
        return tuple(self._buttons)

    def on_button(self, callback: ButtonCallback) -> None:
        """Call `callback(ButtonPress)` for every press (on gpiozero's thread)."""
        self._callbacks.append(callback)

    def _press_handler(self, name: str, bounce_s: float) -> Callable[[], None]:
        def pressed() -> None:
            now = self._clock()
            last = self._last_edge.get(name)
            self._last_edge[name] = now
            # Contacts chatter: an edge within the bounce time of the previous
            # one is the same press. The pin factory may debounce too (lgpio
            # does); the mock pins do not, so the panel does it itself.
            if last is not None and now - last < bounce_s:
                return
            press = ButtonPress(name, now)
            self.events.put(press)
            for callback in list(self._callbacks):
                callback(press)

        return pressed

    def _release_handler(self, name: str) -> Callable[[], None]:
        def released() -> None:
            self._last_edge[name] = self._clock()

        return released

    # -- life ------------------------------------------------------------------

    def close(self) -> None:
        """Turn every lamp off and release every pin; safe to call twice."""
        self._blinker.stop()
        with self._lock:
            self._closed = True
            for indicator in self._indicators.values():
                indicator.close()
            for lamp in self._lamps.values():
                lamp.close()
            for button in self._buttons.values():
                button.close()
            self._indicators.clear()
            self._lamps.clear()
            self._buttons.clear()

    def __enter__(self) -> Panel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
