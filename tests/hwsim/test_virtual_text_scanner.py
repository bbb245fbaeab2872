"""The virtual text scanner that waits for its host: nothing is sent before a
host opens the port, and the host then reads every line from the first."""

from __future__ import annotations

import os
import threading
import time

import serial
from hwsim.shoe import VirtualTextScanner
from hwsim.shoe.pty_port import VirtualPort
from hwsim.shoe.text_scanner import GARBAGE_LINES, scanner_lines

CARDS = ["AS", "TH", "QD", "2C", "7H", "KS"] * 5


def read_lines(port: serial.Serial, count: int, timeout_s: float = 5.0) -> list[bytes]:
    data = b""
    deadline = time.monotonic() + timeout_s
    while data.count(b"\n") < count and time.monotonic() < deadline:
        data += port.read(4096)
    return data.splitlines(keepends=True)


def test_a_waiting_scanner_sends_nothing_until_the_host_opens_the_port() -> None:
    scanner = VirtualTextScanner(CARDS, garbage=0.3, seed=5, wait_for_host=True)
    scanner.start()
    try:
        # A scanner that did not wait would be done by now (30 cards at once).
        assert not scanner.finished.wait(0.3)
        assert scanner.lines_sent == []
        host = serial.serial_for_url(scanner.path, baudrate=9600, timeout=0.05)
        try:
            assert scanner.finished.wait(5)
            expected = [line for _, lines in scanner_lines(CARDS, 0.3, 5) for line in lines]
            got = read_lines(host, len(expected))
        finally:
            host.close()
    finally:
        scanner.stop()
    assert [line.decode("latin-1") for line in got] == expected == scanner.lines_sent
    assert scanner.cards_sent == CARDS
    garbage = [line for line in expected if line.strip() in GARBAGE_LINES]
    assert scanner.garbage_sent == len(garbage) > 0


def test_scanner_lines_are_the_lines_a_scanner_with_that_seed_sends() -> None:
    scanner = VirtualTextScanner(CARDS, garbage=0.5, seed=11)
    scanner.start()
    try:
        assert scanner.finished.wait(5)
    finally:
        scanner.stop()
    expected = list(scanner_lines(CARDS, 0.5, 11))
    assert scanner.lines_sent == [line for _, lines in expected for line in lines]
    assert [card for card, _ in expected] == CARDS


def test_wait_for_host_returns_for_a_host_that_does_not_flush() -> None:
    port = VirtualPort()
    port.plug(release_slave=True)
    stop = threading.Event()
    try:
        assert port.waiting_for_host and not port.host_has_it_open()
        waited: list[bool] = []
        waiter = threading.Thread(target=lambda: waited.append(port.wait_for_host(stop)))
        waiter.start()
        waiter.join(0.1)
        assert waiter.is_alive() and waited == []
        fd = os.open(port.link_path, os.O_RDWR | os.O_NOCTTY)  # no flush on this open
        try:
            assert port.host_has_it_open()
            os.write(fd, b"hi")  # sent while the port waits: kept for read()
            waiter.join(5)
            assert waited == [True] and not port.waiting_for_host
            assert port.write(b"AS\n") == 3
            assert os.read(fd, 16) == b"AS\n"
            os.write(fd, b" there")
            deadline = time.monotonic() + 2
            data = b""
            while len(data) < 8 and time.monotonic() < deadline:
                data += port.read()
            assert data == b"hi there"  # plain bytes, no packet-mode status in them
        finally:
            os.close(fd)
        assert port.write(b"KD\n") == 3  # the host gone, the port still takes bytes
        assert port.wait_for_host(stop)  # not waiting any more: at once
    finally:
        stop.set()
        port.close()


def test_a_stop_ends_the_wait() -> None:
    port = VirtualPort()
    port.plug(release_slave=True)
    stop = threading.Event()
    try:
        stop.set()
        assert port.wait_for_host(stop) is False
    finally:
        port.close()
