"""The virtual shoe seen from the host with plain pyserial: the device side of
ShoeLink v1 (buffer, gate, re-sends, heartbeats, HELLO), unplug and restart."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import serial
from hwsim.shoe import ShoeTiming, VirtualShoe, shuffled_shoe

from firmware_bridge.shoelink.frames import (
    Frame,
    FrameDecoder,
    FrameType,
    ack_payload,
    encode_frame,
    parse_card_payload,
    parse_heartbeat_payload,
    parse_hello_payload,
)

TIMING = ShoeTiming(resend_interval_s=0.1, heartbeat_interval_s=0.05)


class Host:
    """The table's end, by hand: pyserial on the shoe's path, frames timestamped."""

    def __init__(self, path: str) -> None:
        self.port = serial.serial_for_url(path, baudrate=115200, timeout=0.01, exclusive=True)
        self.decoder = FrameDecoder()
        self.frames: list[tuple[float, Frame]] = []

    def pump(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            data = self.port.read(4096)
            now = time.monotonic()
            self.frames += [(now, f) for f in self.decoder.feed(data)]

    def wait_for(self, check: Callable[[list[Frame]], bool], timeout_s: float = 2.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not check(self.of_kind()):
            assert time.monotonic() < deadline, "the shoe never sent that"
            self.pump(0.01)

    def of_kind(self, *types: FrameType) -> list[Frame]:
        return [f for _, f in self.frames if not types or f.type in types]

    def reliable_seqs(self) -> list[int]:
        return [f.seq for f in self.of_kind(FrameType.CARD, FrameType.SHOE, FrameType.UNREADABLE)]

    def send(self, frame_type: FrameType, payload: bytes = b"") -> None:
        self.port.write(encode_frame(Frame(frame_type, 0, payload)))

    def close(self) -> None:
        self.port.close()


Starter = Callable[..., tuple[VirtualShoe, Host]]


@pytest.fixture
def started() -> Iterator[Starter]:
    made: list[tuple[VirtualShoe, Host]] = []

    def start(cards: list[str] | None = None, **options: object) -> tuple[VirtualShoe, Host]:
        options.setdefault("timing", TIMING)
        # Switched on when the host has opened the port: nothing is lost to the
        # flush pyserial does on opening, so the first frames are the first sent.
        options.setdefault("wait_for_host", True)
        shoe = VirtualShoe(cards or shuffled_shoe(2, seed=1), **options)  # type: ignore[arg-type]
        shoe.start()
        host = Host(shoe.path)
        made.append((shoe, host))
        return shoe, host

    yield start
    for shoe, host in made:
        host.close()
        shoe.stop()


def test_the_path_is_a_stable_link_to_a_pty(started: Starter) -> None:
    shoe, _ = started()
    link = Path(shoe.path)
    assert link.is_symlink() and os.readlink(link).startswith("/dev/pts/")
    first_device = shoe.device_name
    shoe.unplug()
    assert not link.exists()
    shoe.replug()
    assert link.is_symlink() and Path(os.readlink(link)) == Path(shoe.device_name)
    assert shoe.device_name != first_device


def test_hello_req_is_answered_with_hello_heartbeat_then_every_unacked_frame(
    started: Starter,
) -> None:
    shoe, host = started(serial_number="SHOE-0042", decks=2)
    host.pump(0.03)
    host.frames.clear()
    host.send(FrameType.HELLO_REQ)
    host.wait_for(lambda frames: FrameType.HELLO in [f.type for f in frames]
                  and len(frames) >= first_hello(frames) + 2 + 64)
    frames = host.of_kind()
    hello = first_hello(frames)  # before it, on a busy machine: a heartbeat or re-send round
    assert shoe.counters.hello_requests == 1
    assert parse_hello_payload(frames[hello].payload) == {
        "fw": "1.0.0", "sn": "SHOE-0042", "decks": "2",
    }
    assert frames[hello + 1].type == FrameType.HEARTBEAT
    assert [f.seq for f in frames[hello + 2:hello + 66]] == list(range(1, 65))  # oldest first


def first_hello(frames: list[Frame]) -> int:
    return [f.type for f in frames].index(FrameType.HELLO)


def test_a_shoe_waiting_for_its_host_sends_nothing_before() -> None:
    shoe = VirtualShoe(["AS", "KD"], timing=TIMING, wait_for_host=True)
    made = threading.Event()
    shoe.on_frame = lambda _: made.set()
    shoe.start()
    try:
        # A shoe that did not wait would have made its "loaded" by now (its first
        # frame, at once), and sent its HELLO.
        assert not made.wait(0.2)
        assert shoe.counters.frames_sent == 0 and shoe.cards_left == 2
        host = Host(shoe.path)
        try:
            host.wait_for(lambda frames: 3 in [f.seq for f in frames])
            frames = host.of_kind()
        finally:
            host.close()
    finally:
        shoe.stop()
    assert [f.type for f in frames[:2]] == [FrameType.HELLO, FrameType.HEARTBEAT]
    assert [(f.type, f.seq) for f in frames[2:5]] == [
        (FrameType.SHOE, 1), (FrameType.CARD, 2), (FrameType.CARD, 3),
    ]


def test_a_full_buffer_stops_the_gate_and_acks_open_it(
    started: Starter,
) -> None:
    shoe, host = started()
    host.pump(0.25)
    assert shoe.pending_count == 64
    # 104 cards; the first reliable frame is SHOE loaded, so 63 cards left the shoe.
    assert shoe.cards_left == 104 - 63
    assert shoe.counters.gate_stops == 1
    host.send(FrameType.ACK, ack_payload(10))
    host.wait_for(lambda _: 74 in host.reliable_seqs())
    host.pump(0.05)
    assert shoe.acked_seq == 10 and shoe.pending_count == 64 and shoe.cards_left == 104 - 73
    assert max(host.reliable_seqs()) == 74  # ten acknowledged, ten more cards, no more


def test_resends_wait_for_the_interval_and_go_oldest_first(
    started: Starter,
) -> None:
    before_boot = time.monotonic()  # the shoe is switched on when the host opens it
    shoe, host = started(buffer_size=3)
    host.wait_for(lambda _: len(host.reliable_seqs()) >= 9)
    timed = [(t, f.seq) for t, f in host.frames if f.type in (FrameType.CARD, FrameType.SHOE)]
    seqs = [seq for _, seq in timed]
    assert seqs[:3] == [1, 2, 3]
    assert seqs[3:9] == [1, 2, 3, 1, 2, 3]  # each round re-sends all three, oldest first
    # Read times are never earlier than write times, so this can only overstate
    # the wait: a re-send sooner than the 100 ms interval still shows on a quiet machine.
    assert timed[3][0] - before_boot >= 0.1
    assert shoe.counters.resend_rounds >= 2
    host.send(FrameType.ACK, ack_payload(3))
    host.frames.clear()
    host.wait_for(lambda _: 6 in host.reliable_seqs())
    host.pump(0.05)
    after = host.reliable_seqs()
    first_new = after.index(4)
    assert set(after[:first_new]) <= {1, 2, 3}  # a round already on its way, maybe
    assert after[first_new:first_new + 3] == [4, 5, 6]
    assert not {1, 2, 3} & set(after[first_new:])  # acknowledged: never sent again
    assert max(after) == 6  # the buffer of three is full again


def test_an_ack_for_a_frame_never_sent_is_ignored(
    started: Starter,
) -> None:
    shoe, host = started()
    host.pump(0.05)
    host.send(FrameType.ACK, ack_payload(500))
    host.pump(0.05)
    assert shoe.acked_seq == 0 and shoe.pending_count == 64
    assert shoe.counters.acks_ignored == 1


def test_heartbeats_count_cards_and_uptime(started: Starter) -> None:
    shoe, host = started(buffer_size=11)
    host.pump(0.3)
    beats = [parse_heartbeat_payload(f.payload) for f in host.of_kind(FrameType.HEARTBEAT)]
    assert 3 <= len(beats) <= 8  # every 50 ms over 300 ms (fewer on a busy machine)
    uptimes = [uptime for _, uptime in beats]
    assert uptimes == sorted(uptimes)
    assert beats[-1][0] == 10  # SHOE loaded plus ten cards fill the 11-frame buffer


def test_card_frames_carry_the_loaded_cards_in_order(
    started: Starter,
) -> None:
    cards = ["AS", "TD", "7C", "KH"]
    shoe, host = started(cards=cards, cut_card_after=2)
    host.wait_for(lambda frames: len([f for f in frames if f.type == FrameType.SHOE]) >= 3)
    reliable = host.of_kind(FrameType.CARD, FrameType.SHOE)[:7]
    assert [f.type for f in reliable] == [FrameType.SHOE, FrameType.CARD, FrameType.CARD,
                                         FrameType.SHOE, FrameType.CARD, FrameType.CARD,
                                         FrameType.SHOE]
    assert [f.payload for f in reliable if f.type == FrameType.SHOE] == [b"\x01", b"\x02", b"\x03"]
    decoded = [parse_card_payload(f.payload) for f in reliable if f.type == FrameType.CARD]
    assert decoded == [(1, 0, 1, False), (10, 2, 2, False), (7, 3, 3, False), (13, 1, 4, False)]


def test_an_unplug_fails_the_hosts_port(started: Starter) -> None:
    shoe, host = started()
    host.pump(0.02)
    shoe.unplug()
    with pytest.raises(serial.SerialException):
        for _ in range(50):
            host.port.read(100)
    shoe.replug()
    again = Host(shoe.path)
    try:
        again.send(FrameType.HELLO_REQ)
        again.wait_for(lambda frames: any(f.type == FrameType.HELLO for f in frames))
        again.wait_for(lambda frames: 1 in [f.seq for f in frames if f.type == FrameType.SHOE])
    finally:
        again.close()


def test_a_restart_says_hello_and_numbers_from_one(
    started: Starter,
) -> None:
    shoe, host = started(cards=["AS", "2S"])
    host.wait_for(lambda frames: len([f for f in frames if f.type == FrameType.SHOE]) >= 2)
    host.send(FrameType.ACK, ack_payload(4))
    host.pump(0.02)
    host.frames.clear()
    shoe.restart(cards=["QH"], serial_number="SHOE-0007")
    host.wait_for(lambda frames: any(f.type == FrameType.CARD for f in frames))
    frames = host.of_kind()
    hello = first_hello(frames)
    assert all(f.type == FrameType.HEARTBEAT for f in frames[:hello])  # from before, maybe
    assert parse_hello_payload(frames[hello].payload)["sn"] == "SHOE-0007"
    assert parse_heartbeat_payload(frames[hello + 1].payload)[1] < 20  # uptime back near zero
    reliable = host.of_kind(FrameType.CARD, FrameType.SHOE)
    assert (reliable[0].type, reliable[0].seq, reliable[0].payload) == (FrameType.SHOE, 1, b"\x01")
    assert reliable[1].seq == 2 and parse_card_payload(reliable[1].payload) == (12, 1, 1, False)


def test_a_dealer_paced_shoe_lets_out_one_card_per_draw(started: Starter) -> None:
    shoe, host = started(["AS", "KD", "7C", "2H"], dealer_paced=True)
    host.wait_for(lambda frames: any(f.type == FrameType.SHOE for f in frames))
    host.pump(0.1)
    assert host.of_kind(FrameType.CARD) == []  # nothing drawn, nothing sent
    shoe.draw(2)
    host.wait_for(lambda frames: len([f for f in frames if f.type == FrameType.CARD]) >= 2)
    host.pump(0.1)
    cards = [parse_card_payload(f.payload) for f in host.of_kind(FrameType.CARD)]
    assert len({c[2] for c in cards}) == 2  # re-sends aside, exactly two card indices
    assert shoe.cards_dealt == 2 and shoe.cards_left == 2


def test_loading_a_new_shoe_reports_loaded_and_deals_the_new_cards(started: Starter) -> None:
    shoe, host = started(["AS"], dealer_paced=True)
    shoe.load(["9H", "8D"])
    shoe.draw(1)
    host.wait_for(lambda frames: any(f.type == FrameType.CARD for f in frames))
    first_card = parse_card_payload(host.of_kind(FrameType.CARD)[0].payload)
    assert first_card[:2] == (9, 1)  # 9 of hearts: the old card left with the old shoe
    assert len(host.of_kind(FrameType.SHOE)) >= 2  # loaded at start and on the new load
