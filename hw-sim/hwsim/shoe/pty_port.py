"""The device end of a virtual serial port: a pseudo-terminal whose slave
the host opens with pyserial, reached through a stable symlink.

Closing the pty is an unplug; a replug makes a new pty and points the same
symlink at it, as /dev/serial/by-id does for a real USB device.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
import tty
from pathlib import Path


class VirtualPort:
    def __init__(self, link_path: str | Path | None = None) -> None:
        if link_path is None:
            self._tempdir: str | None = tempfile.mkdtemp(prefix="hwsim-")
            link_path = Path(self._tempdir) / "shoe"
        else:
            self._tempdir = None
        self.link_path = Path(link_path)
        self.master_fd: int | None = None
        self._slave_fd: int | None = None
        self.device_name = ""

    @property
    def plugged(self) -> bool:
        return self.master_fd is not None

    def plug(self) -> None:
        """Create the pty and point the symlink at it."""
        if self.master_fd is not None:
            return
        master, slave = os.openpty()
        # Raw from the start: bytes written before the host opens it must not be
        # echoed or translated by the line discipline.
        tty.setraw(slave)
        os.set_blocking(master, False)
        self.master_fd, self._slave_fd = master, slave
        self.device_name = os.ttyname(slave)
        temp_link = self.link_path.with_name(self.link_path.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            temp_link.unlink()
        temp_link.symlink_to(self.device_name)
        os.replace(temp_link, self.link_path)

    def unplug(self) -> None:
        """Remove the symlink and close the pty: the host's port fails."""
        with contextlib.suppress(FileNotFoundError):
            self.link_path.unlink()
        for fd in (self.master_fd, self._slave_fd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.master_fd = self._slave_fd = None

    def write(self, data: bytes) -> int:
        """Write without blocking; bytes the pty cannot take now are lost,
        like a USB device's when no host reads them. Returns bytes written."""
        if self.master_fd is None or not data:
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
        try:
            return os.read(self.master_fd, 4096)
        except (BlockingIOError, OSError):
            return b""

    def close(self) -> None:
        self.unplug()
        if self._tempdir is not None:
            with contextlib.suppress(OSError):
                os.rmdir(self._tempdir)
            self._tempdir = None
