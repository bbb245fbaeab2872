"""One reader lifecycle for every device on a serial port: open, a read thread,
reconnect after a failure, stop, and the port's counters.

A driver (ShoeLink, the plain-text scanner, an RFID reader) is a `PortProtocol`:
it gets the bytes and hears when the port opens and is lost, and it says what
the bytes mean. It never touches the port's thread or its reopening.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, Self, TypeVar

from firmware_bridge.serial_port import Backoff, PortUnavailable, ReopeningPort

log = logging.getLogger(__name__)

Event = TypeVar("Event")


class PortProtocol(Protocol):
    """What a driver registers with `PortReader`; every call comes on its thread."""

    def started(self, now: float) -> None:
        """The reader thread started (before the port is first opened)."""

    def port_opened(self, now: float) -> None:
        """A fresh connection: bytes from an old one will not follow."""

    def port_lost(self, reason: str) -> None:
        """The port is closed or failed; it is reopened after the back-off."""

    def received(self, data: bytes, now: float) -> None:
        """Bytes read from the port, as they came (any split)."""

    def tick(self, now: float) -> None:
        """Called once per read timeout at least, for the driver's own timeouts."""


class _PortFigures(Protocol):
    bytes_in: int
    reconnects: int
    port_errors: int


@dataclass
class PortCounts:
    bytes_in: int = 0
    reconnects: int = 0  # successful reopenings of the port after it failed
    port_errors: int = 0  # failed opens, reads and writes

    def fill(self, stats: _PortFigures) -> None:
        """Put the port's figures into a driver's stats snapshot."""
        stats.bytes_in = self.bytes_in
        stats.reconnects = self.reconnects
        stats.port_errors = self.port_errors


def open_port(port: ReopeningPort | str, baudrate: int, backoff: Backoff | None) -> ReopeningPort:
    """`port` itself, or a port opened by URL with this speed and back-off."""
    if isinstance(port, str):
        return ReopeningPort(port, baudrate=baudrate, backoff=backoff)
    return port


def deliver_safely(deliver: Callable[[Event], object], event: Event) -> bool:
    """Hand `event` to the consumer; False (logged) if the consumer raised."""
    try:
        deliver(event)
    except Exception:
        log.exception("the consumer failed on %r", event)
        return False
    return True


class PortReader:
    """Reads one port in its own thread and feeds a driver's protocol."""

    def __init__(self, port: ReopeningPort, protocol: PortProtocol, *, name: str) -> None:
        self.port = port
        self._protocol = protocol
        self._name = name
        self._counts = PortCounts()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def counts(self) -> PortCounts:
        """A snapshot of the port's counters."""
        counts = PortCounts(self._counts.bytes_in, self._counts.reconnects)
        counts.port_errors = self.port.errors
        return counts

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("the reader is already running")
        self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread is not None

    def stop(self, timeout_s: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None
        self.port.close()

    def _run(self) -> None:
        protocol = self._protocol
        protocol.started(time.monotonic())
        while not self._stop.is_set():
            protocol.tick(time.monotonic())
            if not self.port.is_open and not self._reopen():
                continue
            try:
                data = self.port.read()
            except PortUnavailable:
                protocol.port_lost("the port failed")
                continue
            if data:
                self._counts.bytes_in += len(data)
                protocol.received(data, time.monotonic())

    def _reopen(self) -> bool:
        self._protocol.port_lost("the port is closed")
        had_opened = self.port.opens > 0
        if not self.port.ensure_open(self._stop):
            return False
        if had_opened:
            self._counts.reconnects += 1
        self._protocol.port_opened(time.monotonic())
        return True


class PortDevice:
    """What a driver hands its users: a device read by a `PortReader`, started and
    stopped (also as a context manager)."""

    def __init__(self, reader: PortReader) -> None:
        self._reader = reader
        self.port = reader.port

    def start(self) -> None:
        self._reader.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        self._reader.stop(timeout_s)

    def __enter__(self) -> Self:
        if not self._reader.running:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
