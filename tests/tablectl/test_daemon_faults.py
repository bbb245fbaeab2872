"""The daemon on the whole stack when things go wrong: garbage on the serial line, a
card that cannot be in the shoe, the shoe's link lost, a full journal, a shoe
rebooted while the daemon was down."""

from __future__ import annotations

from hwsim.dealer import VirtualShoeCards
from hwsim.shoe import LineFaults

from journal import JournalReader
from tests.tablectl.daemon_bench import (
    BET,
    DELIVERED_S,
    EXPECTED_NET,
    OFF,
    STACK,
    Bench,
    bet,
    place_bets_and_deal,
)


def test_garbage_on_the_serial_line_loses_nothing(bench: Bench) -> None:
    # Noise before frames and flipped bits: frames the host cannot read are
    # dropped by its decoder and come again with the shoe's re-sends.
    shoe = bench.start_shoe(STACK, faults=LineFaults(noise=0.4, corrupt=0.3))
    running = bench.open()
    assert running.cards.wait_delivered(DELIVERED_S)
    place_bets_and_deal(running)
    running.click("double")
    running.draw("9C", "8D", "TD")
    result = running.service.table.current_result()
    assert result is not None and result["net"] == EXPECTED_NET
    counts = shoe.faults.counts
    assert counts.noise > 0 and counts.corrupt > 0, "no garbage was sent"
    assert running.daemon.shoe is not None
    stats = running.daemon.shoe.stats()
    assert stats["crc_errors"] + stats["bad_frames"] > 0, stats
    bench.check_every_frame_stored_once_and_acked_after()


def test_a_card_that_cannot_be_in_the_shoe_is_flagged(bench: Bench) -> None:
    # One deck: a second ace of spades cannot come out of it.
    bench.start_shoe(["AS", "5D", "AS", "9C"])
    running = bench.open(rules={"decks": 1})
    assert running.cards.wait_delivered(DELIVERED_S)
    running.post(bet(1, 100), "t:1")
    running.post({"deal": {}}, "t:2")
    running.draw("AS", "5D", "AS")
    due = running.service.table.due()
    assert due.halted and due.open_flags == ("IMPOSSIBLE_CARD",)
    assert running.service.table.view().flags == ("IMPOSSIBLE_CARD",)
    assert running.lamps()["alarm"] and running.blinking() == []
    assert running.mock.box_state(1) == BET
    # The card is journaled (with the flag's cause) and acknowledged all the same.
    assert bench.shoe_events()[-1][1] == {"card": "AS"}
    # The pit voids the round with the void button: the alarm goes out, bets back.
    running.click("void")
    result = running.service.table.current_result()
    assert result is not None and result["status"] == "void"
    assert result["net"] == {"box1/main": 0}
    assert not running.lamps()["alarm"] and running.boxes() == [OFF] * 7
    bench.check_every_frame_stored_once_and_acked_after()


def test_the_shoe_fault_lamp_follows_the_link(bench: Bench) -> None:
    shoe = bench.start_shoe(["2S", "3S"])
    running = bench.open()
    assert running.cards.wait_delivered(DELIVERED_S)
    running.changed.wait_until(lambda: running.service.snapshot.shoe_online, "the shoe online")
    assert not running.lamps()["shoe_fault"]
    shoe.unplug()
    running.changed.wait_until(lambda: running.lamps()["shoe_fault"], "the shoe-fault lamp")
    assert running.request("GET", "/state")[1]["shoe_online"] is False
    shoe.replug()
    running.changed.wait_until(lambda: not running.lamps()["shoe_fault"],
                               "the shoe-fault lamp to go out")


def test_a_full_journal_halts_the_table_with_the_alarm_and_acknowledges_nothing_more(
        bench: Bench) -> None:
    shoe = bench.start_shoe(["9S", "4D", "KC"])
    running = bench.open()
    assert running.cards.wait_delivered(DELIVERED_S)
    journal = running.service.journal
    # The file may not grow past the pages it has: SQLite reports it full soon.
    journal.max_pages = int(journal._db.execute("PRAGMA page_count").fetchone()[0])
    stored = 0
    for i in range(1000):
        status, answer = running.request("POST", "/events",
                                         {"event": bet(1 + i % 7, 10), "id": f"t:{i}"})
        if status != 200:
            break
        stored += 1
    assert status == 503 and answer["stored"] is False, "the capped journal never filled"
    # The committer answers at once; the table's loop lights the alarm as its next job.
    running.changed.wait_until(lambda: running.lamps()["alarm"], "the alarm lamp")
    assert running.request("GET", "/health")[0] == 503
    acked = shoe.acked_seq
    resends = shoe.counters.resend_rounds
    # A card leaves the shoe: the table cannot store it, so it is never acknowledged
    # and the shoe keeps it for the next start.
    running.cards.draw()
    running.changed.wait_until(lambda: shoe.cards_dealt == 1, "the card to leave the shoe")
    assert shoe.wait_until(lambda: shoe.counters.resend_rounds >= resends + 3, 10.0), \
        "the shoe never re-sent"
    assert shoe.acked_seq == acked and shoe.pending_count == 1
    assert running.lamps()["alarm"]
    with JournalReader(bench.journal_path) as reader:
        events = list(reader.events())
    assert [e.source for e in events] == ["shoe"] + ["pit:harness"] * stored
    assert all(found for _, found in bench.acks), bench.acks
    # Space again (the cap was only this connection's): a restart rebuilds the table
    # from what was stored, and the card the shoe kept arrives, once.
    bench.close(running)
    again = bench.open()
    assert again.cards.wait_delivered(DELIVERED_S)
    assert [event for _, event in bench.shoe_events()] == [{"shoe": "loaded"},
                                                           {"card": "9S"}]
    staked = sum(amount for box in again.service.table.view().boxes
                 for _, _, amount in box.bets)
    assert staked == 10 * stored
    assert again.service.snapshot.journal_fault is None
    # The card came out before the deal: the table flags it (the alarm is the pit's now).
    assert again.service.table.due().open_flags == ("EXTRA_CARD",)
    assert all(found for _, found in bench.acks), bench.acks


def test_a_shoe_rebooted_while_the_daemon_was_down_is_read(bench: Bench) -> None:
    shoe = bench.start_shoe(["TS", "5C", "7D"])
    first = bench.open()
    assert first.cards.wait_delivered(DELIVERED_S)
    first.post(bet(1, 100), "t:1")
    first.post({"deal": {}}, "t:2")
    first.draw("TS", "5C")
    # The journal keeps the shoe's uptime with each frame; a real shoe has been up
    # for hours, this one for a moment: its last card once the reader has heard it
    # has been up a while (its restart below reports less).
    feed = first.daemon.shoe
    assert feed is not None and feed.link is not None
    link = feed.link
    # Looked at again after each step of the shoe (a heartbeat among them).
    assert shoe.wait_until(lambda: (link.shoe_uptime_ms or 0) >= 2500, 15.0), \
        "the shoe was never heard up for 2.5 s"
    first.draw("7D")
    stored = bench.shoe_events()
    bench.close(first)
    shoe.restart(["9C", "2D"])  # a power cut: the shoe forgets its numbering
    second = bench.open()
    # The new shoe's `loaded` and first card reach the journal.
    second.cards = VirtualShoeCards(shoe)
    second.cards.draw()
    assert second.cards.wait_delivered(3.0), "the rebooted shoe's frames never arrived"
    assert [event for _, event in bench.shoe_events()[-2:]] == [{"shoe": "loaded"},
                                                                 {"card": "9C"}]
    # It came back mid-round (box 1 was to decide): one flag waits for the pit, and the
    # new shoe's card waits behind it instead of flagging a misdeal of its own.
    due = second.service.table.due()
    assert due.halted and due.open_flags == ("SHOE_RELOADED",)
    # The first boot's frames keep their references; the new boot numbers anew.
    assert bench.shoe_events()[:len(stored)] == stored
    assert all(ref.startswith("0:") for ref, _ in stored)
    assert [ref for ref, _ in bench.shoe_events()[-2:]] == ["1:1", "1:2"]
