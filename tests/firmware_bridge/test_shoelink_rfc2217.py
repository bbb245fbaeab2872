"""A shoe behind an RFC 2217 server (a serial port over the network) delivers every
card through pyserial's rfc2217:// URL."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
import serial
from hwsim.shoe import VirtualShoe, shuffled_shoe
from serial import rfc2217

from firmware_bridge.shoelink import (
    ShoeCard,
    ShoeLinkReader,
)
from tests.firmware_bridge.shoelink_rig import (
    BACKOFF,
    HOST_TIMING,
    SHOE_TIMING,
    Store,
    rig_in,
)


@pytest.fixture
def rig() -> Iterator[tuple[list[VirtualShoe], list[ShoeLinkReader]]]:
    yield from rig_in()


class PtySerial(serial.Serial):
    """A pty has no modem lines: report them as a plugged-in device would."""

    @property
    def cts(self) -> bool:
        return True

    @property
    def dsr(self) -> bool:
        return True

    @property
    def ri(self) -> bool:
        return False

    @property
    def cd(self) -> bool:
        return True

    def _update_dtr_state(self) -> None:
        pass

    def _update_rts_state(self) -> None:
        pass


class Rfc2217Bridge:
    """An RFC 2217 server in front of the virtual shoe's pty, as ser2net's
    `telnet(rfc2217)` accepter or pyserial's rfc2217_server would be."""

    def __init__(self, device_path: str) -> None:
        self.device_path = device_path
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"rfc2217://127.0.0.1:{self.server.getsockname()[1]}"
        self.stop = threading.Event()
        self.baudrates: list[int] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        """One connection after another, as ser2net takes a client that connects again
        (a reader whose first negotiation timed out on a busy machine reconnects)."""
        self.server.settimeout(0.05)
        while not self.stop.is_set():
            try:
                connection, _ = self.server.accept()
            except TimeoutError:
                continue
            except OSError:
                return  # the server socket was closed
            self._serve_one(connection)

    def _serve_one(self, connection: socket.socket) -> None:
        connection.settimeout(None)
        port = PtySerial(self.device_path, timeout=0.02)
        lock = threading.Lock()
        done = threading.Event()

        class Network:
            def write(self, data: bytes) -> None:
                with lock:
                    connection.sendall(data)

        manager = rfc2217.PortManager(port, Network())

        def shoe_to_network() -> None:
            while not (self.stop.is_set() or done.is_set()):
                try:
                    data = port.read(port.in_waiting or 1)
                except serial.SerialException:
                    # Under load a pty may once report data and then give none,
                    # just after it was opened; ser2net reads on, and so do we.
                    continue
                if data:
                    try:
                        Network().write(b"".join(manager.escape(data)))
                    except OSError:
                        return  # the client has gone

        pump = threading.Thread(target=shoe_to_network, daemon=True)
        pump.start()
        connection.settimeout(0.05)
        try:
            while not self.stop.is_set():
                try:
                    data = connection.recv(1024)
                except TimeoutError:
                    continue
                except OSError:
                    break
                if not data:
                    break
                port.write(b"".join(manager.filter(data)))
                self.baudrates.append(port.baudrate)
        finally:
            done.set()
            pump.join(1.0)
            port.close()
            connection.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(2.0)
        self.server.close()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pyserial's own rfc2217 thread
def test_a_shoe_behind_an_rfc2217_server_delivers_every_card(
    rig: tuple[list[VirtualShoe], list[ShoeLinkReader]],
) -> None:
    cards = shuffled_shoe(1, seed=12)
    shoe = VirtualShoe(cards, timing=SHOE_TIMING, seed=2, wait_for_host=True)
    rig[0].append(shoe)
    shoe.start()
    bridge = Rfc2217Bridge(shoe.path)
    try:
        store = Store()
        shoe.on_ack = store.shoe_got_ack
        reader = ShoeLinkReader(bridge.url, store, resume_after=0, timing=HOST_TIMING,
                                backoff=BACKOFF, baudrate=57_600)
        store.reader = reader
        rig[1].append(reader)
        reader.start()
        assert shoe.wait_drained(10.0), f"not drained: {reader.stats} {shoe.counters}"
        delivered = store.reliable()
        assert [c.code for c in delivered if isinstance(c, ShoeCard)] == cards
        assert [e.seq for e in delivered] == list(range(1, len(cards) + 3))
        assert store.premature_acks == []
        assert 57_600 in bridge.baudrates  # the baud rate travelled to the far side
    finally:
        bridge.close()
