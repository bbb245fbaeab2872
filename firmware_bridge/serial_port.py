"""A serial port that survives unplugging: open by URL, on any error close,
back off and reopen.

Ports are opened with `serial.serial_for_url`, so a device path
(`/dev/ttyACM0`), a stable `/dev/serial/by-id/...` link, `socket://host:port`
(ser2net) and `rfc2217://host:port` all work.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import serial

log = logging.getLogger(__name__)

Opener = Callable[..., Any]


@dataclass(frozen=True)
class Backoff:
    """Delay before reopening: `initial_s`, doubled after each failure, up to `max_s`."""

    initial_s: float = 0.1
    max_s: float = 2.0

    def delay(self, failures: int) -> float:
        if failures <= 0:
            return 0.0
        return float(min(self.max_s, self.initial_s * 2 ** (failures - 1)))


class PortUnavailable(Exception):
    """The port is closed (unplugged, not yet reopened, or the reader stops)."""


class ReopeningPort:
    """One serial port, reopened with back-off after every failure.

    `read()` is meant for one reader thread; `write()` may be called from any
    thread. A failed read or write closes the port; the next `ensure_open()`
    waits out the back-off and reopens it.
    """

    def __init__(
        self,
        url: str,
        *,
        baudrate: int = 115_200,
        read_timeout_s: float = 0.05,
        backoff: Backoff | None = None,
        opener: Opener = serial.serial_for_url,
    ) -> None:
        self.url = url
        self.baudrate = baudrate
        self.read_timeout_s = read_timeout_s
        self.backoff = backoff or Backoff()
        self._opener = opener
        self._port: Any = None
        self._lock = threading.Lock()
        self._failures = 0
        self.opens = 0
        self.errors = 0
        self.last_error = ""

    @property
    def is_open(self) -> bool:
        return self._port is not None

    def ensure_open(self, stop: threading.Event) -> bool:
        """Open the port if closed, first waiting the back-off; False if it is
        still closed (the attempt failed or `stop` was set)."""
        if self._port is not None:
            return True
        delay = self.backoff.delay(self._failures)
        if delay and stop.wait(delay):
            return False
        if stop.is_set():
            return False
        try:
            port = self._open()
        except (serial.SerialException, OSError, ValueError, NotImplementedError) as error:
            # NotImplementedError: a URL handler without some setting; the reader
            # thread must live on and say so, not die.
            self._note_failure(
                f"cannot open {self.url}: {error}; retrying (check the cable, the path "
                "or address, and that no other program holds the port)"
            )
            return False
        with self._lock:
            self._port = port
        self._failures = 0
        self.opens += 1
        log.info("opened %s", self.url)
        return True

    def _open(self) -> Any:
        options: dict[str, Any] = {
            "baudrate": self.baudrate, "timeout": self.read_timeout_s, "exclusive": True,
        }
        # pyserial's rfc2217:// handler refuses a write timeout (NotImplementedError
        # during the open); its writes go to a socket, which does not block for long.
        if not self.url.lower().startswith("rfc2217://"):
            options["write_timeout"] = 1.0
        try:
            return self._opener(self.url, **options)
        except TypeError:
            # A URL handler that rejects `exclusive` (it cannot lock): open without it.
            del options["exclusive"]
            return self._opener(self.url, **options)

    def read(self) -> bytes:
        """Block up to the read timeout for bytes; b"" on timeout.

        Raises PortUnavailable when the port is closed or has just failed.
        """
        port = self._port
        if port is None:
            raise PortUnavailable(self.url)
        try:
            data = port.read(1)
            if data:
                waiting = port.in_waiting
                if waiting:
                    data += port.read(waiting)
        except (serial.SerialException, OSError, TypeError, AttributeError) as error:
            # TypeError/AttributeError: pyserial's own code after a concurrent close.
            self.fail(f"read from {self.url} failed: {error}")
            raise PortUnavailable(self.url) from error
        return bytes(data)

    def write(self, data: bytes) -> bool:
        """Write all of `data`; False (and the port closed) if it could not."""
        with self._lock:
            port = self._port
            if port is None:
                return False
            try:
                port.write(data)
                return True
            except (serial.SerialException, OSError) as error:
                message = f"write to {self.url} failed: {error}"
        self.fail(message)
        return False

    def problem(self) -> str:
        """Why the port is closed: its latest error ('' while it is open)."""
        return "" if self.is_open else self.last_error

    def fail(self, reason: str) -> None:
        """Close after an error; the next open waits the back-off."""
        self._note_failure(reason)
        self.close()

    def _note_failure(self, reason: str) -> None:
        self._failures += 1
        self.errors += 1
        if reason != self.last_error:
            log.warning("%s", reason)
        self.last_error = reason

    def close(self) -> None:
        with self._lock:
            port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError):
                pass
