"""End to end: pyserial reads the virtual shoe on a pty; every card arrives
exactly once, in order, none invented, whatever the line does.

The heavy cases deal 10,000 cards each with short resend and heartbeat
timings; together they take well under a minute.
"""
from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterator

import pytest
from hwsim.shoe import LineFaults, SentRecord, ShoeTiming, VirtualShoe, shuffled_shoe

from firmware_bridge.shoelink import (
    LinkState,
    ReliableEvent,
    ShoeCard,
    ShoeEvent,
    ShoeHello,
    ShoeLinkReader,
    ShoeStatus,
)
from tests.firmware_bridge.shoelink_rig import (
    BACKOFF,
    HOST_TIMING,
    SHOE_TIMING,
    TEN_THOUSAND,
    Store,
    as_record,
    rig_in,
)
from tests.tablectl.helpers import Signal


@pytest.fixture
def rig() -> Iterator[tuple[list[VirtualShoe], list[ShoeLinkReader]]]:
    yield from rig_in()


def run_deal(
    rig: tuple[list[VirtualShoe], list[ShoeLinkReader]],
    cards: list[str],
    faults: LineFaults,
    seed: int,
    on_frame: Callable[[SentRecord], None] | None = None,
    **shoe_options: float,
) -> tuple[VirtualShoe, ShoeLinkReader, Store]:
    shoe = VirtualShoe(cards, timing=SHOE_TIMING, faults=faults, seed=seed, **shoe_options)  # type: ignore[arg-type]
    shoe.on_frame = on_frame  # before the first frame
    store = Store()
    shoe.on_ack = store.shoe_got_ack
    reader = ShoeLinkReader(shoe.path, store, resume_after=0, timing=HOST_TIMING, backoff=BACKOFF)
    store.reader = reader
    rig[0].append(shoe)
    rig[1].append(reader)
    shoe.start()
    reader.start()
    return shoe, reader, store


FAULT_CASES = {
    "noise": LineFaults(noise=0.01),
    "corrupt": LineFaults(corrupt=0.01),
    "drop": LineFaults(drop=0.01),
    "duplicate": LineFaults(duplicate=0.02),
    "reorder": LineFaults(reorder=0.01),
    # Stalls longer than the host's offline limit: offline, HELLO_REQ, resync.
    "stall": LineFaults(stall=0.0005, stall_s=0.15),
    "unplug": LineFaults(unplug=0.0005, unplug_s=0.05),
    "mixed": LineFaults(0.004, 0.004, 0.004, 0.004, 0.004, 0.0003, 0.0003, 0.15, 0.05),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", list(FAULT_CASES))
def test_ten_thousand_cards_arrive_exactly_once_in_order(
    rig: tuple[list[VirtualShoe], list[ShoeLinkReader]], kind: str
) -> None:
    faults = FAULT_CASES[kind]
    shoe, reader, store = run_deal(rig, TEN_THOUSAND, faults, seed=len(kind))
    assert shoe.wait_drained(45.0), f"not drained: {reader.stats} {shoe.counters}"
    delivered = store.reliable()

    # Worked out from what was loaded, not from what the shoe says it sent:
    # "loaded", then the 10,000 cards in order with index 1..10000, then "empty".
    assert delivered[0] == ShoeStatus(1, "loaded")
    cards = delivered[1:-1]
    assert [c.code for c in cards if isinstance(c, ShoeCard)] == TEN_THOUSAND
    assert [c.index for c in cards if isinstance(c, ShoeCard)] == list(range(1, 10_001))
    assert delivered[-1] == ShoeStatus(10_002, "empty")
    assert [e.seq for e in delivered] == list(range(1, 10_003))
    assert store.premature_acks == []

    counts = shoe.faults.counts
    injected = getattr(counts, kind) if kind != "mixed" else sum(vars(counts).values())
    assert injected > 0, "the fault never happened: the test proves nothing"
    # The reader counts a frame once its consumer has taken it, a moment after the store
    # (and so the shoe's ACK) saw it: wait for the count (looked at again at each step
    # of the shoe, which sends its heartbeats meanwhile), then it must be exact.
    assert shoe.wait_until(lambda: reader.stats.delivered >= 10_002, 30.0), reader.stats
    stats = reader.stats
    assert stats.delivered == 10_002
    if kind in ("noise", "corrupt"):
        assert stats.crc_errors + stats.bad_frames > 0
    if kind in ("drop", "reorder", "noise", "corrupt"):
        assert stats.gaps > 0 and stats.resends_seen > 0
    if kind == "duplicate":
        assert stats.duplicates > 0
    if kind in ("unplug", "mixed"):
        assert stats.reconnects > 0
    if kind == "stall":
        assert stats.offline_events > 0


@pytest.mark.timeout(30)
def test_every_frame_kind_under_mixed_faults_matches_what_the_shoe_sent(
    rig: tuple[list[VirtualShoe], list[ShoeLinkReader]],
) -> None:
    cards = shuffled_shoe(6, seed=7)
    shoe, _, store = run_deal(
        rig, cards, LineFaults(0.01, 0.01, 0.01, 0.01, 0.01, 0.001, 0.001, 0.05, 0.05), seed=11,
        unreadable=0.02, low_confidence=0.05, cut_card_after=250,
    )
    assert shoe.wait_drained(20.0)
    delivered = [as_record(e) for e in store.reliable()]
    assert delivered == shoe.records
    kinds = {r.kind for r in delivered}
    assert kinds == {"card", "unreadable", "shoe"}
    assert [r.event for r in delivered if r.kind == "shoe"] == ["loaded", "cut_card", "empty"]
    assert any(r.low_confidence for r in delivered)
    indexes = [r.index for r in delivered if r.kind in ("card", "unreadable")]
    assert indexes == list(range(1, 6 * 52 + 1))
    assert store.premature_acks == []


def test_an_unplug_mid_deal_loses_nothing_once_the_shoe_is_back(
    rig: tuple[list[VirtualShoe], list[ShoeLinkReader]],
) -> None:
    cards = shuffled_shoe(4, seed=5)
    made = Signal()
    # Dealer-paced, so the cable comes out mid-deal however slowly this test runs
    # (a shoe dealing as fast as it can may have dealt all 208 before the pull).
    shoe, reader, store = run_deal(rig, cards, LineFaults(), seed=1, buffer_size=64,
                                   on_frame=made.notify, dealer_paced=True)
    shoe.draw(60)
    store.stored.wait_until(
        lambda: sum(isinstance(e, ShoeCard) for e in store.reliable()) >= 60,
        "60 cards stored", 30.0)
    shoe.unplug()
    # The dealer keeps dealing until the buffer stops the gate; the reader goes offline.
    shoe.draw(len(cards) - 60)
    made.wait_until(lambda: shoe.pending_count >= 64, "the shoe's buffer full", 30.0)
    store.stored.wait_until(lambda: not reader.online, "the reader offline", 30.0)
    assert shoe.pending_count == 64
    assert not reader.online
    received_while_out = len(store.reliable())
    assert received_while_out < len(cards)
    shoe.replug()
    assert shoe.wait_drained(30.0)
    delivered = store.reliable()
    assert [c.code for c in delivered if isinstance(c, ShoeCard)] == cards
    assert [e.seq for e in delivered] == list(range(1, len(cards) + 3))
    assert reader.stats.reconnects >= 1
    assert any(isinstance(e, LinkState) and not e.online for e in store.events)
    assert store.premature_acks == []


def test_a_restarted_shoe_with_a_new_load_is_a_new_shoe(
    rig: tuple[list[VirtualShoe], list[ShoeLinkReader]],
) -> None:
    first, second = shuffled_shoe(1, seed=1), shuffled_shoe(1, seed=2)
    shoe, reader, store = run_deal(rig, first, LineFaults(), seed=3)
    assert shoe.wait_drained(30.0)
    # A reboot shows as the uptime going back: let this shoe be up a while first
    # (a real one has been for hours), so a slow first heartbeat after the
    # reboot cannot already be past the old uptime on a busy machine.
    # Looked at again after each heartbeat the shoe sends.
    assert shoe.wait_until(lambda: (reader.stats.last_heartbeat_uptime_ms or 0) >= 2000, 10.0)
    shoe.restart(cards=second, serial_number="SHOE-0002")
    assert shoe.wait_drained(30.0)
    delivered = store.reliable()
    assert [e.seq for e in delivered] == list(range(1, 55)) + list(range(1, 55))
    assert delivered[54] == ShoeStatus(1, "loaded") and delivered[54].starts_new_shoe
    new_cards = [c for c in delivered[54:] if isinstance(c, ShoeCard)]
    assert [c.code for c in new_cards] == second
    assert [c.index for c in new_cards] == list(range(1, 53))
    hellos = [e for e in store.events if isinstance(e, ShoeHello)]
    assert hellos[-1].new_shoe and hellos[-1].restarted
    assert reader.stats.shoe_restarts == 1


def test_a_slow_consumer_sees_each_event_once_while_the_shoe_resends(
    rig: tuple[list[VirtualShoe], list[ShoeLinkReader]],
) -> None:
    cards = shuffled_shoe(2, seed=9)
    inbox: queue.Queue[ShoeEvent] = queue.Queue()
    # The shoe re-sends sooner than the consumer's 30 ms writes end.
    resending_soon = ShoeTiming(resend_interval_s=0.01,
                                heartbeat_interval_s=SHOE_TIMING.heartbeat_interval_s)
    shoe = VirtualShoe(cards, timing=resending_soon, seed=4)
    reader = ShoeLinkReader(shoe.path, inbox.put, resume_after=0, timing=HOST_TIMING)
    rig[0].append(shoe)
    rig[1].append(reader)
    shoe.start()
    reader.start()
    seen: list[ReliableEvent] = []
    while len(seen) < len(cards) + 2:
        batch = [inbox.get(timeout=10.0)]
        # A slow disk: what comes while it writes is stored with it, then the last
        # one is acknowledged.
        written_at = time.monotonic() + 0.03
        while (left := written_at - time.monotonic()) > 0:
            try:
                batch.append(inbox.get(timeout=left))
            except queue.Empty:
                break
        reliable: list[ReliableEvent] = [
            e for e in batch if isinstance(e, ShoeCard | ShoeStatus)
        ]
        seen += reliable
        if reliable:
            reader.ack(reliable[-1].seq)
    assert shoe.wait_drained(30.0)
    assert [e.seq for e in seen] == list(range(1, len(cards) + 3))
    assert shoe.counters.resend_rounds > 0  # the shoe did re-send meanwhile
    assert reader.stats.duplicates > 0


def test_without_acknowledgement_the_gate_stops_and_nothing_is_delivered_twice(
    rig: tuple[list[VirtualShoe], list[ShoeLinkReader]],
) -> None:
    inbox: queue.Queue[ShoeEvent] = queue.Queue()
    shoe = VirtualShoe(shuffled_shoe(2, seed=1), timing=SHOE_TIMING, seed=4)
    made = Signal()
    shoe.on_frame = made.notify
    reader = ShoeLinkReader(shoe.path, inbox.put, resume_after=0, timing=HOST_TIMING)
    rig[0].append(shoe)
    rig[1].append(reader)
    shoe.start()
    reader.start()
    made.wait_until(lambda: shoe.pending_count >= 64, "the shoe's buffer full", 30.0)
    resends = shoe.counters.resend_rounds
    # Several re-send rounds: still nothing delivered twice.
    assert shoe.wait_until(lambda: shoe.counters.resend_rounds >= resends + 5, 10.0)
    events = [e for e in list(inbox.queue) if isinstance(e, ShoeCard | ShoeStatus)]
    assert [e.seq for e in events] == list(range(1, 65))  # the shoe's 64-frame buffer
    assert shoe.pending_count == 64 and shoe.cards_left == 104 - 63
    assert shoe.ack_log == []
