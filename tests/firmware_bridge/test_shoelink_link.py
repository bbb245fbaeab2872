"""The host side of ShoeLink against a shoe played by hand on a real pty:
sequencing, acknowledgement, HELLO, watchdog."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from firmware_bridge.shoelink import (
    LinkState,
    ShoeCard,
    ShoeEvent,
    ShoeHello,
    ShoeLinkReader,
    ShoeStatus,
    ShoeUnreadable,
)
from firmware_bridge.shoelink.frames import (
    Frame,
    FrameType,
    index_payload,
    shoe_payload,
)
from tests.firmware_bridge.scripted_shoe import (
    FAST,
    Consumer,
    ScriptedShoe,
    card,
    connect,
    heartbeat,
    hello,
)


@pytest.fixture
def shoe() -> Iterator[ScriptedShoe]:
    device = ScriptedShoe()
    yield device
    device.close()




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
