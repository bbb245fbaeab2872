"""ShoeLink v1: the card shoe's serial protocol (docs/protocol.md)."""

from firmware_bridge.shoelink.events import (
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
    "LinkState",
    "LinkStats",
    "LinkTiming",
    "ReliableEvent",
    "ShoeCard",
    "ShoeEvent",
    "ShoeHello",
    "ShoeLinkReader",
    "ShoeStatus",
    "ShoeUnreadable",
]
