"""The floor: one subscriber to every table, storing what it receives once.

paho's thread hands each message to a queue; the store thread decodes and stores
them in batches (`floor_store.FloorStore`), keeps each table's status and state for
the view, and finds what is missing: a gap in the sequence numbers, or fewer than
the table's retained state says it has published. It asks that table on
`tablectl/v1/<table>/resend` for the missing range, again after `resend_after_s`
until it has it.

With a share group (`share`), several floor processes on one store split the events
and rounds (an MQTT 5 shared subscription: the broker gives each message to one of
them). Each then sees only its part, so what it counts as stored is brought up to
date from the store (what the others stored) before it calls anything missing.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from tablectl.mqtt import topics
from tablectl.mqtt.connect import (
    BrokerError,
    first_connect,
    make_client,
    refused_reason,
    session_properties,
)
from tablectl.mqtt.floor_store import FloorStore
from tablectl.mqtt.settings import Broker
from tablectl.mqtt.topics import BadMessage, EventMessage, RoundMessage
from tablectl.watchers import Watchers

log = logging.getLogger(__name__)

SESSION_EXPIRY_S = 3600  # the broker keeps the floor's messages this long while it is away
REFRESH_S = 0.5  # a shared floor reads what the group stored this often
BATCH = 2000
MAX_RANGES = 4


class Numbers:
    """Which numbers (event seqs, round numbers) of one table are stored."""

    def __init__(self, contiguous: int = 0, above: list[int] | None = None) -> None:
        self.contiguous = contiguous
        self.above: set[int] = set(above or ())
        self.known = max([contiguous, *self.above])  # the highest the table has sent
        self._settle()

    def add_many(self, numbers: list[int]) -> None:
        for number in numbers:
            if number > self.contiguous:
                self.above.add(number)
                self.known = max(self.known, number)
        self._settle()

    def add(self, number: int) -> None:
        if number > self.contiguous:
            self.above.add(number)
            self.known = max(self.known, number)
            self._settle()

    def _settle(self) -> None:
        while self.contiguous + 1 in self.above:
            self.contiguous += 1
            self.above.discard(self.contiguous)

    def missing(self, limit: int = MAX_RANGES, span: int = 5000) -> list[tuple[int, int]]:
        ranges: list[tuple[int, int]] = []
        start = self.contiguous + 1
        for number in sorted(self.above) + [self.known + 1]:
            if number > start:
                ranges.append((start, min(number - 1, start + span - 1)))
                if len(ranges) >= limit:
                    break
            start = max(start, number + 1)
        return ranges


@dataclass
class TableInfo:
    table: str
    status: str = "unknown"
    state: dict[str, Any] = field(default_factory=dict)
    last_event_at: float | None = None  # when the newest event reached the floor
    events: Numbers = field(default_factory=Numbers)
    rounds: Numbers = field(default_factory=Numbers)
    asked_at: float = 0.0
    problem: str | None = None  # a collision or refused message, for the view
    # (events, rounds) stored without a gap, and since when: what is missing is asked
    # for only once that stood still (a flood still on its way is not missing).
    progress: tuple[int, int] = (0, 0)
    progress_at: float = 0.0


class Floor:
    """`Floor(broker, store)`, `start()` (raises BrokerError), `stop()`."""

    def __init__(self, broker: Broker, store: FloorStore, *, client_id: str = "tablectl-floor",
                 resend_after_s: float = 1.0, measure: bool = False,
                 share: str | None = None) -> None:
        self.broker = broker
        self.share = share
        self.store = store
        self.resend_after_s = resend_after_s
        self.tables: dict[str, TableInfo] = {}
        self.bad_messages = 0
        self.refused = 0
        self.duplicates = 0
        self.error: str | None = None
        self.connected = threading.Event()
        # Told after each batch of messages stored (the counts and tables may have
        # changed) and when the broker connects, refuses or goes away
        # (`tablectl.watchers`).
        self.watchers = Watchers()
        self._broker_answered = threading.Event()
        # Publish-to-floor latency (from `sent` to the store's commit), and the part of
        # it up to paho's handing the message over (the benchmark's breakdown).
        self.latencies: list[float] | None = [] if measure else None
        self.receive_latencies: list[float] = []
        self.stored_events = 0
        self._lock = threading.Lock()  # the tables' infos, read by the view
        self._queue: queue.Queue[tuple[str, str, bytes]] = queue.Queue()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._said: set[str] = set()
        self._refused_code: str | None = None
        self._subscribe_mid: int | None = None
        for table in store.tables():
            self._info(table)
        self.client = make_client(broker, client_id)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message

    def _info(self, table: str) -> TableInfo:
        info = self.tables.get(table)
        if info is None:
            # Seen just now: what it misses is asked for once that stood still for
            # `resend_after_s`, as ever (its state can come before its first events).
            info = TableInfo(table, events=Numbers(*self.store.numbers(table, "events")),
                             rounds=Numbers(*self.store.numbers(table, "rounds")),
                             progress_at=time.monotonic())
            self.tables[table] = info
        return info

    # -- life -------------------------------------------------------------------------

    def start(self, timeout_s: float = 10.0) -> None:
        """Connect (a wrong address or refused credentials raise BrokerError) and run."""
        # A shared floor keeps no session: what the broker would keep for a member
        # that is away would wait there, not go to the others (the group asks again).
        first_connect(self.client, self.broker, clean_start=self.share is not None,
                      properties=session_properties(
                          0 if self.share is not None else SESSION_EXPIRY_S))
        self.client.loop_start()
        answered = self._broker_answered.wait(timeout_s)
        if self._refused_code is not None:
            self.client.loop_stop()
            raise BrokerError(f"{self.broker.address}: {self._refused_code}; check the "
                              "user name and password (--broker mqtt://USER:PASS@HOST) "
                              "and the broker's ACL")
        if not answered:
            self.client.loop_stop()
            raise BrokerError(f"{self.broker.address} did not answer the connection")
        self._thread = threading.Thread(target=self._run, name="floor-store", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(10.0)
        self.client.disconnect()
        self.client.loop_stop()

    # -- paho's thread ----------------------------------------------------------------

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: Any,
                    properties: Any) -> None:
        refused = refused_reason(reason_code)
        if refused is not None:
            self._refused_code = refused
            self.error = refused
            self._broker_answered.set()
            self.watchers()
            return
        if getattr(reason_code, "is_failure", False):
            return
        # After a broker restart the session is gone: subscribe every time. The floor
        # counts as connected once the broker has granted the subscriptions: a message
        # published before that would not reach it.
        _, self._subscribe_mid = client.subscribe(
            [(name, 1) for name in topics.floor_topics(self.share)])

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int,
                      reason_codes: list[Any], properties: Any) -> None:
        if mid != self._subscribe_mid:
            return
        refused = [str(code) for code in reason_codes if getattr(code, "is_failure", False)]
        if refused:
            self._refused_code = (f"the broker refused the floor's subscriptions "
                                  f"({', '.join(refused)})")
            self.error = self._refused_code
            self._broker_answered.set()
            self.watchers()
            return
        if self.error is not None:
            log.info("the broker %s is back", self.broker.address)
        self.error = None
        self.connected.set()
        self._broker_answered.set()
        self.watchers()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any,
                       reason_code: Any, properties: Any) -> None:
        self.connected.clear()
        if not self._stopping.is_set():
            self.error = f"the broker {self.broker.address} is gone ({reason_code}); retrying"
        self.watchers()

    def _on_message(self, client: mqtt.Client, userdata: Any,
                    message: mqtt.MQTTMessage) -> None:
        self._queue.put((message.topic, message.payload, time.time()))  # type: ignore[arg-type]

    # -- the store thread ---------------------------------------------------------------

    def _run(self) -> None:
        last_check = last_refresh = 0.0
        while not self._stopping.is_set():
            batch = self._take()
            if batch:
                try:
                    self._handle(batch)
                except Exception as error:  # the disk: keep going, the gaps are asked again
                    self._say(f"the floor's store {self.store.path} cannot store: {error}")
            now = time.monotonic()
            if self.share is not None and now - last_refresh >= REFRESH_S:
                last_refresh = now
                try:
                    self._refresh()
                except Exception as error:  # the store busy or away: read it next time
                    self._say(f"the floor's store {self.store.path} cannot be read: {error}")
            if now - last_check >= 0.1:
                last_check = now
                self._ask_for_missing(now)
            if batch or self.share is not None:
                self.watchers()

    def _take(self) -> list[tuple[str, bytes, float]]:
        try:
            first = self._queue.get(timeout=0.1)
        except queue.Empty:
            return []
        batch: list[Any] = [first]
        while len(batch) < BATCH:
            try:
                batch.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return batch

    def _handle(self, batch: list[tuple[str, bytes, float]]) -> None:
        messages: list[EventMessage | RoundMessage] = []
        sent: dict[tuple[str, int], tuple[float, float]] = {}
        for name, payload, received in batch:
            try:
                table, kind = topics.split_topic(name)
                if kind == "events":
                    event = topics.decode_event(table, payload)
                    messages.append(event)
                    if event.sent is not None:
                        sent[(table, event.seq)] = (event.sent, received)
                elif kind == "rounds":
                    messages.append(topics.decode_round(table, payload))
                elif kind in ("state", "status"):
                    self._note(table, kind, topics.decode(table, kind, payload), received)
            except BadMessage as error:
                self.bad_messages += 1
                self._say(f"a message on {name} was not stored: {error}")
        if not messages:
            return
        added = self.store.add(messages)
        stored_at = time.time()
        with self._lock:
            for table, seq in added.events:
                info = self._info(table)
                info.events.add(seq)
                info.last_event_at = stored_at
            for table, number in added.rounds:
                self._info(table).rounds.add(number)
        self.stored_events += len(added.events)
        self.duplicates += added.duplicates
        if self.latencies is not None:
            timed = [sent[key] for key in added.events if key in sent]
            self.latencies.extend(stored_at - at for at, _ in timed)
            self.receive_latencies.extend(received - at for at, received in timed)
        for table, problem in added.refused:
            self.refused += 1
            with self._lock:
                if table in self.tables:
                    self.tables[table].problem = problem
            self._say(problem)

    def _note(self, table: str, kind: str, doc: dict[str, Any], received: float) -> None:
        bound = self.store.origins.get(table)
        if bound is not None and bound != doc["origin"]:
            self._say(f"table id {table!r} is used by two tables (journal {bound[:8]} was "
                      f"first, journal {doc['origin'][:8]} now): its {kind} is not shown; "
                      "give each table its own --table id")
            with self._lock:
                if table in self.tables:
                    self.tables[table].problem = "another table uses this id"
            return
        with self._lock:
            info = self._info(table)
            if kind == "status":
                status = doc.get("status")
                info.status = status if status in ("online", "offline") else "unknown"
            else:
                info.state = doc
                for numbers, key in ((info.events, "seq"), (info.rounds, "round")):
                    value = doc.get(key)
                    if isinstance(value, int) and not isinstance(value, bool):
                        numbers.known = max(numbers.known, value)

    def _refresh(self) -> None:
        """What the other floor processes of the group stored: from the store."""
        with self._lock:
            behind = [(info.table, info.events.contiguous, info.rounds.contiguous)
                      for info in self.tables.values()
                      if info.events.known > info.events.contiguous
                      or info.rounds.known > info.rounds.contiguous]
        for table, events_after, rounds_after in behind:
            events = self.store.numbers_after(table, "events", events_after)
            rounds = self.store.numbers_after(table, "rounds", rounds_after)
            with self._lock:
                info = self.tables[table]
                info.events.add_many(events)
                info.rounds.add_many(rounds)

    def _ask_for_missing(self, now: float) -> None:
        if not self.connected.is_set():
            return
        with self._lock:
            wanted = []
            if self._queue.qsize() > BATCH:
                return  # behind: what looks missing may be waiting in the queue
            for info in self.tables.values():
                progress = (info.events.contiguous, info.rounds.contiguous)
                if progress != info.progress:
                    info.progress, info.progress_at = progress, now
                    continue
                if (now - info.progress_at < self.resend_after_s
                        or now - info.asked_at < self.resend_after_s):
                    continue
                events, rounds = info.events.missing(), info.rounds.missing()
                if events or rounds:
                    info.asked_at = now
                    wanted.append((info.table, events, rounds))
        for table, events, rounds in wanted:
            for key, ranges in (("events", events), ("rounds", rounds)):
                for first, last in ranges:
                    log.debug("asking table %s for %s %d-%d", table, key, first, last)
                    self.client.publish(topics.topic(table, "resend"), topics.encode(
                        {"v": topics.VERSION, key: [first, last]}), qos=1)

    def _say(self, message: str) -> None:
        """Log a problem once (the view shows the newest)."""
        if message not in self._said:
            self._said.add(message)
            log.warning("%s", message)

    # -- for the view ---------------------------------------------------------------------

    def snapshot(self) -> list[TableInfo]:
        with self._lock:
            return [TableInfo(i.table, i.status, dict(i.state), i.last_event_at,
                              _copy(i.events), _copy(i.rounds), i.asked_at, i.problem)
                    for i in sorted(self.tables.values(), key=lambda i: i.table)]


def _copy(numbers: Numbers) -> Numbers:
    copy = Numbers(numbers.contiguous, sorted(numbers.above))
    copy.known = numbers.known
    return copy


def open_floor(broker: Broker, store_path: str | Path, **options: Any) -> Floor:
    """The store opened and the floor connected and running; raises BrokerError or
    FloorStoreError."""
    store = FloorStore(store_path)
    try:
        floor = Floor(broker, store, **options)
        floor.start()
    except BaseException:
        store.close()
        raise
    return floor


__all__ = ["BrokerError", "Floor", "Numbers", "TableInfo", "open_floor"]
