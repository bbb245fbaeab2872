"""The lamp and button panel: lamp pictures onto gpiozero devices, button presses out."""

from firmware_bridge.panel.driver import ButtonPress, Panel, PanelError
from firmware_bridge.panel.picture import (
    BLINKING,
    BOX_COLOURS,
    BOX_COUNT,
    LAMP_NAMES,
    BoxLamp,
    Colour,
    LampPicture,
)
from firmware_bridge.panel.pin_map import (
    DEFAULT_PIN_MAP,
    ButtonPin,
    LedBox,
    PinMap,
    PinMapError,
    RgbBox,
    parse_pin_map,
)

__all__ = [
    "BLINKING",
    "BOX_COLOURS",
    "BOX_COUNT",
    "DEFAULT_PIN_MAP",
    "LAMP_NAMES",
    "BoxLamp",
    "ButtonPin",
    "ButtonPress",
    "Colour",
    "LampPicture",
    "LedBox",
    "Panel",
    "PanelError",
    "PinMap",
    "PinMapError",
    "RgbBox",
    "parse_pin_map",
]
