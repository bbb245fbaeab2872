"""The ShoeLink reader: the protocol core (`core.ShoeLinkCore`) driven by the
one reader lifecycle (`firmware_bridge.port_reader.PortReader`) on a serial port.

The reader hands every reliable event (card, unreadable card, shoe status) to
the consumer exactly once and in order, on its own thread. The consumer calls
`ack(seq)` once it has stored the event; only then does the shoe hear that it
may forget the frame.
"""

from __future__ import annotations

from collections.abc import Callable

from firmware_bridge.port_reader import PortDevice, PortReader, open_port
from firmware_bridge.serial_port import Backoff, ReopeningPort
from firmware_bridge.shoelink.core import Deliver, LinkTiming, ShoeLinkCore
from firmware_bridge.shoelink.stats import LinkStats

__all__ = ["Deliver", "LinkTiming", "ShoeLinkReader"]


class ShoeLinkReader(PortDevice):
    """Reads one ShoeLink shoe in its own thread and delivers its events.

    The arguments after `deliver` are the core's (`ShoeLinkCore`): where the
    consumer's journal says to resume, and the shoe's uptime then. `deliver`
    runs on the reader thread; it should store or queue the event and return
    quickly. Then call `ack(seq)` from any thread once stored.
    """

    def __init__(
        self,
        port: ReopeningPort | str,
        deliver: Deliver,
        *,
        resume_after: int | None = None,
        timing: LinkTiming | None = None,
        baudrate: int = 115_200,
        backoff: Backoff | None = None,
        known_uptime_ms: int | None = None,
    ) -> None:
        opened = open_port(port, baudrate, backoff)
        self.core = ShoeLinkCore(
            opened, deliver, resume_after=resume_after, timing=timing,
            known_uptime_ms=known_uptime_ms,
        )
        super().__init__(PortReader(opened, self.core, name="shoelink-reader"))

    @property
    def timing(self) -> LinkTiming:
        return self.core.timing

    @property
    def online(self) -> bool:
        return self.core.online

    @property
    def shoe_uptime_ms(self) -> int | None:
        """The shoe's uptime from its latest heartbeat (None before the first)."""
        return self.core.shoe_uptime_ms

    @property
    def stats(self) -> LinkStats:
        """A snapshot of the counters: the protocol's and the port's."""
        snapshot = self.core.stats
        self._reader.counts.fill(snapshot)
        return snapshot

    def ack(self, seq: int) -> bool:
        """Tell the shoe that every reliable event up to `seq` is stored (`ShoeLinkCore.ack`)."""
        return self.core.ack(seq)

    def rewind(self, stored: int, then: Callable[[], None]) -> None:
        """Deliver again every frame after `stored` (`ShoeLinkCore.rewind`)."""
        self.core.rewind(stored, then)
