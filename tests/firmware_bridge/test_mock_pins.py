"""Mock pins that remember only their last few changes (gpiozero's keep every one)."""

from __future__ import annotations

import pytest
from gpiozero import LED, PWMLED

from firmware_bridge.panel.mock_pins import mock_factory, mock_pin_class


def test_a_short_memory_pin_keeps_its_last_changes_and_drives_like_any_mock_pin() -> None:
    factory = mock_factory(pwm=True, history=4)
    led = PWMLED(5, pin_factory=factory)
    try:
        for level in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
            led.value = level
        pin = factory.pin(5)
        assert pin.state == pytest.approx(0.7)
        assert [round(s.state, 1) for s in pin.states] == [0.4, 0.5, 0.6, 0.7]
    finally:
        led.close()


def test_without_a_bound_every_change_is_kept_as_gpiozero_does() -> None:
    factory = mock_factory(pwm=False, history=None)
    led = LED(6, pin_factory=factory)
    try:
        for _ in range(10):
            led.toggle()
        assert len(factory.pin(6).states) == 11  # the start and ten changes
    finally:
        led.close()


def test_a_history_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one change"):
        mock_pin_class(pwm=True, history=0)
