"""A real Mosquitto broker on a free loopback port, for the tests and the benchmark."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
from pathlib import Path

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port() -> int:
    return free_ports(1)[0]


def free_ports(count: int) -> list[int]:
    """`count` different free loopback ports: each probe stays bound until all are picked,
    so the kernel cannot hand the same port out twice."""
    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [int(probe.getsockname()[1]) for probe in probes]
    finally:
        for probe in probes:
            probe.close()


class Mosquitto:
    """`start()`, `kill()` (SIGKILL, as a crash), `start()` again on the same port, `stop()`.

    `extra` lines go into the config (e.g. a password file and ACL)."""

    def __init__(self, folder: Path, port: int | None = None, extra: str = "") -> None:
        self.folder = folder
        self.port = port or free_port()
        self.config = folder / "mosquitto.conf"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\n"
            "persistence false\n"
            "max_queued_messages 0\n"
            "max_inflight_messages 0\n"
            # Its start-up lines on stderr, the last "mosquitto version V running".
            "log_dest stderr\n"
            "log_type information\n"
            # As root mosquitto turns into user mosquitto, who cannot read the test's
            # private folder (its password file); it stays who started it instead.
            + ("user root\n" if os.geteuid() == 0 else "")
            + (extra or "allow_anonymous true\n"))
        self.process: subprocess.Popen[bytes] | None = None
        self._listening = threading.Event()

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 10.0) -> None:
        """Returns once the broker says it listens (or raises)."""
        self._listening = listening = threading.Event()
        self.process = process = subprocess.Popen([MOSQUITTO, "-c", str(self.config)],
                                                  stdout=subprocess.DEVNULL,
                                                  stderr=subprocess.PIPE)
        threading.Thread(target=self._read_log, args=(process, listening),
                         name="mosquitto-log", daemon=True).start()
        if not listening.wait(timeout_s):
            raise RuntimeError("mosquitto did not listen in time")
        if process.stderr is None or process.stderr.closed:  # its log ended: it is gone
            raise RuntimeError(f"mosquitto exited with {process.wait(10)}")

    @staticmethod
    def _read_log(process: subprocess.Popen[bytes], listening: threading.Event) -> None:
        """Notes the listening socket, and reads the log to its end (a full pipe would
        stop the broker); the end of the log (the broker gone) ends a wait too."""
        assert process.stderr is not None
        with process.stderr:
            for line in process.stderr:
                if line.rstrip().endswith(b" running"):  # every listener is open
                    listening.set()
        listening.set()

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
