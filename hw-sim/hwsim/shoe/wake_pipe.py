"""A device thread's sleep: `select` on its port until a deadline, cut short
when another thread calls `wake()`."""

from __future__ import annotations

import os
import select


class WakePipe:
    def __init__(self) -> None:
        self._read_fd, self._write_fd = os.pipe()
        os.set_blocking(self._write_fd, False)

    def wake(self) -> None:
        try:
            os.write(self._write_fd, b"x")
        except OSError:
            pass  # already woken (the pipe is full) or closed

    def sleep(self, timeout_s: float, port_fd: int | None) -> None:
        """Until `port_fd` (if any) has bytes, a `wake()`, or `timeout_s` passed."""
        fds = [self._read_fd] + ([port_fd] if port_fd is not None else [])
        try:
            readable, _, _ = select.select(fds, [], [], timeout_s)
        except (OSError, ValueError):
            readable = []  # the pty closed under us: the next step notices
        if self._read_fd in readable:
            try:
                os.read(self._read_fd, 512)
            except OSError:
                pass

    def close(self) -> None:
        for fd in (self._read_fd, self._write_fd):
            try:
                os.close(fd)
            except OSError:
                pass
