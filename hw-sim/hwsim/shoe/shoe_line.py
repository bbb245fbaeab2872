"""The shoe's end of the cable: the pty, the line faults injected on what goes
out, stalls (the line stops both ways, bytes held) and unplugging."""

from __future__ import annotations

import time

from hwsim.shoe.faults import FaultInjector
from hwsim.shoe.pty_port import VirtualPort
from hwsim.shoe.shoe_records import ShoeCounters


class ShoeLine:
    """Not thread-safe: the shoe calls it holding its lock."""

    def __init__(self, port: VirtualPort, faults: FaultInjector, counters: ShoeCounters) -> None:
        self.port = port
        self.faults = faults
        self._counters = counters
        self.stalled_until = 0.0
        self.replug_at: float | None = None
        self._held = bytearray()

    def stalled(self, now: float) -> bool:
        return now < self.stalled_until

    def stall(self, seconds: float, now: float) -> None:
        self.stalled_until = max(self.stalled_until, now + seconds)

    def unplug(self, for_s: float | None, now: float) -> None:
        """Pull the cable; with `for_s`, plug it back in after that long."""
        self.port.unplug()
        self.replug_at = None if for_s is None else now + for_s

    def replug(self) -> None:
        self.replug_at = None
        self.port.plug()

    def catch_up(self, now: float) -> None:
        """Plug back in when due, and let out what a stall held once it is over."""
        if self.replug_at is not None and now >= self.replug_at:
            self.replug_at = None
            self.port.plug()
        if not self.stalled(now) and self._held:
            held, self._held = bytes(self._held), bytearray()
            self._write(held)

    def deadlines(self, now: float) -> list[float]:
        """When the line itself changes next (a replug, the end of a stall)."""
        return ([] if self.replug_at is None else [self.replug_at]) + (
            [self.stalled_until] if self.stalled(now) else [])

    def send(self, data: bytes, now: float) -> None:
        """Put one frame on the line as the faults make it, then any fault after it."""
        self._write(self.faults.apply(data))
        stall_s = self.faults.stall_after()
        if stall_s:
            self.stall(stall_s, now)
        unplug_s = self.faults.unplug_after()
        if unplug_s and self.port.plugged:
            self.unplug(unplug_s, now)

    def _write(self, data: bytes) -> None:
        if not data:
            return
        if self.stalled(time.monotonic()):
            self._held += data
            return
        if not self.port.plugged:
            return  # nobody on the other end: the bytes are gone
        written = self.port.write(data)
        self._counters.bytes_lost += len(data) - written
