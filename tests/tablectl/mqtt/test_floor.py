"""The floor against a real Mosquitto: each event stored once, what is missing asked
again, bad messages and a second table with the same id refused."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.reasoncodes import ReasonCode

from journal import Journal
from tablectl.mqtt.floor import Floor, Numbers, open_floor
from tablectl.mqtt.floor_store import FloorStore
from tablectl.mqtt.publisher import Publisher
from tablectl.mqtt.settings import from_options, parse_url
from tests.tablectl.helpers import wait_watched
from tests.tablectl.mqtt.broker import Mosquitto
from tests.tablectl.mqtt.helpers import Watcher, make_journal, send


def stored_events(store: Path, table: str) -> list[tuple[int, str, str | None, Any]]:
    db = sqlite3.connect(store)
    rows = db.execute("SELECT seq, source, source_ref, event FROM events WHERE table_id = ? "
                      "ORDER BY seq", (table,)).fetchall()
    db.close()
    return [(seq, src, ref, json.loads(text)) for seq, src, ref, text in rows]


def journal_events(journal: Journal) -> list[tuple[int, str, str | None, Any]]:
    return [(e.seq, e.source, e.source_ref, e.event) for e in journal.events()]


def test_numbers_find_gaps_and_the_missing_tail() -> None:
    numbers = Numbers()
    for n in (1, 2, 4, 7):
        numbers.add(n)
    numbers.known = 9  # the table says it has published nine
    assert numbers.contiguous == 2
    assert numbers.missing() == [(3, 3), (5, 6), (8, 9)]
    for n in (3, 5, 6, 8, 9):
        numbers.add(n)
    assert (numbers.contiguous, numbers.missing()) == (9, [])


def test_two_tables_stored_once_each_and_repeats_ignored(
        broker: Mosquitto, tmp_path: Path) -> None:
    one = make_journal(tmp_path / "one.sqlite", 4)
    two = make_journal(tmp_path / "two.sqlite", 2, nets=[50, -50])
    floor = open_floor(parse_url(broker.url), tmp_path / "floor.sqlite")
    publishers = [Publisher(from_options(broker.url, "bj-1"), one.path),
                  Publisher(from_options(broker.url, "bj-2"), two.path)]
    for publisher in publishers:
        publisher.start()
    try:
        wait_watched(floor.watchers, lambda: floor.stored_events == 24,
                     "both tables' 24 events", 20)
        wait_watched(floor.watchers, lambda: {i.table: i.rounds.contiguous
                                              for i in floor.snapshot()}
                     == {"bj-1": 4, "bj-2": 2}, "both tables' rounds")
        # The second publisher, restarted without its mark, sends everything again.
        publishers[1].stop()
        (tmp_path / "two.sqlite.mqtt.json").write_text(json.dumps(
            {"origin": publishers[1].origin, "events": 0, "rounds": 0}))
        publishers[1] = Publisher(from_options(broker.url, "bj-2"), two.path)
        publishers[1].start()
        wait_watched(floor.watchers, lambda: floor.duplicates >= 10,
                     "the repeats (8 events, 2 rounds)", 20)
        assert floor.stored_events == 24 and floor.refused == 0
    finally:
        for publisher in publishers:
            publisher.stop()
        floor.stop()
        floor.store.close()
    store = tmp_path / "floor.sqlite"
    assert stored_events(store, "bj-1") == journal_events(one)
    assert stored_events(store, "bj-2") == journal_events(two)
    db = sqlite3.connect(store)
    assert db.execute("SELECT table_id, round_no, house FROM rounds ORDER BY 1, 2").fetchall(
        ) == [("bj-1", 1, -10), ("bj-1", 2, 10), ("bj-1", 3, -10), ("bj-1", 4, 10),
              ("bj-2", 1, -50), ("bj-2", 2, 50)]
    db.close()
    one.close()
    two.close()


def test_a_floor_that_was_away_asks_for_what_it_missed(
        broker: Mosquitto, tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "j.sqlite", 5)
    publisher = Publisher(from_options(broker.url, "bj-3"), journal.path)
    publisher.start()
    try:
        # Published before any floor subscribed: only the retained state says so.
        wait_watched(publisher.watchers,
                     lambda: publisher.mark.events == 20 and publisher.mark.rounds == 5,
                     "the broker's acknowledgements")
        publisher._fresh = True  # the retained state now says 20 events, 5 rounds
        publisher.wake()
        floor = open_floor(parse_url(broker.url), tmp_path / "floor.sqlite",
                           resend_after_s=0.2)
        try:
            wait_watched(floor.watchers, lambda: floor.stored_events == 20,
                         "the 20 events, asked again", 20)
            wait_watched(floor.watchers, lambda: floor.snapshot()[0].rounds.contiguous == 5,
                         "the five rounds")
        finally:
            floor.stop()
            floor.store.close()
    finally:
        publisher.stop()
    assert stored_events(tmp_path / "floor.sqlite", "bj-3") == journal_events(journal)
    journal.close()


def _event(table: str, seq: int, origin: str = "a" * 32, **extra: Any) -> bytes:
    doc = {"v": 1, "table": table, "origin": origin, "seq": seq, "source": "shoe",
           "source_ref": None, "event": {"card": "7S"}, "at": 1.0, "sent": 1.0, **extra}
    return json.dumps(doc).encode()


def test_a_gap_is_asked_for_on_the_tables_resend_topic(
        broker: Mosquitto, tmp_path: Path) -> None:
    watcher = Watcher(broker.port, "tablectl/v1/bj-4/resend")
    floor = open_floor(parse_url(broker.url), tmp_path / "floor.sqlite", resend_after_s=0.2)
    try:
        for seq in (1, 2, 5):
            send(broker.port, "tablectl/v1/bj-4/events", _event("bj-4", seq))
        watcher.wait(lambda: watcher.docs("resend"), "a resend request")
        assert watcher.docs("resend")[0] == {"v": 1, "events": [3, 4]}
    finally:
        floor.stop()
        floor.store.close()
        watcher.close()


def test_bad_messages_and_a_second_table_with_the_same_id_store_nothing(
        broker: Mosquitto, tmp_path: Path) -> None:
    floor = open_floor(parse_url(broker.url), tmp_path / "floor.sqlite")
    try:
        send(broker.port, "tablectl/v1/bj-5/events", _event("bj-5", 1))
        wait_watched(floor.watchers, lambda: floor.stored_events == 1, "the first table's event")
        bad = [
            ("tablectl/v1/bj-5/events", b"not json at all"),
            ("tablectl/v1/bj-5/events", b"[1, 2]"),
            ("tablectl/v1/bj-5/events", _event("bj-5", 2, v=2)),
            ("tablectl/v1/bj-5/events", _event("bj-6", 2)),  # another table's payload
            ("tablectl/v1/bj-5/events", _event("bj-5", 0)),
            ("tablectl/v1/bj-5/events", _event("bj-5", 2, event="7S")),
            ("tablectl/v1/bj-5/rounds", json.dumps({"v": 1, "table": "bj-5", "origin": "a",
                                                     "round": 1}).encode()),
            ("tablectl/v1/bj-5/state", b"\xff\xfe"),
        ]
        for name, payload in bad:
            send(broker.port, name, payload)
        wait_watched(floor.watchers, lambda: floor.bad_messages == len(bad),
                     "every bad message refused")
        # Another journal publishing as bj-5: refused, the first one's event kept.
        send(broker.port, "tablectl/v1/bj-5/events",
             _event("bj-5", 1, origin="b" * 32, event={"card": "AS"}))
        send(broker.port, "tablectl/v1/bj-5/events", _event("bj-5", 2, origin="b" * 32))
        wait_watched(floor.watchers, lambda: floor.refused == 2,
                     "the other table's events refused")
        assert "two tables" in (floor.snapshot()[0].problem or "")
        # The same seq with another event from the same journal: refused, not overwritten.
        send(broker.port, "tablectl/v1/bj-5/events", _event("bj-5", 1, event={"card": "KD"}))
        wait_watched(floor.watchers, lambda: floor.refused == 3,
                     "the differing repeat refused")
        assert floor.stored_events == 1
    finally:
        floor.stop()
        floor.store.close()
    assert stored_events(tmp_path / "floor.sqlite", "bj-5") == [(1, "shoe", None,
                                                                 {"card": "7S"})]


def test_floor_store_refuses_a_file_that_is_not_one(tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "j.sqlite", 1)
    journal.close()
    before = (tmp_path / "j.sqlite").read_bytes()
    for read_only in (False, True):
        try:
            FloorStore(tmp_path / "j.sqlite", read_only=read_only)
        except Exception as error:
            assert "not a floor store" in str(error)
        else:
            raise AssertionError("a journal was opened as the floor's store")
    assert (tmp_path / "j.sqlite").read_bytes() == before


def test_missing_events_are_asked_for_only_once_the_flow_stands_still(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tablectl.mqtt.floor import Floor, TableInfo

    store = FloorStore(tmp_path / "floor.sqlite")
    floor = Floor(parse_url("mqtt://127.0.0.1:1"), store, resend_after_s=1.0)
    asked: list[tuple[str, Any]] = []

    def publish(topic: str, payload: bytes, qos: int = 0) -> None:
        asked.append((topic, json.loads(payload)))

    monkeypatch.setattr(floor.client, "publish", publish)
    floor.connected.set()
    info = TableInfo("bj-8", events=Numbers(10))
    info.events.known = 100  # the table's state: 100 published
    floor.tables["bj-8"] = info
    floor._ask_for_missing(0.0)  # first seen
    floor._ask_for_missing(0.5)
    info.events.add(11)  # still arriving
    floor._ask_for_missing(1.2)
    floor._ask_for_missing(2.0)
    assert asked == []
    floor._ask_for_missing(2.3)  # no progress for a second: asked
    assert asked == [("tablectl/v1/bj-8/resend", {"v": 1, "events": [12, 100]})]
    floor._ask_for_missing(2.8)  # not again at once
    assert len(asked) == 1
    store.close()


def test_a_table_first_seen_by_its_state_is_not_asked_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its retained state (20 published) can come before its first events: the floor
    waits, as for any table, for the flow to stand still before asking."""
    import time

    from tablectl.mqtt.floor import Floor

    store = FloorStore(tmp_path / "floor.sqlite")
    floor = Floor(parse_url("mqtt://127.0.0.1:1"), store, resend_after_s=1.0)
    asked: list[tuple[str, Any]] = []
    monkeypatch.setattr(floor.client, "publish", lambda topic, payload, qos=0: asked.append(
        (topic, json.loads(payload))))
    floor.connected.set()
    seen = time.monotonic()
    floor._info("bj-9").events.known = 20
    floor._ask_for_missing(seen + 0.5)
    assert asked == []
    floor._ask_for_missing(seen + 1.5)
    assert asked == [("tablectl/v1/bj-9/resend", {"v": 1, "events": [1, 20]})]
    store.close()


def test_the_floor_counts_as_connected_once_its_subscriptions_are_granted(
        tmp_path: Path) -> None:
    # Mosquitto grants every subscription and filters at delivery, so a refusal (as
    # other brokers send for an ACL, MQTT 5.0 3.9.3) is handed over as paho would.
    floor = Floor(parse_url("mqtt://127.0.0.1:1"), FloorStore(tmp_path / "floor.sqlite"))
    try:
        floor._subscribe_mid = 7
        floor._on_subscribe(floor.client, None, 6,
                            [ReasonCode(PacketTypes.SUBACK, "Granted QoS 1")], None)
        assert not floor.connected.is_set()  # another subscription's answer
        floor._on_subscribe(floor.client, None, 7,
                            [ReasonCode(PacketTypes.SUBACK, "Granted QoS 1"),
                             ReasonCode(PacketTypes.SUBACK, "Not authorized")], None)
        assert not floor.connected.is_set()
        assert "refused the floor's subscriptions (Not authorized)" in (floor.error or "")
        floor._on_subscribe(floor.client, None, 7,
                            [ReasonCode(PacketTypes.SUBACK, "Granted QoS 1")] * 4, None)
        assert floor.connected.is_set() and floor.error is None
    finally:
        floor.store.close()
