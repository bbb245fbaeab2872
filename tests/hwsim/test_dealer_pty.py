"""The virtual dealer over the pty: the virtual shoe and a ShoeLink reader deal the
same rounds as in process."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest
from hwsim.dealer import InProcessTable, VirtualDealer, VirtualShoeCards
from hwsim.shoe import ShoeTiming, VirtualShoe

from firmware_bridge.serial_port import Backoff
from firmware_bridge.shoelink import (
    LinkTiming,
    ShoeCard,
    ShoeEvent,
    ShoeLinkReader,
    ShoeStatus,
    ShoeUnreadable,
)
from table.machine import Table
from table.profiles import Rules, load_profile
from tests.hwsim.dealer_runs import SESSION, Shoes, make_run

SHOE_TIMING = ShoeTiming(resend_interval_s=0.05, heartbeat_interval_s=0.1)
HOST_TIMING = LinkTiming(offline_after_s=1.0, hello_interval_s=0.05)


@pytest.fixture
def pty_table() -> Iterator[Callable[[Rules, list[str]], tuple[InProcessTable, VirtualShoe]]]:
    started: list[tuple[VirtualShoe, ShoeLinkReader]] = []

    def start(rules: Rules, cards: list[str]) -> tuple[InProcessTable, VirtualShoe]:
        link = InProcessTable(Table(rules))
        shoe = VirtualShoe(cards, timing=SHOE_TIMING, seed=1, dealer_paced=True)
        reader_box: list[ShoeLinkReader] = []
        lock = threading.Lock()

        def store(event: ShoeEvent) -> None:
            with lock:  # the daemon's order: store, then acknowledge
                if isinstance(event, ShoeCard):
                    link.feed({"card": event.code})
                elif isinstance(event, ShoeUnreadable):
                    link.feed({"flag": "UNREADABLE_CARD"})
                elif isinstance(event, ShoeStatus) and event.event in ("loaded", "cut_card"):
                    link.feed({"shoe": event.event})
                if isinstance(event, ShoeCard | ShoeUnreadable | ShoeStatus):
                    reader_box[0].ack(event.seq)

        reader = ShoeLinkReader(shoe.path, store, resume_after=0, timing=HOST_TIMING,
                                backoff=Backoff(initial_s=0.01, max_s=0.05))
        reader_box.append(reader)
        started.append((shoe, reader))
        shoe.start()
        reader.start()
        return link, shoe

    yield start
    for shoe, reader in started:
        reader.stop()
        shoe.stop()


@pytest.mark.timeout(60)
def test_over_the_pty_shoe_the_rounds_are_the_in_process_rounds(
    pty_table: Callable[[Rules, list[str]], tuple[InProcessTable, VirtualShoe]],
) -> None:
    rules = load_profile("casinos-austria")
    reference = make_run(rules, seed=31, boxes=4, mistake_rate=0.1, first_shoe=120)
    reference.dealer.play(20)

    shoes = Shoes(rules, 31)
    link, shoe = pty_table(rules, shoes.first(120))
    dealer = VirtualDealer(rules, link, VirtualShoeCards(shoe), seed=31, boxes=4,
                           mistake_rate=0.1, session=SESSION, new_shoe=shoes)
    dealer.play(20)
    assert len(shoes.made) > 1  # a new shoe went in over the link
    results = link.table.results()
    assert results == reference.results()
    assert any(r["flags"] for r in results)
    # The shoe's frames: cards in the order loaded, every one acknowledged once stored.
    dealt = [record.card for record in shoe.records if record.kind == "card"]
    assert dealt == reference.shoe.drawn
    assert shoe.pending_count == 0
    assert [e for e in link.events if "shoe" in e] == [{"shoe": "loaded"}] * len(shoes.made)


def test_the_pty_shoe_needs_dealer_pacing() -> None:
    shoe = VirtualShoe(["AS"])
    with pytest.raises(ValueError, match="dealer_paced"):
        VirtualShoeCards(shoe)
