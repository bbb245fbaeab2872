"""The host side of ShoeLink against a shoe played by hand on a real pty (and
over TCP, as through ser2net): sequencing, acknowledgement, HELLO, watchdog."""

from __future__ import annotations

import os
import queue
import select
import socket
import threading
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from firmware_bridge.serial_port import Backoff, ReopeningPort
from firmware_bridge.shoelink import (
    RELIABLE_EVENTS,
    LinkState,
    LinkTiming,
    ReliableEvent,
    ShoeCard,
    ShoeEvent,
    ShoeHello,
    ShoeLinkReader,
    ShoeStatus,
    ShoeUnreadable,
)
from firmware_bridge.shoelink.frames import (
    Frame,
    FrameDecoder,
    FrameType,
    card_payload,
    encode_frame,
    heartbeat_payload,
    hello_payload,
    index_payload,
    parse_ack_payload,
    shoe_payload,
)

FAST = LinkTiming(offline_after_s=0.3, hello_interval_s=0.1)


def card(seq: int, rank: int = 1, suit: int = 0, index: int | None = None) -> Frame:
    return Frame(FrameType.CARD, seq, card_payload(rank, suit, seq if index is None else index))


def hello(sn: str = "SHOE-0042") -> Frame:
    return Frame(FrameType.HELLO, 0, hello_payload({"fw": "1.0.0", "sn": sn, "decks": "8"}))


def heartbeat(uptime_ms: int, index: int = 0) -> Frame:
    return Frame(FrameType.HEARTBEAT, 0, heartbeat_payload(index, uptime_ms))


class ScriptedShoe:
    """The test plays the shoe's firmware by hand on the master end of a pty."""

    def __init__(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.path = os.ttyname(self._slave)
        self._decoder = FrameDecoder()
        self.received: list[Frame] = []

    def send(self, *frames: Frame) -> None:
        os.write(self.master, b"".join(encode_frame(f) for f in frames))

    def pump(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                self.received += self._decoder.feed(os.read(self.master, 4096))

    def wait_for(self, check: Callable[[list[Frame]], bool], timeout_s: float = 2.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not check(self.received):
            if time.monotonic() > deadline:
                raise AssertionError(f"the host never sent that; got {self.received}")
            self.pump(0.01)

    def acks(self) -> list[int]:
        return [parse_ack_payload(f.payload) for f in self.received if f.type == FrameType.ACK]

    def hello_requests(self) -> int:
        return sum(1 for f in self.received if f.type == FrameType.HELLO_REQ)

    def close(self) -> None:
        for fd in (self.master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass


class Consumer:
    def __init__(self) -> None:
        self.events: queue.Queue[ShoeEvent] = queue.Queue()

    def __call__(self, event: ShoeEvent) -> None:
        self.events.put(event)

    def next(self, timeout_s: float = 2.0) -> ShoeEvent:
        return self.events.get(timeout=timeout_s)

    def next_reliable(self, timeout_s: float = 2.0) -> ReliableEvent:
        while True:
            event = self.next(timeout_s)
            if isinstance(event, RELIABLE_EVENTS):
                return event

    def nothing_reliable_for(self, seconds: float) -> bool:
        try:
            self.next_reliable(seconds)
        except queue.Empty:
            return True
        return False


@pytest.fixture
def shoe() -> Iterator[ScriptedShoe]:
    device = ScriptedShoe()
    yield device
    device.close()


def connect(
    shoe: ScriptedShoe, consumer: Consumer, *, resume_after: int | None = 0, uptime: int = 5000
) -> ShoeLinkReader:
    reader = ShoeLinkReader(shoe.path, consumer, resume_after=resume_after, timing=FAST)
    reader.start()
    shoe.wait_for(lambda frames: any(f.type == FrameType.HELLO_REQ for f in frames))
    shoe.send(hello(), heartbeat(uptime))
    assert consumer.next() == LinkState(True, "HELLO received")
    event = consumer.next()
    assert isinstance(event, ShoeHello) and event.info["sn"] == "SHOE-0042"
    return reader


def test_events_arrive_in_order_and_are_acked_only_once_stored(shoe: ScriptedShoe) -> None:
    consumer = Consumer()
    with connect(shoe, consumer) as reader:
        shoe.send(
            Frame(FrameType.SHOE, 1, shoe_payload(1)),
            card(2, rank=10, suit=2, index=1),
            Frame(FrameType.UNREADABLE, 3, index_payload(2)),
        )
        assert consumer.next_reliable() == ShoeStatus(1, "loaded")
        first = consumer.next_reliable()
        assert first == ShoeCard(2, 1, 10, 2, False) and first.code == "TD"
        assert consumer.next_reliable() == ShoeUnreadable(3, 2)
        shoe.pump(0.15)
        assert shoe.acks() == []  # nothing stored yet: nothing acknowledged
        reader.ack(1)
        reader.ack(3)
        shoe.wait_for(lambda _: shoe.acks() == [1, 3])


def test_a_gap_waits_for_the_resend_and_never_skips(shoe: ScriptedShoe) -> None:
    consumer = Consumer()
    with connect(shoe, consumer) as reader:
        shoe.send(card(1), card(3))
        assert consumer.next_reliable().seq == 1
        assert consumer.nothing_reliable_for(0.15)
        shoe.send(card(2), card(3))  # the shoe's re-send, oldest first
        assert [consumer.next_reliable().seq for _ in range(2)] == [2, 3]
        assert reader.stats.gaps == 1


def test_a_resend_is_discarded_and_acknowledged_again_only_if_stored(
    shoe: ScriptedShoe,
) -> None:
    consumer = Consumer()
    with connect(shoe, consumer) as reader:
        shoe.send(card(1), card(2))
        consumer.next_reliable()
        consumer.next_reliable()
        reader.ack(1)
        shoe.wait_for(lambda _: shoe.acks() == [1])
        shoe.send(card(1), card(2))  # the shoe missed nothing but re-sends both
        assert consumer.nothing_reliable_for(0.15)
        shoe.pump(0.05)
        # seq 1 is stored: ack it again; seq 2 is delivered, not stored: no ACK of 2.
        assert shoe.acks() == [1, 1]
        assert reader.stats.duplicates == 2


def test_frames_before_the_hello_are_held_back(shoe: ScriptedShoe) -> None:
    consumer = Consumer()
    reader = ShoeLinkReader(shoe.path, consumer, resume_after=0, timing=FAST)
    with reader:
        shoe.wait_for(lambda frames: any(f.type == FrameType.HELLO_REQ for f in frames))
        shoe.send(card(1))
        assert consumer.nothing_reliable_for(0.15)
        assert reader.stats.held_back == 1
        shoe.send(hello(), heartbeat(100), card(1))
        assert consumer.next_reliable().seq == 1


def test_a_restarted_shoe_numbers_from_one_again(shoe: ScriptedShoe) -> None:
    consumer = Consumer()
    with connect(shoe, consumer, uptime=50_000) as reader:
        shoe.send(card(1), card(2))
        for _ in range(2):
            reader.ack(consumer.next_reliable().seq)
        # Firmware reboot: HELLO, uptime back near zero, a new shoe loaded as seq 1.
        shoe.send(hello(), heartbeat(20), Frame(FrameType.SHOE, 1, shoe_payload(1)))
        hello_event = consumer.next()
        assert isinstance(hello_event, ShoeHello) and hello_event.restarted
        assert not hello_event.new_shoe  # same serial number
        assert consumer.next_reliable() == ShoeStatus(1, "loaded")
        reader.ack(1)
        shoe.wait_for(lambda _: shoe.acks()[-1:] == [1])
        assert reader.stats.shoe_restarts == 1


def test_a_hello_without_restart_keeps_the_numbering(shoe: ScriptedShoe) -> None:
    consumer = Consumer()
    with connect(shoe, consumer, uptime=50_000) as reader:
        shoe.send(card(1))
        reader.ack(consumer.next_reliable().seq)
        shoe.send(hello(), heartbeat(51_000), card(1), card(2))
        hello_event = consumer.next()
        assert isinstance(hello_event, ShoeHello) and not hello_event.restarted
        assert consumer.next_reliable().seq == 2


def test_a_changed_serial_number_is_a_new_shoe(shoe: ScriptedShoe) -> None:
    consumer = Consumer()
    with connect(shoe, consumer):
        shoe.send(hello("SHOE-0099"), heartbeat(6000))
        event = consumer.next()
        assert isinstance(event, ShoeHello) and event.new_shoe
        assert event.info["sn"] == "SHOE-0099"


def test_silence_takes_the_shoe_offline_and_hello_requests_follow(shoe: ScriptedShoe) -> None:
    consumer = Consumer()
    with connect(shoe, consumer) as reader:
        before = shoe.hello_requests()
        event = consumer.next(timeout_s=1.0)
        assert event == LinkState(False, "no frame for 0.3 s")
        shoe.pump(0.35)
        assert shoe.hello_requests() - before >= 2  # one every 0.1 s until HELLO
        shoe.send(hello(), heartbeat(9000))
        assert consumer.next() == LinkState(True, "HELLO received")
        assert reader.online and reader.stats.offline_events == 1


def test_ack_of_an_event_never_delivered_is_refused(shoe: ScriptedShoe) -> None:
    consumer = Consumer()
    with connect(shoe, consumer) as reader:
        assert reader.ack(1) is False
        shoe.send(card(1))
        consumer.next_reliable()
        assert reader.ack(2) is False
        assert reader.ack(1) is True
        shoe.wait_for(lambda _: shoe.acks() == [1])
        shoe.pump(0.05)
        assert shoe.acks() == [1]  # the refused ones never reached the line


def test_resume_after_the_journal_and_wrap_past_65535(shoe: ScriptedShoe) -> None:
    consumer = Consumer()
    with connect(shoe, consumer, resume_after=65534) as reader:
        shoe.send(card(65534), card(65535), card(1))
        assert consumer.next_reliable().seq == 65535
        assert consumer.next_reliable().seq == 1
        shoe.pump(0.05)
        assert shoe.acks() == [65534]  # the journal's last one, acknowledged again
        reader.ack(1)
        shoe.wait_for(lambda _: shoe.acks()[-1:] == [1])


def test_a_failing_consumer_gets_the_event_again_on_the_resend(shoe: ScriptedShoe) -> None:
    calls: list[ShoeEvent] = []

    def fragile(event: ShoeEvent) -> None:
        calls.append(event)
        if isinstance(event, ShoeCard) and len([c for c in calls if c == event]) == 1:
            raise OSError("disk full")
        consumer(event)

    consumer = Consumer()
    reader = ShoeLinkReader(shoe.path, fragile, resume_after=0, timing=FAST)
    with reader:
        shoe.wait_for(lambda frames: any(f.type == FrameType.HELLO_REQ for f in frames))
        shoe.send(hello(), heartbeat(10), card(1))
        assert consumer.nothing_reliable_for(0.1)
        shoe.send(card(1))
        assert consumer.next_reliable().seq == 1


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


def test_the_uptime_wrapping_after_49_days_is_not_a_restart(shoe: ScriptedShoe) -> None:
    consumer = Consumer()
    with connect(shoe, consumer, uptime=0xFFFFFFFF - 1000) as reader:
        shoe.send(card(1))
        reader.ack(consumer.next_reliable().seq)
        shoe.send(heartbeat(500), card(2))
        assert consumer.next_reliable().seq == 2
        assert reader.stats.shoe_restarts == 0


def test_without_a_journal_position_the_start_is_the_oldest_frame_re_sent(
    shoe: ScriptedShoe,
) -> None:
    consumer = Consumer()
    with connect(shoe, consumer, resume_after=None) as reader:
        shoe.send(card(41), card(42))  # the line lost seq 40 in the first round
        assert consumer.nothing_reliable_for(0.1)  # waits for the re-send round
        shoe.send(card(40), card(41), card(42), card(43))
        assert [consumer.next_reliable().seq for _ in range(4)] == [40, 41, 42, 43]
        shoe.pump(0.05)
        assert shoe.acks() == []
        reader.ack(43)
        shoe.wait_for(lambda _: shoe.acks() == [43])


def test_without_a_journal_position_the_start_may_wrap(shoe: ScriptedShoe) -> None:
    consumer = Consumer()
    with connect(shoe, consumer, resume_after=None):
        shoe.send(card(1), card(2), card(65535), card(1))
        assert [consumer.next_reliable().seq for _ in range(3)] == [65535, 1, 2]


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
