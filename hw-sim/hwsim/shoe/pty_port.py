"""The device end of a virtual serial port: a pseudo-terminal whose slave
the host opens with pyserial, reached through a stable symlink.

Closing the pty is an unplug; a replug makes a new pty and points the same
symlink at it, as /dev/serial/by-id does for a real USB device.

A port plugged with `release_slave=True` keeps no slave descriptor of its own
until a host has opened it, so `wait_for_host` can see the host arrive: a
device can then hold its first bytes until someone listens, instead of
writing into a port that the host flushes as it opens it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import select
import struct
import tempfile
import termios
import threading
import time
import tty
from pathlib import Path
from typing import Self

# A host has finished opening the port when the master sees its input flush
# (pyserial flushes as the last step of opening) or, for a host that does not
# flush, this long after it opened the port.
HOST_SETTLE_S = 0.5


class VirtualPort:
    def __init__(self, link_path: str | Path | None = None, *,
                 coalesce_writes: bool = False) -> None:
        """`coalesce_writes`: `write()` only queues the bytes, and a thread of the
        port's own writes whatever has gathered in one go. A device that makes
        frames faster than a host wakes to read them (a simulation flat out)
        then wakes the host once for several frames, not once per frame, as a
        real serial line's buffers would. Bytes the pty cannot take are lost as
        before, but `write()` cannot say so; `bytes_lost` counts them."""
        self.bytes_lost = 0
        self._outgoing: bytearray | None = bytearray() if coalesce_writes else None
        self._outgoing_ready = threading.Condition()
        self._writer: threading.Thread | None = None
        if link_path is None:
            self._tempdir: str | None = tempfile.mkdtemp(prefix="hwsim-")
            link_path = Path(self._tempdir) / "shoe"
        else:
            self._tempdir = None
        self.link_path = Path(link_path)
        self.master_fd: int | None = None
        self._slave_fd: int | None = None
        self._early = b""  # host bytes read while waiting for the host
        self.device_name = ""

    @property
    def plugged(self) -> bool:
        return self.master_fd is not None

    def plug(self, *, release_slave: bool = False) -> None:
        """Create the pty and point the symlink at it. `release_slave`: keep no
        slave descriptor of our own until `wait_for_host` has seen a host open it."""
        if self.master_fd is not None:
            return
        master, slave = os.openpty()
        # Raw from the start: bytes written before the host opens it must not be
        # echoed or translated by the line discipline.
        tty.setraw(slave)
        os.set_blocking(master, False)
        self.device_name = os.ttyname(slave)
        self._early = b""
        held: int | None = slave
        if release_slave:
            # With no slave open the master polls POLLHUP until a host opens it;
            # in packet mode it also reads a status byte when the host flushes.
            os.close(slave)
            held = None
            fcntl.ioctl(master, termios.TIOCPKT, struct.pack("i", 1))
        self.master_fd, self._slave_fd = master, held
        temp_link = self.link_path.with_name(self.link_path.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            temp_link.unlink()
        temp_link.symlink_to(self.device_name)
        os.replace(temp_link, self.link_path)

    def unplug(self) -> None:
        """Remove the symlink and close the pty: the host's port fails."""
        with contextlib.suppress(FileNotFoundError):
            self.link_path.unlink()
        with self._outgoing_ready:
            if self._outgoing is not None:
                self._outgoing.clear()  # the cable is out: queued bytes are gone
            for fd in (self.master_fd, self._slave_fd):
                if fd is not None:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self.master_fd = self._slave_fd = None

    @property
    def waiting_for_host(self) -> bool:
        """Plugged with `release_slave` and no host seen yet."""
        return self.master_fd is not None and self._slave_fd is None

    def host_has_it_open(self) -> bool:
        """Whether a host has the port open; only known while waiting for the
        host (afterwards the port holds its own slave end, and says True)."""
        if self.master_fd is None:
            return False
        if self._slave_fd is not None:
            return True
        poller = select.poll()
        poller.register(self.master_fd, select.POLLIN)
        return not any(mask & select.POLLHUP for _, mask in poller.poll(0))

    def wait_for_host(self, stop: threading.Event, *, poll_s: float = 0.01,
                      settle_s: float = HOST_SETTLE_S) -> bool:
        """Block until a host has opened the port and finished opening it (its
        input flush seen, or `settle_s` after it opened); then hold the slave
        end as a port plugged normally does. False if `stop` came first.

        Returns at once on a port that is not waiting for a host."""
        opened_at: float | None = None
        while not stop.is_set():
            master = self.master_fd
            if master is None:
                stop.wait(poll_s)
                continue
            if self._slave_fd is not None:
                return True
            poller = select.poll()
            poller.register(master, select.POLLIN | select.POLLPRI)
            events = poller.poll(0 if opened_at is None else poll_s * 1000)
            mask = events[0][1] if events else 0
            flushed = False
            if mask & (select.POLLIN | select.POLLPRI):
                flushed = bool(self._read_packet() & termios.TIOCPKT_FLUSHREAD)
            if mask & select.POLLHUP:
                opened_at = None  # not (or no longer) open: wait for the next open
                stop.wait(poll_s)
                continue
            now = time.monotonic()
            if opened_at is None:
                opened_at = now
            if flushed or now - opened_at >= settle_s:
                self._hold_slave(master)
                return True
        return False

    def _read_packet(self) -> int:
        """Read one packet-mode message: keep host data for `read()`, return
        the status byte (0 for data)."""
        assert self.master_fd is not None
        try:
            packet = os.read(self.master_fd, 4096)
        except OSError:
            return 0
        if not packet:
            return 0
        if packet[0] == termios.TIOCPKT_DATA:
            self._early += packet[1:]
            return 0
        return packet[0]

    def _hold_slave(self, master: int) -> None:
        """Open our own slave end and leave packet mode: from now on the port
        behaves as one plugged normally (the host may close and reopen it)."""
        self._slave_fd = os.open(self.device_name, os.O_RDWR | os.O_NOCTTY)
        fcntl.ioctl(master, termios.TIOCPKT, struct.pack("i", 0))

    def write(self, data: bytes) -> int:
        """Write without blocking; bytes the pty cannot take now are lost,
        like a USB device's when no host reads them. Returns bytes written
        (queued, when coalescing)."""
        if self.master_fd is None or not data:
            return 0
        outgoing = self._outgoing
        if outgoing is not None:
            with self._outgoing_ready:
                if self._writer is None:
                    self._writer = threading.Thread(target=self._write_gathered,
                                                    name="virtual-port-writer", daemon=True)
                    self._writer.start()
                outgoing += data
                self._outgoing_ready.notify()
            return len(data)
        return self._write_now(data)

    def _write_gathered(self) -> None:
        outgoing = self._outgoing
        assert outgoing is not None
        while True:
            with self._outgoing_ready:
                while not outgoing and self._writer is not None:
                    self._outgoing_ready.wait()
                if self._writer is None:
                    return
                data = bytes(outgoing)
                outgoing.clear()
                # Under the lock: `unplug()` cannot close the descriptor meanwhile.
                written = self._write_now(data)
                self.bytes_lost += len(data) - written

    def _stop_writer(self) -> None:
        with self._outgoing_ready:
            writer, self._writer = self._writer, None
            if self._outgoing is not None:
                self._outgoing.clear()
            self._outgoing_ready.notify()
        if writer is not None and writer is not threading.current_thread():
            writer.join(1.0)

    def _write_now(self, data: bytes) -> int:
        if self.master_fd is None:
            return 0
        try:
            return os.write(self.master_fd, data)
        except BlockingIOError:
            return 0
        except OSError as error:
            if error.errno in (errno.EIO, errno.EBADF):
                return 0
            raise

    def read(self) -> bytes:
        if self.master_fd is None:
            return b""
        if self._early:
            early, self._early = self._early, b""
            return early
        if self._slave_fd is None:
            return b""  # waiting for the host: see wait_for_host
        try:
            return os.read(self.master_fd, 4096)
        except (BlockingIOError, OSError):
            return b""

    def close(self) -> None:
        self._stop_writer()
        self.unplug()
        if self._tempdir is not None:
            with contextlib.suppress(OSError):
                os.rmdir(self._tempdir)
            self._tempdir = None


class PtyDevice:
    """A simulated device on a `VirtualPort`: where the host opens it, and a
    context manager that starts and stops it."""

    _port: VirtualPort

    @property
    def path(self) -> str:
        """The stable path the host opens (a symlink to the current pty)."""
        return str(self._port.link_path)

    @property
    def device_name(self) -> str:
        return self._port.device_name

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
