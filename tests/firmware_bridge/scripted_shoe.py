"""A ShoeLink shoe played by hand on a real pty, and a consumer of the reader's
events, for the tests of the host side of the link."""

from __future__ import annotations

import os
import queue
import select
import time
import tty
from collections.abc import Callable

from firmware_bridge.shoelink import (
    RELIABLE_EVENTS,
    LinkState,
    LinkTiming,
    ReliableEvent,
    ShoeEvent,
    ShoeHello,
    ShoeLinkReader,
)
from firmware_bridge.shoelink.frames import (
    Frame,
    FrameDecoder,
    FrameType,
    card_payload,
    encode_frame,
    heartbeat_payload,
    hello_payload,
    parse_ack_payload,
)

FAST = LinkTiming(offline_after_s=0.3, hello_interval_s=0.1)


def card(seq: int, rank: int = 1, suit: int = 0, index: int | None = None) -> Frame:
    return Frame(FrameType.CARD, seq, card_payload(rank, suit, seq if index is None else index))


def hello(sn: str = "SHOE-0042") -> Frame:
    return Frame(FrameType.HELLO, 0, hello_payload({"fw": "1.0.0", "sn": sn, "decks": "8"}))


def heartbeat(uptime_ms: int, index: int = 0) -> Frame:
    return Frame(FrameType.HEARTBEAT, 0, heartbeat_payload(index, uptime_ms))


class ScriptedShoe:
    """The test plays the shoe's firmware by hand on the master end of a pty."""

    def __init__(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.path = os.ttyname(self._slave)
        self._decoder = FrameDecoder()
        self.received: list[Frame] = []

    def send(self, *frames: Frame) -> None:
        os.write(self.master, b"".join(encode_frame(f) for f in frames))

    def pump(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                self.received += self._decoder.feed(os.read(self.master, 4096))

    def wait_for(self, check: Callable[[list[Frame]], bool], timeout_s: float = 2.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not check(self.received):
            if time.monotonic() > deadline:
                raise AssertionError(f"the host never sent that; got {self.received}")
            self.pump(0.01)

    def acks(self) -> list[int]:
        return [parse_ack_payload(f.payload) for f in self.received if f.type == FrameType.ACK]

    def hello_requests(self) -> int:
        return sum(1 for f in self.received if f.type == FrameType.HELLO_REQ)

    def close(self) -> None:
        for fd in (self.master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass


class Consumer:
    def __init__(self) -> None:
        self.events: queue.Queue[ShoeEvent] = queue.Queue()

    def __call__(self, event: ShoeEvent) -> None:
        self.events.put(event)

    def next(self, timeout_s: float = 2.0) -> ShoeEvent:
        return self.events.get(timeout=timeout_s)

    def next_reliable(self, timeout_s: float = 2.0) -> ReliableEvent:
        while True:
            event = self.next(timeout_s)
            if isinstance(event, RELIABLE_EVENTS):
                return event

    def nothing_reliable_for(self, seconds: float) -> bool:
        try:
            self.next_reliable(seconds)
        except queue.Empty:
            return True
        return False



def connect(
    shoe: ScriptedShoe, consumer: Consumer, *, resume_after: int | None = 0, uptime: int = 5000
) -> ShoeLinkReader:
    reader = ShoeLinkReader(shoe.path, consumer, resume_after=resume_after, timing=FAST)
    reader.start()
    shoe.wait_for(lambda frames: any(f.type == FrameType.HELLO_REQ for f in frames))
    shoe.send(hello(), heartbeat(uptime))
    assert consumer.next() == LinkState(True, "HELLO received")
    event = consumer.next()
    assert isinstance(event, ShoeHello) and event.info["sn"] == "SHOE-0042"
    return reader
