"""The virtual port's coalesced writes, read back with pyserial as a host would."""

from __future__ import annotations

import time
from pathlib import Path

import serial
from hwsim.shoe.pty_port import VirtualPort


def read_until(host: serial.Serial, size: int, timeout_s: float = 5.0) -> bytes:
    data = b""
    deadline = time.monotonic() + timeout_s
    while len(data) < size and time.monotonic() < deadline:
        data += host.read(size - len(data))
    return data


def test_coalesced_writes_arrive_whole_and_in_order(tmp_path: Path) -> None:
    port = VirtualPort(tmp_path / "shoe", coalesce_writes=True)
    port.plug()
    host = serial.serial_for_url(str(port.link_path), timeout=0.05)
    try:
        messages = [f"<frame {n:04d}>".encode() for n in range(500)]
        for message in messages:
            assert port.write(message) == len(message)  # queued, not yet written
        expected = b"".join(messages)
        assert read_until(host, len(expected)) == expected
        assert port.bytes_lost == 0
    finally:
        host.close()
        port.close()


def test_bytes_queued_when_the_cable_is_pulled_are_gone(tmp_path: Path) -> None:
    port = VirtualPort(tmp_path / "shoe", coalesce_writes=True)
    port.plug()
    try:
        # Hold the writer while the cable is pulled and plugged back in: the bytes
        # queued before must not come out of the new connection.
        with port._outgoing_ready:
            assert port.write(b"lost on the way") == 15
            port.unplug()
            assert port.write(b"nobody there") == 0
            port.plug()
        host = serial.serial_for_url(str(port.link_path), timeout=0.05)
        try:
            port.write(b"after")
            assert read_until(host, 20, timeout_s=0.5) == b"after"
        finally:
            host.close()
    finally:
        port.close()
