"""The table's publisher: one thread draining the journal's outbox to the broker.

The table never waits for it. The journal is the outbox (`journal.outbox`, `outbox.py`): the
publisher reads events and rounds after the broker's last acknowledgement, sends
them with QoS 1 (at most `window` unacknowledged), and moves the persisted mark on
as the broker acknowledges each (PUBACK), in order. While the broker is down paho
keeps what was sent and not acknowledged and sends it again on reconnection; what
was not sent yet waits in the journal. A floor that misses something asks on
`tablectl/v1/<table>/resend` and the publisher sends that range again.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

from journal.outbox import OutboxError, OutboxReader
from tablectl.mqtt import topics
from tablectl.mqtt.connect import BrokerError, make_client, refused_reason
from tablectl.mqtt.in_flight import InFlight
from tablectl.mqtt.outbox import Mark, MarkFile, mark_path
from tablectl.mqtt.resend import parse_request
from tablectl.mqtt.seq_key import seq_property
from tablectl.mqtt.settings import MqttConfig
from tablectl.watchers import Watchers

log = logging.getLogger(__name__)

StateSource = Callable[[], dict[str, Any]]
STATE_EVERY_S = 0.25  # the retained state at most this often while it changes
HEARTBEAT_S = 5.0  # and at least this often
CHUNK = 500  # events read from the journal at a time
ID_CHECK_S = 0.3  # how long a new connection waits for a retained status of the same id


class PublisherError(Exception):
    """The publisher cannot start; the message says why."""


class Publisher:
    """Publishes one journal as table `config.table`. `start()`, `wake()` after each
    commit (or let it poll every `poll_s`), `stop()`."""

    def __init__(self, config: MqttConfig, journal: str | Path, *,
                 state: StateSource | None = None, window: int = 2000,
                 poll_s: float = 0.2) -> None:
        self.config = config
        self.table = config.table
        self.broker = config.broker
        self.window = window
        self.poll_s = poll_s
        self._state_source = state
        try:
            self.outbox = OutboxReader(journal)
        except OutboxError as error:
            raise PublisherError(str(error)) from error
        self._mark_file = MarkFile(mark_path(journal))
        # The origin ("" until the journal has its first event: nothing to publish).
        self.mark: Mark = self._mark_file.load() or Mark("")
        self.client: mqtt.Client | None = None
        try:
            self._take_origin()
            if self.broker.tls:  # the TLS files are read now: a bad one stops the start
                make_client(self.broker, "tablectl-check")
        except BrokerError as error:
            self.outbox.close()
            raise PublisherError(str(error)) from error
        self.connected = threading.Event()
        self.error: str | None = None  # the newest problem with the broker, for the log
        # Told after each round of work (the mark may have moved) and when the broker
        # connects, refuses or goes away (`tablectl.watchers`).
        self.watchers = Watchers()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._resend: deque[tuple[str, int, int]] = deque()
        self._inflight = InFlight()
        self._cursor = {"e": self.mark.events, "r": self.mark.rounds}
        self._state_key: Any = None
        self._state_at = 0.0
        self._fresh = False
        self._down_logged = False
        # Publishing waits for the id check (inf: for the broker to grant the subscription).
        self._check_until: float | None = None
        self._subscribe_mid: int | None = None
        self._other: str | None = None  # the origin of another table online with this id
        self.sent = 0  # messages handed to paho (for the benchmark)

    # -- life -------------------------------------------------------------------------

    @property
    def origin(self) -> str:
        return self.mark.origin

    def _take_origin(self) -> bool:
        """The origin from the mark, or from the journal once it has an event."""
        if self.mark.origin:
            return True
        origin = self.outbox.origin()
        if origin is None:
            return False
        self.mark = Mark(origin)
        self._cursor = {"e": 0, "r": 0}
        self._save_mark(force=True)
        return True

    def _connect(self) -> None:
        client = make_client(self.broker, f"tablectl-{self.table}-{self.origin[:8]}")
        # The window is the one limit: paho sends each message at once and queues
        # none (with a limit of its own, paho holds back what is beyond it, and scans
        # every message it holds at each acknowledgement: with 2,000 in flight, half
        # the drain rate).
        client.max_inflight_messages_set(0)
        client.will_set(topics.topic(self.table, "status"), self._status("offline"),
                        qos=1, retain=True)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        client.on_subscribe = self._on_subscribe
        client.connect_async(self.broker.host, self.broker.port,
                             keepalive=self.broker.keepalive)
        client.loop_start()
        self.client = client

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="mqtt-publisher", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        # While the broker is away a commit has nothing to send: the thread sleeps on
        # (waking it at every commit would cost the table's own thread time), and the
        # reconnection wakes it.
        if self.client is None or self.connected.is_set() or self._check_until is not None:
            self._wake.set()

    def stop(self, linger_s: float = 1.0) -> None:
        """Stop: wait up to `linger_s` for what is in flight, say offline, save the mark."""
        if self._stopping.is_set():
            return
        self._wake.set()
        self.watchers.wait_until(lambda: not self._inflight or not self.connected.is_set(),
                                 linger_s)
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5.0)
        self._take_acks()
        client = self.client
        if client is not None:
            if self.connected.is_set():
                self._fresh = True
                self._publish_state()  # the state as the table stops, retained
                info = client.publish(topics.topic(self.table, "status"),
                                      self._status("offline"), qos=1, retain=True)
                try:
                    info.wait_for_publish(1.0)
                except (RuntimeError, ValueError):
                    pass
            client.disconnect()
            client.loop_stop()
        if self.mark.origin:
            self._save_mark(force=True)
        self.outbox.close()

    # -- paho's thread ----------------------------------------------------------------

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: Any,
                    properties: Any) -> None:
        refused = refused_reason(reason_code)
        if refused is not None:
            message = (f"{self.broker.address}: {refused}; check [mqtt] username, password "
                       "and the broker's ACL. The table goes on; its events wait in the "
                       "journal")
            if message != self.error:
                log.error("%s", message)
            self.error = message
            self.watchers()
            return
        if getattr(reason_code, "is_failure", False):
            return
        self.error = None
        self._down_logged = False
        # Is this table id online from another journal? The broker hands over the
        # retained status at once; publishing starts when none says so (`_cycle`).
        # The broker sends the retained status right after granting the subscription:
        # the check's time runs from then (a busy machine may take longer to get there).
        _, self._subscribe_mid = client.subscribe([(topics.topic(self.table, kind),
                                                    SubscribeOptions(qos=1, noLocal=True))
                                                   for kind in ("resend", "status")])
        self._check_until = math.inf
        self._wake.set()
        self.watchers()

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int,
                      reason_codes: list[Any], properties: Any) -> None:
        if mid == self._subscribe_mid and self._check_until is not None:
            self._check_until = time.monotonic() + ID_CHECK_S
            self._wake.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any,
                       reason_code: Any, properties: Any) -> None:
        self.connected.clear()
        self._check_until = None
        if not self._stopping.is_set() and not self._down_logged:
            self._down_logged = True
            log.warning("the broker %s is gone (%s); the table goes on and its events wait "
                        "in the journal", self.broker.address, reason_code)
        self.watchers()

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason_code: Any,
                    properties: Any) -> None:
        # Called with paho's own lock held: hand over and return.
        self._inflight.acknowledged(mid, not getattr(reason_code, "is_failure", False))
        self._wake.set()

    def _on_message(self, client: mqtt.Client, userdata: Any,
                    message: mqtt.MQTTMessage) -> None:
        if message.topic.endswith("/status"):
            try:
                doc = json.loads(message.payload)
                if (isinstance(doc, dict) and doc.get("status") == "online"
                        and doc.get("origin") != self.origin):
                    self._other = str(doc.get("origin"))
            except ValueError:
                pass
            self._wake.set()
            return
        try:
            self._resend.extend(parse_request(message.payload))
        except ValueError as error:
            log.warning("a resend request for table %s was ignored: %s", self.table, error)
            return
        self._wake.set()

    # -- the publisher's thread ---------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait(self.poll_s if self._check_until is None else 0.05)
            self._wake.clear()
            try:
                self._cycle()
            except Exception as error:  # the journal unreadable for a moment: try again
                log.warning("publishing table %s: %s", self.table, error)
                self._stopping.wait(1.0)
            self.watchers()

    def _go_online(self) -> None:
        """After the id check: publish, or say that another table has this id."""
        if (self._check_until is None or self.client is None
                or not self.client.is_connected()):
            return
        if self._other is None and time.monotonic() < self._check_until:
            return
        self._check_until = None
        if self._other is not None:
            message = (f"table id {self.table!r} is online on {self.broker.address} from "
                       f"another journal ({self._other[:8]}; this one is "
                       f"{self.origin[:8]}): nothing is published; give each table its "
                       "own --table id ([mqtt] table) and restart")
            if message != self.error:
                log.error("%s", message)
            self.error = message
            return
        log.info("publishing table %s to %s", self.table, self.broker.address)
        self.client.publish(topics.topic(self.table, "status"), self._status("online"),
                            qos=1, retain=True)
        self._fresh = True
        self.connected.set()

    def _cycle(self) -> None:
        if self.client is None:
            if not self._take_origin():
                return  # an empty journal: nothing to publish yet
            self._connect()
        self._take_acks()
        self._go_online()
        if self.connected.is_set():
            self._serve_resends()
            while (self._drain() and not self._stopping.is_set()
                   and self.connected.is_set()):
                self._take_acks()
            self._publish_state()
        self._save_mark()

    def _take_acks(self) -> None:
        for kind, number in self._inflight.take(self.mark):
            # The broker would not take it (its ACL): send again from there, later.
            message = (f"{self.broker.address} refused a message of table {self.table} "
                       "(not authorized?); check the broker's ACL for "
                       f"{topics.PREFIX}/{self.table}/#")
            if message != self.error:
                log.error("%s", message)
            self.error = message
            self._cursor[kind] = min(self._cursor[kind], number - 1)

    def _room(self) -> int:
        return self.window - len(self._inflight)

    def _drain(self) -> bool:
        """Send the next events and rounds; True when there may be more at once."""
        room = self._room()
        if room < min(CHUNK, self.window) and self._inflight:
            return False  # refill in chunks, not a message per acknowledgement
        table, origin = self.table, self.origin
        events = self.outbox.events_after(self._cursor["e"], min(room, CHUNK))
        for event in events:
            payload = topics.event_payload(table, origin, event.seq, event.source,
                                           event.source_ref, event.event, event.at,
                                           time.time())
            if not self._send("e", event.seq, topics.topic(table, "events"), payload,
                              seq_property(event.seq)):
                return False
            self._cursor["e"] = event.seq
        rounds = self.outbox.rounds_after(self._cursor["r"], max(self._room(), 0),
                                          upto_seq=self._cursor["e"])
        for record in rounds:
            payload = topics.round_payload(table, origin, record.round_no, record.start_seq,
                                           record.end_seq, record.status, record.flags,
                                           record.result, record.at, time.time())
            if not self._send("r", record.round_no, topics.topic(table, "rounds"), payload,
                              None):
                return False
            self._cursor["r"] = record.round_no
        return len(events) == min(room, CHUNK) and self._room() > 0

    def _send(self, kind: str, number: int, name: str, payload: bytes,
              properties: Properties | None, retain: bool = False) -> bool:
        """Hand one message to paho; False when paho did not take it (its message id
        is still in use after a wrap): it is sent again later, from the journal."""
        assert self.client is not None
        info = self.client.publish(name, payload, qos=1, retain=retain, properties=properties)
        if info.rc not in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_NO_CONN):
            log.debug("paho did not take message %s %d (%s)", kind, number, info.rc)
            return False
        self._inflight.add(info.mid, kind, number)
        self.sent += 1
        return True

    def _serve_resends(self) -> None:
        """Send again what the floor asked for, within the window: the rest of a range
        waits at the head of the queue for room."""
        now = time.time()
        while self._resend and self._room() > 0 and self.connected.is_set():
            kind, first, last = self._resend[0]
            room = self._room()
            # Only what was sent once; the rest comes in order anyway.
            upto = min(last, self._cursor[kind])
            sent = first - 1
            if kind == "e":
                for event in self.outbox.events_after(first - 1, room, upto=upto):
                    payload = topics.event_payload(
                        self.table, self.origin, event.seq, event.source, event.source_ref,
                        event.event, event.at, now)
                    if not self._send("x", event.seq, topics.topic(self.table, "events"),
                                      payload, seq_property(event.seq)):
                        break
                    sent = event.seq
            else:
                for record in self.outbox.rounds_after(first - 1, room,
                                                       upto_seq=self._cursor["e"],
                                                       upto_round=upto):
                    payload = topics.round_payload(
                        self.table, self.origin, record.round_no, record.start_seq,
                        record.end_seq, record.status, record.flags, record.result,
                        record.at, now)
                    if not self._send("x", record.round_no, topics.topic(self.table, "rounds"),
                                      payload, None):
                        break
                    sent = record.round_no
            if sent >= upto:
                self._resend.popleft()  # done (or nothing of it was sent before)
            else:
                self._resend[0] = (kind, sent + 1, last)
                return

    def _publish_state(self) -> None:
        extra = self._state_source() if self._state_source is not None else {}
        key = (self.mark.events, self.mark.rounds, json.dumps(extra, sort_keys=True))
        now = time.monotonic()
        due = (self._fresh or now - self._state_at >= HEARTBEAT_S
               or (key != self._state_key and now - self._state_at >= STATE_EVERY_S))
        if not due:
            return
        doc = {"v": topics.VERSION, "table": self.table, "origin": self.origin,
               "profile": self.outbox.profile, "seq": self.mark.events,
               "round": self.mark.rounds, "at": time.time(), **extra}
        self._send("s", 0, topics.topic(self.table, "state"), topics.encode(doc), None,
                   retain=True)
        self._fresh = False
        self._state_key = key
        self._state_at = now

    def _status(self, status: str) -> bytes:
        return topics.encode({"v": topics.VERSION, "table": self.table, "origin": self.origin,
                              "status": status, "at": time.time()})

    def _save_mark(self, force: bool = False) -> None:
        self._mark_file.save(self.mark, force=force)
