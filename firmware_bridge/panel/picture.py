"""The lamp picture: what every lamp of the panel should show, as a plain value."""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

BOX_COUNT = 7

Colour = tuple[float, float, float]


class BoxLamp(enum.Enum):
    """What one box's indicator shows."""

    OFF = "off"
    BET = "bet"
    TURN = "turn"
    WON = "won"
    LOST = "lost"
    PUSH = "push"
    BLACKJACK = "blackjack"


# The one table of box colours (red, green, blue), documented in docs/panel.md.
# Only full-on/full-off components, so a panel built without PWM shows them too.
BOX_COLOURS: dict[BoxLamp, Colour] = {
    BoxLamp.OFF: (0.0, 0.0, 0.0),
    BoxLamp.BET: (0.0, 0.0, 1.0),  # blue
    BoxLamp.TURN: (1.0, 1.0, 1.0),  # white, blinking
    BoxLamp.WON: (0.0, 1.0, 0.0),  # green
    BoxLamp.LOST: (1.0, 0.0, 0.0),  # red
    BoxLamp.PUSH: (1.0, 1.0, 0.0),  # yellow
    BoxLamp.BLACKJACK: (1.0, 0.0, 1.0),  # magenta
}

# States shown by blinking rather than a steady light.
BLINKING = frozenset({BoxLamp.TURN})


@dataclass(frozen=True)
class LampPicture:
    """Every lamp at once: `boxes[0]` is box 1, through box 7."""

    boxes: tuple[BoxLamp, ...] = (BoxLamp.OFF,) * BOX_COUNT
    draw: bool = False
    stand: bool = False
    alarm: bool = False
    shoe_fault: bool = False

    def __post_init__(self) -> None:
        if len(self.boxes) != BOX_COUNT:
            raise ValueError(
                f"a lamp picture has exactly {BOX_COUNT} boxes, got {len(self.boxes)}; "
                "give OFF for the boxes a table does not use"
            )
        for state in self.boxes:
            if not isinstance(state, BoxLamp):
                raise ValueError(f"box states must be BoxLamp values, got {state!r}")

    def box(self, number: int) -> BoxLamp:
        """The state of box `number` (1..7)."""
        _check_box_number(number)
        return self.boxes[number - 1]

    def with_box(self, number: int, state: BoxLamp) -> LampPicture:
        """A copy with box `number` (1..7) set to `state`."""
        _check_box_number(number)
        boxes = list(self.boxes)
        boxes[number - 1] = state
        return replace(self, boxes=tuple(boxes))

    def with_lamp(self, name: str, lit: bool) -> LampPicture:
        """A copy with the single lamp `name` (draw, stand, alarm, shoe_fault) set."""
        self.lamp(name)
        return replace(self, **{name: lit})  # type: ignore[arg-type]

    def lamp(self, name: str) -> bool:
        """One of the single lamps by name: draw, stand, alarm, shoe_fault."""
        if name not in LAMP_NAMES:
            raise ValueError(f"unknown lamp {name!r}; lamps are {', '.join(LAMP_NAMES)}")
        value: bool = getattr(self, name)
        return value


LAMP_NAMES = ("draw", "stand", "alarm", "shoe_fault")


def _check_box_number(number: int) -> None:
    if not 1 <= number <= BOX_COUNT:
        raise ValueError(f"box numbers run from 1 to {BOX_COUNT}, got {number}")
