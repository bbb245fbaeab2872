"""Pin maps from the `[panel]` config section: the built-in map and refusals."""

from __future__ import annotations

from typing import Any

import pytest

from firmware_bridge.panel import (
    DEFAULT_PIN_MAP,
    BoxLamp,
    LedBox,
    PinMapError,
    RgbBox,
    parse_pin_map,
)


def small_map(**changes: Any) -> dict[str, Any]:
    section: dict[str, Any] = {
        "boxes": {"1": {"rgb": [4, 17, 27]}, "2": {"rgb": [22, 10, 9], "common_anode": True}},
        "lamps": {"draw": 23, "stand": 24, "alarm": 25, "shoe_fault": 8},
        "buttons": {"stand": 2, "void": {"pin": 3, "pull_up": False, "bounce_ms": 20}},
    }
    section.update(changes)
    return section


def problems_of(section: dict[str, Any]) -> list[str]:
    with pytest.raises(PinMapError) as caught:
        parse_pin_map(section)
    return caught.value.problems


def test_empty_section_gives_the_built_in_map_on_all_26_header_gpios() -> None:
    pin_map = parse_pin_map({})
    # Seven boxes: the most any profile deals (max_boxes is 1 to 7).
    assert sorted(pin_map.boxes) == [1, 2, 3, 4, 5, 6, 7]
    assert all(isinstance(box, RgbBox) for box in pin_map.boxes.values())
    pins = [p for box in pin_map.boxes.values() for p in box.pins()]
    pins += list(pin_map.lamps.values()) + [b.pin for b in pin_map.buttons]
    # GPIO2..GPIO27 are the 26 lines on the 40-pin header; each used once.
    assert sorted(pins) == list(range(2, 28))
    assert [b.name for b in pin_map.buttons] == ["stand"]
    assert all(b.pull_up and b.bounce_s == 0.05 for b in pin_map.buttons)
    assert parse_pin_map(DEFAULT_PIN_MAP) == pin_map


def test_a_small_map_with_button_options_and_pin_names() -> None:
    section = small_map()
    section["boxes"]["3"] = {
        "leds": {"bet": "GPIO5", "turn": 6, "won": 13, "lost": 19, "push": 26, "blackjack": 21}
    }
    pin_map = parse_pin_map(section)
    assert pin_map.boxes[2] == RgbBox(22, 10, 9, common_anode=True)
    box3 = pin_map.boxes[3]
    assert isinstance(box3, LedBox) and box3.leds[BoxLamp.BET] == 5
    void = pin_map.button("void")
    assert (void.pin, void.pull_up, void.bounce_s) == (3, False, 0.02)
    assert pin_map.button("stand").bounce_s == 0.05


def test_a_pin_used_twice_is_refused_naming_both_uses() -> None:
    section = small_map(lamps={"draw": 17, "stand": 24, "alarm": 25, "shoe_fault": 8})
    (problem,) = problems_of(section)
    assert "GPIO17" in problem and "boxes.1.rgb green" in problem and "lamps.draw" in problem


def test_the_same_pin_by_number_and_by_name_is_one_pin() -> None:
    section = small_map(buttons={"stand": "GPIO4"})
    (problem,) = problems_of(section)
    assert "GPIO4 is already used by boxes.1.rgb red" in problem


def test_unknown_keys_are_refused_with_the_allowed_keys() -> None:
    section = small_map(blink_ms=100)
    section["lamps"]["drawn"] = 12
    problems = problems_of(section)
    assert any("unknown key 'blink_ms'" in p and "blink_on_ms" in p for p in problems)
    assert any("lamps: unknown key 'drawn'" in p for p in problems)


def test_a_missing_box_is_refused() -> None:
    section = small_map()
    section["boxes"]["4"] = {"rgb": [5, 6, 13]}
    problems = problems_of(section)
    assert problems == [
        "boxes: missing box 3; boxes are numbered 1, 2, 3... without gaps"
    ]


def test_every_problem_is_reported_at_once() -> None:
    section = small_map(
        pwm="yes",
        boxes={"1": {"rgb": [4, 17]}, "8": {"rgb": [1, 2, 3]}, "2": {"leds": {"bet": 5}}},
        lamps={"draw": 40, "stand": 24, "alarm": 25},
    )
    problems = problems_of(section)
    text = "\n".join(problems)
    assert "pwm: must be true or false" in text
    assert "boxes.1.rgb: must be three pins" in text
    assert "'8' is not a box number" in text
    assert "boxes.2.leds: missing 'turn'" in text
    assert "lamps.draw: 40 is not a GPIO pin" in text
    assert "lamps: missing 'shoe_fault'" in text
    assert str(len(problems)) and "invalid panel pin map" in str(PinMapError(problems))


def test_a_box_needs_exactly_one_kind_of_light() -> None:
    section = small_map()
    section["boxes"]["2"] = {"rgb": [22, 10, 9], "leds": {}}
    assert problems_of(section) == [
        "boxes.2: give exactly one of 'rgb' (three pins) or 'leds'"
    ]


def test_times_must_be_positive_and_button_names_plain() -> None:
    section = small_map(blink_on_ms=0, bounce_ms=-1, buttons={"New Shoe": 2})
    text = "\n".join(problems_of(section))
    assert "blink_on_ms: must be a number of milliseconds, more than zero" in text
    assert "bounce_ms: must be a number of milliseconds, zero or more" in text
    assert "buttons.New Shoe: a button name is lower-case" in text
