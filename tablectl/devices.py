"""The devices the daemon drives, each behind a small interface.

`Devices` is what a caller may hand the `Daemon` instead of what the config
names: a panel (lamps and buttons), a way to open the ShoeLink shoe's reader,
a camera's frame source and a clock. The simulator and the tests plug in here
and nowhere else; a real table passes nothing and gets the config's devices.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from firmware_bridge.panel import ButtonPress, LampPicture
from firmware_bridge.serial_port import Backoff
from firmware_bridge.shoelink.events import ShoeEvent
from firmware_bridge.shoelink.link import LinkStats, ShoeLinkReader

if TYPE_CHECKING:
    from vision.sources import FrameSource

# Seconds on a monotonic clock: what every timeout and retry of the daemon reads.
Clock = Callable[[], float]


class PanelDevice(Protocol):
    """The dealer's lamps and buttons (`firmware_bridge.panel.Panel`)."""

    @property
    def wired_boxes(self) -> tuple[int, ...]: ...
    def apply(self, picture: LampPicture) -> None: ...
    def on_button(self, callback: Callable[[ButtonPress], None]) -> None: ...
    def close(self) -> None: ...


class ShoeLinkDevice(Protocol):
    """A ShoeLink shoe's reader (`firmware_bridge.shoelink.link.ShoeLinkReader`): it
    delivers each reliable frame once, in order, and hears which are stored."""

    @property
    def shoe_uptime_ms(self) -> int | None: ...
    @property
    def stats(self) -> LinkStats: ...
    def start(self) -> None: ...
    def stop(self, timeout_s: float = 2.0) -> None: ...
    def ack(self, seq: int) -> bool: ...
    def rewind(self, stored: int, then: Callable[[], None]) -> None: ...


@dataclass(frozen=True)
class ShoeLinkSettings:
    """Where the shoe is and where its reader resumes (from the journal)."""

    port: str
    baudrate: int = 115_200
    backoff: Backoff | None = None
    resume_after: int | None = None
    known_uptime_ms: int | None = None


# Opens the shoe's reader; `deliver` hears its events (on the reader's thread).
OpenShoeLink = Callable[[ShoeLinkSettings, Callable[[ShoeEvent], None]], ShoeLinkDevice]


def open_shoelink(settings: ShoeLinkSettings,
                  deliver: Callable[[ShoeEvent], None]) -> ShoeLinkDevice:
    """The reader of a shoe on a serial port (or a pty, or a `socket://` URL)."""
    return ShoeLinkReader(settings.port, deliver, resume_after=settings.resume_after,
                          baudrate=settings.baudrate, backoff=settings.backoff,
                          known_uptime_ms=settings.known_uptime_ms)


@dataclass(frozen=True)
class Devices:
    """`panel`: None drives the config's pin map; `shoe_link`: how the config's
    ShoeLink shoe is opened; `fresh_shoe`: that shoe numbers its frames from 1 at
    every start, whatever the journal holds (a simulated shoe made anew);
    `camera`: None films with the config's `[camera] source` (the `[camera]`
    section is needed either way: layout, fps)."""

    panel: PanelDevice | None = None
    shoe_link: OpenShoeLink = open_shoelink
    fresh_shoe: bool = False
    camera: FrameSource | None = None
    clock: Clock = time.monotonic


class NoPanel:
    """A table without lamps or buttons to drive (a bench that watches none)."""

    wired_boxes: tuple[int, ...] = ()

    def apply(self, picture: LampPicture) -> None:
        pass

    def on_button(self, callback: Callable[[ButtonPress], None]) -> None:
        pass

    def close(self) -> None:
        pass
