"""The ShoeLink core without a port: bytes in, events and host frames out, time
given by the test (docs/protocol.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from firmware_bridge.shoelink import LinkState, LinkTiming, ShoeCard, ShoeHello, ShoeStatus
from firmware_bridge.shoelink import frames as wire
from firmware_bridge.shoelink.core import ShoeLinkCore
from firmware_bridge.shoelink.events import ShoeEvent
from firmware_bridge.shoelink.frames import Frame, FrameType


class ListLine:
    """The line as a list: what the core sent, decoded back into frames."""

    def __init__(self, problem: str = "") -> None:
        self.sent: list[Frame] = []
        self._decoder = wire.FrameDecoder()
        self._problem = problem

    def write(self, data: bytes) -> bool:
        self.sent += self._decoder.feed(data)
        return True

    def problem(self) -> str:
        return self._problem

    def acks(self) -> list[int]:
        return [wire.parse_ack_payload(f.payload) for f in self.sent if f.type == FrameType.ACK]

    def hello_requests(self) -> int:
        return sum(1 for f in self.sent if f.type == FrameType.HELLO_REQ)


def greeting(uptime_ms: int = 5000, sn: str = "SHOE-0042") -> bytes:
    hello = Frame(FrameType.HELLO, 0, wire.hello_payload({"fw": "1.0.0", "sn": sn}))
    beat = Frame(FrameType.HEARTBEAT, 0, wire.heartbeat_payload(0, uptime_ms))
    return wire.encode_frame(hello) + wire.encode_frame(beat)


def card(seq: int, rank: int, suit: int) -> bytes:
    return wire.encode_frame(Frame(FrameType.CARD, seq, wire.card_payload(rank, suit, seq)))


def connected(line: ListLine, events: list[ShoeEvent], **options: object) -> ShoeLinkCore:
    core = ShoeLinkCore(line, events.append, resume_after=0, **options)  # type: ignore[arg-type]
    core.started(0.0)
    core.port_opened(0.0)
    return core


def test_a_greeting_then_cards_are_delivered_in_order_and_acked_when_stored() -> None:
    line, events = ListLine(), []
    core = connected(line, events)
    assert line.hello_requests() == 1  # asked for a HELLO as the port opened
    core.received(greeting() + card(1, 1, 0) + card(2, 10, 2), now=0.1)
    assert events[:2] == [LinkState(True, "HELLO received"),
                          ShoeHello({"fw": "1.0.0", "sn": "SHOE-0042"})]
    cards = events[2:]
    assert [c.code for c in cards if isinstance(c, ShoeCard)] == ["AS", "TD"]
    assert line.acks() == []  # nothing is acknowledged before the consumer stored it
    assert core.ack(2) is True
    assert line.acks() == [2]
    assert core.ack(3) is False  # never delivered: not sent
    assert line.acks() == [2]


@pytest.mark.parametrize("piece", [1, 2, 3, 7, 50])
def test_the_stream_may_be_split_anywhere(piece: int) -> None:
    line, events = ListLine(), []
    core = connected(line, events)
    data = greeting() + card(1, 13, 3) + wire.encode_frame(
        Frame(FrameType.SHOE, 2, wire.shoe_payload(wire.ShoeEventCode.CUT_CARD)))
    for start in range(0, len(data), piece):
        core.received(data[start:start + piece], now=0.1)
    assert events[2:] == [ShoeCard(1, 1, 13, 3), ShoeStatus(2, "cut_card")]


def test_a_gap_waits_for_the_resend_and_a_resend_already_stored_is_acked_again() -> None:
    line, events = ListLine(), []
    core = connected(line, events)
    core.received(greeting() + card(2, 2, 0), now=0.1)  # frame 1 was lost on the line
    assert events[2:] == []
    core.received(card(1, 1, 0) + card(2, 2, 0), now=0.4)  # the shoe re-sends both
    assert [e.seq for e in events[2:] if isinstance(e, ShoeCard)] == [1, 2]
    core.ack(2)
    core.received(card(2, 2, 0), now=0.7)  # the shoe missed that ACK
    assert line.acks() == [2, 2]
    assert core.stats.gaps == 1 and core.stats.duplicates == 1


def test_silence_takes_the_shoe_offline_and_hello_req_is_repeated() -> None:
    line, events = ListLine(), []
    timing = LinkTiming(offline_after_s=3.0, hello_interval_s=1.0)
    core = connected(line, events, timing=timing)
    core.received(greeting(), now=0.5)
    core.tick(3.4)
    assert core.online
    core.tick(3.6)  # 3.1 s since the last frame
    assert events[-1] == LinkState(False, "no frame for 3 s")
    assert not core.online
    requests = line.hello_requests()
    core.tick(4.7)  # a second and more after the last HELLO_REQ
    assert line.hello_requests() == requests + 1


def test_a_shoe_silent_from_the_start_is_offline_once_with_the_lines_problem() -> None:
    line, events = ListLine(problem="cannot open /dev/shoe"), []
    core = ShoeLinkCore(line, events.append, resume_after=0)
    core.started(10.0)
    core.tick(12.9)
    assert events == []
    core.tick(13.1)
    core.tick(20.0)
    assert events == [LinkState(False, "no frame from the shoe in the 3 s since start "
                                       "(cannot open /dev/shoe)")]


def test_a_consumer_that_fails_gets_the_frame_again_with_the_resend() -> None:
    line, taken = ListLine(), []
    refuse = [True]

    def consumer(event: ShoeEvent) -> None:
        if isinstance(event, ShoeCard) and refuse.pop(0):
            raise RuntimeError("disk full")
        taken.append(event)

    core = ShoeLinkCore(line, consumer, resume_after=0)
    core.port_opened(0.0)
    core.received(greeting() + card(1, 5, 1), now=0.1)
    refuse.append(False)
    core.received(card(1, 5, 1), now=0.4)
    assert [e.code for e in taken if isinstance(e, ShoeCard)] == ["5H"]


def test_the_example_of_docs_protocol_md_runs() -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
    examples = re.findall(r"^```python\n(.*?)^```", page.read_text(encoding="utf-8"), re.S | re.M)
    assert len(examples) == 1
    exec(compile(examples[0], str(page), "exec"), {"__name__": "docs_example"})


def heartbeat(uptime_ms: int) -> bytes:
    return wire.encode_frame(Frame(FrameType.HEARTBEAT, 0, wire.heartbeat_payload(0, uptime_ms)))


def test_a_heartbeat_arriving_behind_a_later_one_is_no_restart() -> None:
    line, events = ListLine(), []
    core = connected(line, events)
    core.received(greeting(uptime_ms=50_000) + card(1, 1, 0), now=0.1)
    # The line swapped two heartbeats 40 ms apart: 50,080 then 50,040, heard together.
    core.received(heartbeat(50_080) + heartbeat(50_040) + card(2, 10, 2), now=0.2)
    assert core.stats.shoe_restarts == 0
    assert [c.seq for c in events if isinstance(c, ShoeCard)] == [1, 2]
    assert core.shoe_uptime_ms == 50_080  # the later one stands


def test_an_uptime_back_near_zero_after_a_silence_is_a_restart() -> None:
    line, events = ListLine(), []
    core = connected(line, events)
    core.received(greeting(uptime_ms=50_000), now=0.1)
    # Heard 2 s later with 800 ms of uptime: it booted within the silence.
    core.received(heartbeat(800), now=2.1)
    assert core.stats.shoe_restarts == 1
    assert core.shoe_uptime_ms == 800


@pytest.mark.parametrize(("before", "now", "heard_ago", "restarted"), [
    (50_000, 49_960, 0.0, False),  # 40 ms back, heard just now: a late heartbeat
    (50_000, 20, 0.05, True),  # 20 ms up, 50 ms after the last: booted in between
    (50_000, 1_300, 0.4, True),  # 1.3 s up, heard 0.4 s ago: within the second of slack
    (50_000, 2_500, 0.4, False),  # up 2.5 s, but heard 0.4 s ago: not a reboot since
    (50_000, 2_500, None, True),  # the earlier uptime from the journal: any step back
    (0xFFFFFFFF - 1000, 500, 1.0, False),  # the u32 wrap after 49.7 days
])
def test_a_restart_is_an_uptime_that_fits_the_silence_before_it(
        before: int, now: int, heard_ago: float | None, restarted: bool) -> None:
    assert wire.shoe_restarted(before, now, heard_ago) is restarted
