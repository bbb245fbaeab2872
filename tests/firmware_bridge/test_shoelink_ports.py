"""The ShoeLink reader's ports: reopened through a stable link, a socket URL as
served by ser2net, each URL kind's open options, a handler that cannot open."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

from firmware_bridge.serial_port import Backoff, ReopeningPort
from firmware_bridge.shoelink import (
    ShoeCard,
    ShoeLinkReader,
)
from firmware_bridge.shoelink.frames import (
    FrameDecoder,
    FrameType,
    encode_frame,
    parse_ack_payload,
)
from tests.firmware_bridge.scripted_shoe import (
    FAST,
    Consumer,
    ScriptedShoe,
    card,
    heartbeat,
    hello,
)


def test_backoff_doubles_up_to_its_ceiling() -> None:
    backoff = Backoff(initial_s=0.1, max_s=0.5)
    assert [backoff.delay(n) for n in range(6)] == [0.0, 0.1, 0.2, 0.4, 0.5, 0.5]


def test_the_port_is_reopened_through_a_stable_link(tmp_path: Path) -> None:
    link = tmp_path / "usb-Shoe_SHOE-0042-if00"
    first = ScriptedShoe()
    link.symlink_to(first.path)
    consumer = Consumer()
    port = ReopeningPort(str(link), backoff=Backoff(0.02, 0.05))
    reader = ShoeLinkReader(port, consumer, resume_after=0, timing=FAST)
    with reader:
        first.wait_for(lambda frames: any(f.type == FrameType.HELLO_REQ for f in frames))
        first.send(hello(), heartbeat(10), card(1))
        reader.ack(consumer.next_reliable().seq)
        link.unlink()
        first.close()  # unplugged
        second = ScriptedShoe()
        link.symlink_to(second.path)
        try:
            second.wait_for(lambda frames: any(f.type == FrameType.HELLO_REQ for f in frames))
            second.send(hello(), heartbeat(20), card(1), card(2))
            assert consumer.next_reliable().seq == 2
            assert reader.stats.reconnects == 1
        finally:
            second.close()


def test_socket_url_as_served_by_ser2net() -> None:
    server = socket.create_server(("127.0.0.1", 0))
    host, port = server.getsockname()[:2]
    received = bytearray()

    def serve() -> None:
        connection, _ = server.accept()
        with connection:
            connection.settimeout(2.0)
            while FrameType.HELLO_REQ not in FrameDecoder().feed(bytes(received)) and (
                chunk := connection.recv(64)
            ):
                received.extend(chunk)
                if any(f.type == FrameType.HELLO_REQ for f in FrameDecoder().feed(received)):
                    break
            connection.sendall(b"".join(encode_frame(f) for f in (hello(), heartbeat(1), card(1))))
            while len(FrameDecoder().feed(received)) < 2 and (chunk := connection.recv(64)):
                received.extend(chunk)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    consumer = Consumer()
    reader = ShoeLinkReader(f"socket://{host}:{port}", consumer, resume_after=0, timing=FAST)
    with reader:
        event = consumer.next_reliable()
        assert isinstance(event, ShoeCard) and event.code == "AS"
        reader.ack(1)
        thread.join(2.0)
    server.close()
    frames = FrameDecoder().feed(bytes(received))
    assert [f.type for f in frames] == [FrameType.HELLO_REQ, FrameType.ACK]
    assert parse_ack_payload(frames[1].payload) == 1



def test_each_url_kind_gets_the_open_options_its_handler_takes() -> None:
    calls: list[tuple[str, dict[str, object]]] = []

    def opener(url: str, **options: object) -> object:
        calls.append((url, options))
        if url.startswith("rfc2217://") and "write_timeout" in options:
            raise NotImplementedError("write_timeout is currently not supported")
        if url.startswith("loop://") and "exclusive" in options:
            raise TypeError("unexpected keyword argument 'exclusive'")
        return object()

    stop = threading.Event()
    for url in ("/dev/serial/by-id/usb-Shoe-if00", "socket://10.0.0.5:3333",
                "rfc2217://10.0.0.5:3334", "loop://"):
        port = ReopeningPort(url, baudrate=57_600, opener=opener)
        assert port.ensure_open(stop), port.last_error
    by_url = {url: options for url, options in calls}
    assert by_url["/dev/serial/by-id/usb-Shoe-if00"] == {
        "baudrate": 57_600, "timeout": 0.05, "write_timeout": 1.0, "exclusive": True}
    assert by_url["socket://10.0.0.5:3333"]["write_timeout"] == 1.0
    assert "write_timeout" not in by_url["rfc2217://10.0.0.5:3334"]
    assert by_url["loop://"] == {"baudrate": 57_600, "timeout": 0.05, "write_timeout": 1.0}


def test_a_handler_that_cannot_open_is_a_failed_open_not_a_dead_reader() -> None:
    def opener(url: str, **options: object) -> object:
        raise NotImplementedError("no such setting here")

    port = ReopeningPort("spy://nowhere", opener=opener, backoff=Backoff(0.01, 0.02))
    assert not port.ensure_open(threading.Event())
    assert port.errors == 1 and "no such setting here" in port.last_error
