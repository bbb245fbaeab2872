"""The panel driver on gpiozero's MockFactory with PWM pins: pin levels for
every lamp picture, changes only where the picture changed, blinking, button
presses as events with debounce, and release of every pin on close."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_bridge.panel import (
    BoxLamp,
    ButtonPress,
    LampPicture,
    Panel,
    PanelError,
    parse_pin_map,
)
from tests.tablectl.helpers import Signal

# Colours as docs/panel.md promises them (red, green, blue).
OFF, BLUE, WHITE, GREEN, RED, YELLOW, MAGENTA = (
    (0, 0, 0), (0, 0, 1), (1, 1, 1), (0, 1, 0), (1, 0, 0), (1, 1, 0), (1, 0, 1),
)
STEADY = {
    BoxLamp.OFF: OFF,
    BoxLamp.BET: BLUE,
    BoxLamp.WON: GREEN,
    BoxLamp.LOST: RED,
    BoxLamp.PUSH: YELLOW,
    BoxLamp.BLACKJACK: MAGENTA,
}

BOX1 = (4, 17, 27)  # common cathode: lit component = high pin
BOX2 = (22, 10, 9)  # common anode: lit component = low pin
BOX3 = {"bet": 5, "turn": 6, "won": 13, "lost": 19, "push": 26, "blackjack": 21}
LAMPS = {"draw": 23, "stand": 24, "alarm": 25, "shoe_fault": 8}


def section() -> dict[str, Any]:
    return {
        "blink_on_ms": 20,
        "blink_off_ms": 20,
        "bounce_ms": 50,
        "boxes": {
            "1": {"rgb": list(BOX1)},
            "2": {"rgb": list(BOX2), "common_anode": True},
            "3": {"leds": BOX3},
        },
        "lamps": LAMPS,
        "buttons": {"stand": 2, "double": 3, "new_shoe": {"pin": 7, "pull_up": False}},
    }


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class WatchedPin(MockPWMPin):
    """A mock PWM pin that notes when it changed (on one monotonic clock for every
    pin) and wakes the tests waiting for a change."""

    changed = Signal()

    def _change_state(self, value: Any) -> bool:
        if not super()._change_state(value):
            return False
        switches: list[tuple[float, float]] = self.__dict__.setdefault("switches", [])
        switches.append((time.monotonic(), float(value)))
        WatchedPin.changed.notify()
        return True


def switches_since(pin: Any, since: float) -> list[tuple[float, float]]:
    return [(at, level) for at, level in list(getattr(pin, "switches", [])) if at > since]


@pytest.fixture
def factory() -> MockFactory:
    return MockFactory(pin_class=WatchedPin)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def panel(factory: MockFactory, clock: FakeClock) -> Iterator[Panel]:
    built = Panel(parse_pin_map(section()), pin_factory=factory, clock=clock)
    yield built
    built.close()


def levels(factory: MockFactory, pins: tuple[int, ...]) -> tuple[float, ...]:
    return tuple(float(factory.pin(p).state) for p in pins)


def picture(box1: BoxLamp = BoxLamp.OFF, box2: BoxLamp = BoxLamp.OFF,
            box3: BoxLamp = BoxLamp.OFF, **lamps: bool) -> LampPicture:
    boxes = (box1, box2, box3) + (BoxLamp.OFF,) * 4
    return LampPicture(boxes=boxes, **lamps)


def test_everything_starts_dark(panel: Panel, factory: MockFactory) -> None:
    assert levels(factory, BOX1) == OFF
    assert levels(factory, BOX2) == (1, 1, 1)  # common anode: high is dark
    assert levels(factory, tuple(BOX3.values())) == (0,) * 6
    assert levels(factory, tuple(LAMPS.values())) == (0, 0, 0, 0)


@pytest.mark.parametrize("state", list(STEADY))
def test_each_steady_box_state_sets_the_pins(
    panel: Panel, factory: MockFactory, state: BoxLamp
) -> None:
    panel.apply(picture(state, state, state))
    red, green, blue = STEADY[state]
    assert levels(factory, BOX1) == (red, green, blue)
    assert levels(factory, BOX2) == (1 - red, 1 - green, 1 - blue)
    expected_leds = tuple(1 if name == state.value else 0 for name in BOX3)
    assert levels(factory, tuple(BOX3.values())) == expected_leds


@pytest.mark.parametrize("lamp", list(LAMPS))
def test_each_single_lamp_lights_its_own_pin(
    panel: Panel, factory: MockFactory, lamp: str
) -> None:
    panel.apply(picture(**{lamp: True}))
    assert {name: factory.pin(pin).state for name, pin in LAMPS.items()} == {
        name: (1 if name == lamp else 0) for name in LAMPS
    }
    panel.apply(picture())
    assert levels(factory, tuple(LAMPS.values())) == (0, 0, 0, 0)


def test_turn_blinks_white_then_a_steady_state_stops_the_blink(
    panel: Panel, factory: MockFactory
) -> None:
    for pin in BOX1 + (BOX3["turn"],):
        factory.pin(pin).clear_states()
    panel.apply(picture(BoxLamp.TURN, box3=BoxLamp.TURN))
    assert panel.is_blinking(1) and panel.is_blinking(3) and not panel.is_blinking(2)

    def went_on_and_off(pin: int) -> bool:
        seen = [state.state for state in factory.pin(pin).states]
        return seen.count(1) >= 2 and seen.count(0) >= 2

    # Each of red, green and blue goes on and off again, over and over.
    WatchedPin.changed.wait_until(lambda: all(went_on_and_off(p) for p in BOX1 + (BOX3["turn"],)),
                                  "boxes 1 and 3 to blink")
    # The three components switch together: white or dark, never a colour.
    assert levels(factory, BOX1) in (WHITE, OFF)

    # Box 2 blinks on as a witness: after several of its blinks a leftover blink of
    # box 1 or 3 would show.
    stopped = time.monotonic()
    panel.apply(picture(BoxLamp.WON, BoxLamp.TURN, box3=BoxLamp.LOST))
    assert not panel.is_blinking(1) and panel.is_blinking(2)
    witness = factory.pin(BOX2[0])
    WatchedPin.changed.wait_until(lambda: len(switches_since(witness, stopped)) >= 5,
                                  "box 2 to blink twice")
    assert levels(factory, BOX1) == GREEN
    assert levels(factory, tuple(BOX3.values())) == (0, 0, 0, 1, 0, 0)


def test_apply_touches_only_what_changed(panel: Panel, factory: MockFactory) -> None:
    panel.apply(picture(BoxLamp.BET, BoxLamp.WON, BoxLamp.PUSH, draw=True))
    watched = BOX1 + BOX2 + tuple(BOX3.values()) + tuple(LAMPS.values())
    for pin in watched:
        factory.pin(pin).clear_states()
    panel.apply(picture(BoxLamp.BET, BoxLamp.WON, BoxLamp.PUSH, draw=True))
    assert all(len(factory.pin(pin).states) == 1 for pin in watched)

    panel.apply(picture(BoxLamp.LOST, BoxLamp.WON, BoxLamp.PUSH, draw=True, stand=True))
    changed = {pin for pin in watched if len(factory.pin(pin).states) > 1}
    # box 1 blue -> red: red and blue pins switch, green stays dark; STAND lights.
    assert changed == {BOX1[0], BOX1[2], LAMPS["stand"]}


def test_a_state_for_an_unwired_box_is_refused_and_nothing_changes(
    panel: Panel, factory: MockFactory
) -> None:
    assert panel.wired_boxes == (1, 2, 3)
    with pytest.raises(PanelError, match="box 4 is to show won.*boxes 1..3"):
        panel.apply(picture(BoxLamp.BET, draw=True).with_box(4, BoxLamp.WON))
    assert levels(factory, BOX1) == OFF and factory.pin(LAMPS["draw"]).state == 0
    assert panel.shown == LampPicture()
    panel.apply(picture(BoxLamp.BET).with_box(4, BoxLamp.OFF))
    assert levels(factory, BOX1) == BLUE


def test_a_press_arrives_as_an_event_and_a_callback(
    panel: Panel, factory: MockFactory, clock: FakeClock
) -> None:
    heard: list[ButtonPress] = []
    panel.on_button(heard.append)
    factory.pin(2).drive_low()  # pull-up button: pressed pulls the line low
    assert heard == [ButtonPress("stand", 100.0)]
    assert panel.events.get_nowait() == ButtonPress("stand", 100.0)
    clock.now = 100.5
    factory.pin(2).drive_high()  # release is not a press
    assert panel.events.empty() and len(heard) == 1
    clock.now = 101.0
    factory.pin(7).drive_high()  # pull-down button: pressed drives it high
    factory.pin(3).drive_low()
    assert [panel.events.get_nowait().name for _ in range(2)] == ["new_shoe", "double"]
    factory.pin(7).drive_low()
    factory.pin(3).drive_high()


def test_contact_bounce_is_one_press(
    panel: Panel, factory: MockFactory, clock: FakeClock
) -> None:
    pin = factory.pin(2)
    assert pin.bounce == 0.05  # handed to the pin library too (lgpio filters there)
    for step in range(5):  # chatter: 5 closes and opens within 9 ms
        clock.now = 100.0 + step * 0.002
        pin.drive_low()
        clock.now += 0.001
        pin.drive_high()
    clock.now = 100.049  # 40 ms after the last edge: still inside 50 ms
    pin.drive_low()
    pin.drive_high()
    clock.now = 100.2  # a real second press, well after the bounce time
    pin.drive_low()
    pin.drive_high()
    presses = []
    while not panel.events.empty():
        presses.append(panel.events.get_nowait())
    assert presses == [ButtonPress("stand", 100.0), ButtonPress("stand", 100.2)]


def test_without_a_bounce_time_every_press_counts(factory: MockFactory) -> None:
    raw = section()
    raw["bounce_ms"] = 0
    clock = FakeClock()
    with Panel(parse_pin_map(raw), pin_factory=factory, clock=clock) as panel:
        for _ in range(3):
            factory.pin(2).drive_low()
            factory.pin(2).drive_high()
        assert panel.events.qsize() == 3


def test_close_darkens_and_releases_every_pin(panel: Panel, factory: MockFactory) -> None:
    panel.apply(picture(BoxLamp.TURN, BoxLamp.WON, BoxLamp.BET, alarm=True))
    panel.close()
    for pin in BOX1 + BOX2 + tuple(BOX3.values()) + tuple(LAMPS.values()):
        assert factory.pin(pin).function == "input"
    with pytest.raises(PanelError, match="closed"):
        panel.apply(picture())
    panel.close()  # twice is harmless
    # Every pin is free again: a second panel can claim the same pins.
    again = Panel(parse_pin_map(section()), pin_factory=factory)
    again.apply(picture(BoxLamp.BET))
    assert levels(factory, BOX1) == BLUE
    again.close()


def test_a_non_pwm_panel_works_on_plain_mock_pins() -> None:
    raw = section()
    raw["pwm"] = False
    factory = MockFactory()
    with Panel(parse_pin_map(raw), pin_factory=factory) as panel:
        panel.apply(picture(BoxLamp.PUSH, BoxLamp.BLACKJACK))
        assert levels(factory, BOX1) == YELLOW
        assert levels(factory, BOX2) == (0, 1, 0)  # magenta on a common anode


def test_every_blinking_lamp_blinks_in_step(panel: Panel, factory: MockFactory) -> None:
    red, turn = factory.pin(BOX1[0]), factory.pin(BOX3["turn"])
    started = time.monotonic()
    panel.apply(picture(BoxLamp.TURN))
    # Box 3's turn comes later, out of box 1's step (box 1 has switched meanwhile).
    WatchedPin.changed.wait_until(lambda: len(switches_since(red, started)) >= 3,
                                  "box 1 to blink")
    joined = time.monotonic()
    panel.apply(picture(BoxLamp.TURN, box3=BoxLamp.TURN))
    WatchedPin.changed.wait_until(lambda: len(switches_since(red, joined)) >= 9,
                                  "eight switches of both lamps")
    red_switches = switches_since(red, joined)
    turn_switches = switches_since(turn, joined)
    assert turn_switches[0][1] == 1.0  # lit at once when it began to blink

    def turn_level_before(moment: float) -> float:
        return [level for at, level in turn_switches if at < moment][-1]

    # From the next switch on the two are in step: between two of the blinker's
    # switches box 3's turn lamp shows what box 1's red shows, lit and dark in turn.
    steps = list(zip(red_switches[1:8], red_switches[2:9], strict=True))
    assert [turn_level_before(next_at) for _, (next_at, _) in steps] == [
        level for (_, level), _ in steps]
    assert {level for (_, level), _ in steps} == {0.0, 1.0}
