"""ShoeLink v1: the card shoe's serial protocol (docs/protocol.md): the protocol
core without I/O (`ShoeLinkCore`) and its reader on a serial port (`ShoeLinkReader`)."""

from firmware_bridge.shoelink.core import Line, ShoeLinkCore
from firmware_bridge.shoelink.events import (
    RELIABLE_EVENTS,
    LinkState,
    ReliableEvent,
    ShoeCard,
    ShoeEvent,
    ShoeHello,
    ShoeStatus,
    ShoeUnreadable,
)
from firmware_bridge.shoelink.link import LinkTiming, ShoeLinkReader
from firmware_bridge.shoelink.stats import LinkStats

__all__ = [
    "RELIABLE_EVENTS",
    "Line",
    "LinkState",
    "LinkStats",
    "LinkTiming",
    "ReliableEvent",
    "ShoeCard",
    "ShoeEvent",
    "ShoeHello",
    "ShoeLinkCore",
    "ShoeLinkReader",
    "ShoeStatus",
    "ShoeUnreadable",
]
