"""Plain values the ShoeLink and text-scanner readers hand to their consumer."""

from __future__ import annotations

from dataclasses import dataclass, field

from firmware_bridge.shoelink.frames import (
    Frame,
    FrameType,
    parse_card_payload,
    parse_index_payload,
    parse_shoe_payload,
)
from foundation.cards import card_code


@dataclass(frozen=True)
class ShoeCard:
    """A card left the shoe and was read. Acknowledge `seq` once stored."""

    seq: int
    index: int
    rank: int
    suit: int
    low_confidence: bool = False

    @property
    def code(self) -> str:
        return card_code(self.rank, self.suit)


@dataclass(frozen=True)
class ShoeUnreadable:
    """A card left the shoe but could not be read. Acknowledge `seq` once stored."""

    seq: int
    index: int


@dataclass(frozen=True)
class ShoeStatus:
    """A shoe event (`loaded`, `cut_card`, `empty`, `lid_opened`, `lid_closed`,
    `card_jam`). Acknowledge `seq` once stored."""

    seq: int
    event: str

    @property
    def starts_new_shoe(self) -> bool:
        return self.event == "loaded"


@dataclass(frozen=True)
class ShoeHello:
    """The shoe introduced itself. `new_shoe`: its serial number differs from the
    previous HELLO's; `restarted`: its uptime went back (firmware rebooted)."""

    info: dict[str, str] = field(default_factory=dict)
    new_shoe: bool = False
    restarted: bool = False


@dataclass(frozen=True)
class LinkState:
    """The link came up (HELLO received) or went down (port lost or silent)."""

    online: bool
    reason: str = ""


ReliableEvent = ShoeCard | ShoeUnreadable | ShoeStatus  # carry a seq to acknowledge
ShoeEvent = ReliableEvent | ShoeHello | LinkState
RELIABLE_EVENTS = (ShoeCard, ShoeUnreadable, ShoeStatus)


def reliable_event(frame: Frame) -> ReliableEvent:
    """The event a reliable frame carries; FrameError if its payload is malformed."""
    if frame.type == FrameType.CARD:
        rank, suit, index, low = parse_card_payload(frame.payload)
        return ShoeCard(frame.seq, index, rank, suit, low)
    if frame.type == FrameType.UNREADABLE:
        return ShoeUnreadable(frame.seq, parse_index_payload(frame.payload))
    return ShoeStatus(frame.seq, parse_shoe_payload(frame.payload).name.lower())
