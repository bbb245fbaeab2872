"""Virtual shoes on ptys read by ShoeLink readers, and the store that acknowledges
what it stored, for the end-to-end delivery tests."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from hwsim.shoe import SentRecord, ShoeTiming, VirtualShoe, shuffled_shoe
from hwsim.shoe.cards import repeat_to

from firmware_bridge.serial_port import Backoff
from firmware_bridge.shoelink import (
    RELIABLE_EVENTS,
    LinkTiming,
    ReliableEvent,
    ShoeCard,
    ShoeEvent,
    ShoeLinkReader,
    ShoeStatus,
    ShoeUnreadable,
)
from tests.tablectl.helpers import Signal

# Far shorter than the protocol's 250 ms, so 10,000 cards with faults go by fast. Not
# shorter than a host's ACK can take on a busy machine: each round re-sends every
# unacknowledged frame, and at 10 ms rounds a loaded run flooded the line with re-sends
# (264,000 frames re-sent for 2,036 cards delivered in 45 s).
SHOE_TIMING = ShoeTiming(resend_interval_s=0.03, heartbeat_interval_s=0.04)
HOST_TIMING = LinkTiming(offline_after_s=0.12, hello_interval_s=0.04)
BACKOFF = Backoff(initial_s=0.01, max_s=0.04)
TEN_THOUSAND = repeat_to(shuffled_shoe(8, seed=2024), 10_000)


@dataclass
class Store:
    """A consumer that stores each event, then acknowledges it, and notes every
    ACK the shoe receives for something not yet stored."""

    reader: ShoeLinkReader | None = None
    events: list[ShoeEvent] = field(default_factory=list)
    stored_seqs: set[int] = field(default_factory=set)
    premature_acks: list[int] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Notified with each event stored.
    stored: Signal = field(default_factory=Signal)

    def __call__(self, event: ShoeEvent) -> None:
        with self.lock:
            self.events.append(event)
            if isinstance(event, RELIABLE_EVENTS):
                self.stored_seqs.add(event.seq)
        if isinstance(event, RELIABLE_EVENTS):
            assert self.reader is not None
            self.reader.ack(event.seq)
        self.stored.notify()

    def shoe_got_ack(self, seq: int) -> None:
        with self.lock:
            if seq not in self.stored_seqs:
                self.premature_acks.append(seq)

    def reliable(self) -> list[ReliableEvent]:
        with self.lock:
            return [e for e in self.events if isinstance(e, RELIABLE_EVENTS)]


def as_record(event: ShoeEvent) -> SentRecord:
    if isinstance(event, ShoeCard):
        return SentRecord(event.seq, "card", event.index, card=event.code,
                          low_confidence=event.low_confidence)
    if isinstance(event, ShoeUnreadable):
        return SentRecord(event.seq, "unreadable", event.index)
    assert isinstance(event, ShoeStatus)
    return SentRecord(event.seq, "shoe", event=event.event)


def rig_in() -> Iterator[tuple[list[VirtualShoe], list[ShoeLinkReader]]]:
    shoes: list[VirtualShoe] = []
    readers: list[ShoeLinkReader] = []
    yield shoes, readers
    for reader in readers:
        reader.stop()
    for shoe in shoes:
        shoe.stop()
