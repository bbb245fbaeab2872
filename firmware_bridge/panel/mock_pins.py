"""gpiozero's mock pins with a bounded memory, for a panel without real lamps.

gpiozero's mock pins append every state change they ever had to `states`, so a
table left running on them grows without end (about 5 MB per 1,000 rounds of
7 boxes). These keep the last `history` changes.
"""

from __future__ import annotations

from collections import deque
from time import monotonic

from gpiozero.pins.mock import MockFactory, MockPin, MockPWMPin, PinState

# Changes each mock pin remembers where nothing reads them back (the daemon).
DAEMON_PIN_HISTORY = 16


class _ShortMemory(MockPin):
    """Mixed in before a mock pin class: `states` keeps the last `history` changes."""

    history = DAEMON_PIN_HISTORY

    def clear_states(self) -> None:
        self._last_change = monotonic()
        self.states = deque([PinState(0.0, self._state)], maxlen=self.history)


def mock_pin_class(pwm: bool, history: int | None) -> type[MockPin]:
    """A mock pin class (PWM-capable with `pwm`) keeping the last `history` state
    changes; gpiozero's own (every change) with `history=None`."""
    base: type[MockPin] = MockPWMPin if pwm else MockPin
    if history is None:
        return base
    if history < 1:
        raise ValueError(f"history = {history}: keep at least one change, or None for all")
    return type(f"Short{base.__name__}", (_ShortMemory, base), {"history": history})


def mock_factory(pwm: bool = True, history: int | None = DAEMON_PIN_HISTORY) -> MockFactory:
    """A fresh `MockFactory` whose pins keep the last `history` changes."""
    return MockFactory(pin_class=mock_pin_class(pwm, history))
