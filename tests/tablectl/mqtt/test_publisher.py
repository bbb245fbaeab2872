"""The table's publisher against a real Mosquitto: every journal event once, in order,
keyed by its seq; round summaries; retained state and status; store and forward."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

from paho.mqtt.client import mqtt_ms_queued
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablectl.mqtt.outbox import load_mark, mark_path
from tablectl.mqtt.publisher import ID_CHECK_S, Publisher
from tablectl.mqtt.seq_key import seq_property
from tablectl.mqtt.settings import from_options
from tests.tablectl.helpers import wait_watched
from tests.tablectl.mqtt.broker import Mosquitto, free_port
from tests.tablectl.mqtt.helpers import Watcher, add_rounds, make_journal


def test_every_event_once_in_order_with_rounds_state_and_status(
        broker: Mosquitto, tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "j.sqlite", 5, nets=[10, -20, 30, 0, -5])
    watcher = Watcher(broker.port)
    publisher = Publisher(from_options(broker.url, "bj-7"), journal.path)
    publisher.start()
    try:
        watcher.wait(lambda: len(watcher.docs("rounds")) == 5, "five round summaries")
        add_rounds(journal, 1, first=6, nets=[40])
        publisher.wake()
        watcher.wait(lambda: len(watcher.docs("events")) == 24, "24 events")
        watcher.wait(lambda: len(watcher.docs("rounds")) == 6, "the sixth round")
        events = watcher.docs("events")
        assert [e["seq"] for e in events] == list(range(1, 25))
        assert {e["table"] for e in events} == {"bj-7"}
        assert events[0]["event"] == {"bet": {"box": 1, "amount": 10}}
        assert events[2]["source"] == "shoe" and events[2]["source_ref"] == "1:1"
        # The seq is the message's key (an MQTT 5 user property) too.
        keys = [dict(props.UserProperty)["seq"] for *_, props in watcher.raw("events")]
        assert keys == [str(n) for n in range(1, 25)]
        rounds = watcher.docs("rounds")
        assert [(r["round"], r["start_seq"], r["seq"]) for r in rounds] == [
            (n, 4 * n - 3, 4 * n) for n in range(1, 7)]
        # The house wins what the players lose.
        assert [r["house"] for r in rounds] == [-10, 20, -30, 0, 5, -40]
        assert rounds[0]["table"] == "bj-7" and rounds[0]["staked"] == 10
        assert watcher.docs("status")[0]["status"] == "online"
        wait_watched(publisher.watchers,
                     lambda: publisher.mark.events == 24 and publisher.mark.rounds == 6,
                     "the broker's acknowledgements")
    finally:
        publisher.stop()
    # stop() waits for the broker to take the offline status; a subscriber gets it after.
    watcher.wait(lambda: watcher.docs("status")[-1]["status"] == "offline", "the offline status")
    # The mark beside the journal says what the broker has.
    mark = load_mark(mark_path(journal.path))
    assert (mark.events, mark.rounds, mark.origin) == (24, 6, publisher.origin)
    # A late subscriber gets the retained state and status.
    late = Watcher(broker.port)
    late.wait(lambda: late.docs("state") and late.docs("status"), "the retained messages")
    assert all(retain for *_, retain, _ in late.raw("state") + late.raw("status"))
    state = late.docs("state")[-1]
    assert (state["seq"], state["round"], state["profile"]) == (24, 6, "casinos-austria")
    assert late.docs("status")[-1]["status"] == "offline"
    late.close()
    watcher.close()
    journal.close()


def test_a_broker_that_is_down_delays_nothing_and_gets_everything_later(
        tmp_path: Path) -> None:
    folder = tmp_path / "broker"
    folder.mkdir()
    broker = Mosquitto(folder, port=free_port())  # not started yet
    journal = make_journal(tmp_path / "j.sqlite", 3)
    publisher = Publisher(from_options(broker.url, "bj-1"), journal.path, poll_s=0.05)
    publisher.start()
    try:
        add_rounds(journal, 2, first=4)  # the table goes on while the broker is away
        publisher.wake()
        assert publisher.mark.events == 0
        broker.start()
        watcher = Watcher(broker.port)
        watcher.wait(lambda: len(watcher.docs("events")) == 20, "the 20 stored events")
        watcher.wait(lambda: len(watcher.docs("rounds")) == 5, "the five rounds")
        assert [e["seq"] for e in watcher.docs("events")] == list(range(1, 21))
        wait_watched(publisher.watchers,
                     lambda: publisher.mark.events == 20, "the acknowledgements")
        watcher.close()
    finally:
        publisher.stop()
        broker.stop()
        journal.close()


def test_a_restarted_publisher_goes_on_from_its_mark(broker: Mosquitto, tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "j.sqlite", 2)
    first = Publisher(from_options(broker.url, "bj-1"), journal.path)
    first.start()
    wait_watched(first.watchers,
                 lambda: first.mark.events == 8 and first.mark.rounds == 2, "the first eight")
    first.stop()
    add_rounds(journal, 1, first=3)
    watcher = Watcher(broker.port)
    second = Publisher(from_options(broker.url, "bj-1"), journal.path)
    assert second.origin == first.origin  # the same journal is the same table
    second.start()
    try:
        watcher.wait(lambda: len(watcher.docs("rounds")) == 1, "the third round")
        assert [e["seq"] for e in watcher.docs("events")] == [9, 10, 11, 12]
        assert watcher.docs("rounds")[0]["round"] == 3
    finally:
        second.stop()
        watcher.close()
        journal.close()


def test_a_resend_request_publishes_that_range_again(broker: Mosquitto, tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "j.sqlite", 3)
    publisher = Publisher(from_options(broker.url, "bj-2"), journal.path)
    publisher.start()
    try:
        wait_watched(publisher.watchers,
                     lambda: publisher.mark.events == 12, "the first publication")
        watcher = Watcher(broker.port, "tablectl/v1/bj-2/events")
        from tests.tablectl.mqtt.helpers import send

        send(broker.port, "tablectl/v1/bj-2/resend",
             json.dumps({"v": 1, "events": [3, 5]}).encode())
        watcher.wait(lambda: len(watcher.docs("events")) == 3, "events 3 to 5 again")
        assert [e["seq"] for e in watcher.docs("events")] == [3, 4, 5]
        # A request that is not ours is ignored, and the publisher goes on.
        send(broker.port, "tablectl/v1/bj-2/resend", b"please resend everything")
        send(broker.port, "tablectl/v1/bj-2/resend",
             json.dumps({"v": 1, "events": [9, 2]}).encode())
        add_rounds(journal, 1, first=4)
        publisher.wake()
        watcher.wait(lambda: len(watcher.docs("events")) == 7, "the next round's events")
        assert [e["seq"] for e in watcher.docs("events")] == [3, 4, 5, 13, 14, 15, 16]
        watcher.close()
    finally:
        publisher.stop()
        journal.close()


def test_a_large_resend_goes_out_within_the_window(broker: Mosquitto, tmp_path: Path) -> None:
    """A request for more than the window is sent in slices as the broker acknowledges:
    the window is the one limit, and paho queues nothing of its own."""
    journal = make_journal(tmp_path / "j.sqlite", 75)  # 300 events, 75 rounds
    publisher = Publisher(from_options(broker.url, "bj-3"), journal.path, window=40)
    most, queued = 0, 0
    handed = publisher._send

    def counted(*args: Any, **options: Any) -> bool:
        nonlocal most, queued
        taken = handed(*args, **options)
        most = max(most, len(publisher._inflight))
        assert publisher.client is not None
        queued += sum(m.state == mqtt_ms_queued
                      for m in list(publisher.client._out_messages.values()))
        return taken

    publisher._send = counted  # type: ignore[method-assign]
    publisher.start()
    try:
        wait_watched(publisher.watchers,
                     lambda: publisher.mark.events == 300 and publisher.mark.rounds == 75,
                     "the first publication", 30)
        assert publisher.client is not None
        assert publisher.client._max_inflight_messages == 0  # the window is the limit
        watcher = Watcher(broker.port, "tablectl/v1/bj-3/+")
        from tests.tablectl.mqtt.helpers import send

        send(broker.port, "tablectl/v1/bj-3/resend",
             json.dumps({"v": 1, "events": [1, 300], "rounds": [1, 75]}).encode())
        watcher.wait(lambda: len(watcher.docs("events")) == 300
                     and len(watcher.docs("rounds")) == 75, "all of it again", 30)
        assert [e["seq"] for e in watcher.docs("events")] == list(range(1, 301))
        assert [r["round"] for r in watcher.docs("rounds")] == list(range(1, 76))
        assert most <= 40 + 1  # the window, and the retained state
        assert queued == 0  # paho sent each at once
        watcher.close()
    finally:
        publisher.stop()
        journal.close()


def test_the_seq_key_is_packed_as_paho_packs_a_user_property() -> None:
    for seq in (1, 9, 10, 65_535, 10**15):
        properties = Properties(PacketTypes.PUBLISH)
        properties.UserProperty = ("seq", str(seq))
        assert seq_property(seq).pack() == properties.pack()


def test_a_second_table_with_the_same_id_publishes_nothing(
        broker: Mosquitto, tmp_path: Path) -> None:
    first_journal = make_journal(tmp_path / "first.sqlite", 1)
    second_journal = make_journal(tmp_path / "second.sqlite", 2)
    first = Publisher(from_options(broker.url, "bj-9"), first_journal.path)
    first.start()
    wait_watched(first.watchers, lambda: first.mark.events == 4, "the first table's events")
    watcher = Watcher(broker.port)
    second = Publisher(from_options(broker.url, "bj-9"), second_journal.path)
    second.start()
    try:
        wait_watched(second.watchers,
                     lambda: second.error is not None, "the second table's refusal")
        error = second.error or ""
        assert "is online" in error and "own --table id" in error
        add_rounds(first_journal, 1, first=2)
        first.wake()
        watcher.wait(lambda: len(watcher.docs("events")) == 4, "the first table's next round")
        assert {d["origin"] for d in watcher.docs("events") + watcher.docs("state")
                + watcher.docs("status")} == {first.origin}
        assert second.mark.events == 0
    finally:
        second.stop()
        first.stop()
        watcher.close()
    # What is retained is still the first table's.
    late = Watcher(broker.port)
    late.wait(lambda: late.docs("state"), "the retained state")
    assert late.docs("state")[-1]["origin"] == first.origin
    late.close()
    first_journal.close()
    second_journal.close()


def test_the_id_check_waits_from_the_granted_subscription(tmp_path: Path) -> None:
    # The retained status of another table with this id comes right after the
    # broker grants the subscription; on a busy machine that may be long after the
    # connection, so the check's 0.3 s run from the grant (paho's call, made here).
    journal = make_journal(tmp_path / "j.sqlite", 1)
    publisher = Publisher(from_options("mqtt://127.0.0.1:1", "bj-3"), journal.path)
    try:
        publisher._subscribe_mid, publisher._check_until = 5, math.inf
        publisher._on_subscribe(None, None, 4, [], None)  # another subscription's grant
        assert publisher._check_until == math.inf
        before = time.monotonic()
        publisher._on_subscribe(None, None, 5, [], None)
        assert before + ID_CHECK_S <= publisher._check_until <= time.monotonic() + ID_CHECK_S
    finally:
        journal.close()


def test_an_event_payload_is_what_json_makes_of_it() -> None:
    import json as json_module

    from tablectl.mqtt.topics import encode, event_payload

    event = {"bet": {"box": 1, "amount": 10, "player": "Zoë \"7\""}}
    for ref, at in (("1:12@3.5", 1795600005.023676), (None, None), ("ü\n", 3.0)):
        made = event_payload("bj-1", "c0ffee", 17, "shoe", ref, json_module.dumps(
            event, sort_keys=True, separators=(",", ":")), at, 1795600005.5)
        expected = {"v": 1, "table": "bj-1", "origin": "c0ffee", "seq": 17, "source": "shoe",
                    "source_ref": ref, "at": at, "sent": 1795600005.5, "event": event}
        assert json_module.loads(made) == expected
        assert made == encode(expected)


def test_a_lost_mark_gives_the_same_origin_and_an_empty_journal_waits(
        broker: Mosquitto, tmp_path: Path) -> None:
    from journal import Journal

    journal = Journal(tmp_path / "j.sqlite", profile="casinos-austria")
    watcher = Watcher(broker.port)
    publisher = Publisher(from_options(broker.url, "bj-12"), journal.path)
    publisher.start()
    try:
        publisher.wake()
        assert publisher.origin == "" and publisher.client is None  # nothing to publish
        add_rounds(journal, 1)
        publisher.wake()
        watcher.wait(lambda: len(watcher.docs("events")) == 4, "the first round's events")
        wait_watched(publisher.watchers, lambda: publisher.mark.events == 4, "the acknowledgements")
    finally:
        publisher.stop()
    origin = publisher.origin
    assert origin and {d["origin"] for d in watcher.docs("events")} == {origin}
    mark_path(journal.path).unlink()  # lost
    again = Publisher(from_options(broker.url, "bj-12"), journal.path)
    assert again.origin == origin  # the journal's first event says who it is
    again.start()
    try:
        watcher.wait(lambda: len(watcher.docs("events")) == 8, "everything again")
        assert [d["seq"] for d in watcher.docs("events")] == [1, 2, 3, 4] * 2
    finally:
        again.stop()
        watcher.close()
    # Another journal, with the same events at another moment, is another table.
    other = make_journal(tmp_path / "other.sqlite", 1)
    third = Publisher(from_options(broker.url, "bj-13"), other.path)
    assert third.origin not in ("", origin)
    third.stop()
    other.close()
    journal.close()
