"""The one reader lifecycle with a driver of the test's own (as an RFID reader
would register): open, read thread, reconnect after a failure, stop, counters.
The port is pyserial's `loop://`, which reads back what was written."""

from __future__ import annotations

import threading

from firmware_bridge.port_reader import PortReader, deliver_safely
from firmware_bridge.serial_port import Backoff, ReopeningPort


class TagProtocol:
    """A made-up tag reader: one tag id per line."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.tags: list[str] = []
        self._buffer = b""
        self.changed = threading.Condition()

    def _note(self, call: str) -> None:
        with self.changed:
            self.calls.append(call)
            self.changed.notify_all()

    def started(self, now: float) -> None:
        self._note("started")

    def port_opened(self, now: float) -> None:
        self._buffer = b""
        self._note("opened")

    def port_lost(self, reason: str) -> None:
        self._note(f"lost: {reason}")

    def received(self, data: bytes, now: float) -> None:
        *lines, self._buffer = (self._buffer + data).split(b"\n")
        with self.changed:
            self.tags += [line.decode() for line in lines]
            self.changed.notify_all()

    def tick(self, now: float) -> None:
        pass

    def wait(self, check: object, timeout_s: float = 5.0) -> bool:
        with self.changed:
            return self.changed.wait_for(check, timeout_s)  # type: ignore[arg-type]


def test_a_registered_driver_gets_the_bytes_and_hears_the_port_open_and_fail() -> None:
    port = ReopeningPort("loop://", backoff=Backoff(0.01, 0.02))
    tags = TagProtocol()
    reader = PortReader(port, tags, name="tag-reader")
    reader.start()
    try:
        assert tags.wait(lambda: "opened" in tags.calls)
        assert tags.calls[0] == "started"
        assert port.write(b"04A2\n04") and port.write(b"B7\n")
        assert tags.wait(lambda: tags.tags == ["04A2", "04B7"])
        port.fail("unplugged")  # the next read finds the port closed and reopens it
        assert tags.wait(lambda: tags.calls.count("opened") == 2)
        assert "lost: the port is closed" in tags.calls
        counts = reader.counts
        assert counts.bytes_in == len(b"04A2\n04B7\n")
        assert counts.reconnects == 1 and counts.port_errors == 1
    finally:
        reader.stop()
    assert not reader.running and not port.is_open


def test_a_consumer_that_raises_is_logged_not_fatal() -> None:
    def consumer(event: str) -> None:
        raise ValueError(event)

    assert deliver_safely(consumer, "tag") is False
    assert deliver_safely(lambda event: None, "tag") is True
