"""Journals made for the floor's tests, and a plain subscriber watching the broker."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from journal import Journal
from tests.tablectl.helpers import Signal


def add_rounds(journal: Journal, rounds: int, *, first: int = 1, nets: list[int] | None = None
               ) -> None:
    """Append `rounds` rounds of four events each and record them: box 1 bets 10 and
    wins nets[i] (default +10, -10 alternately)."""
    for index in range(rounds):
        number = first + index
        net = nets[index] if nets is not None else (10 if number % 2 else -10)
        journal.append({"bet": {"box": 1, "amount": 10}}, "api", f"t:{number}")
        journal.append({"deal": {}}, "button")
        journal.append({"card": "7S"}, "shoe", f"1:{number}")
        journal.append({"card": "TD"}, "shoe", f"2:{number}")
        journal.record_round(number, {
            "round": number, "status": "settled", "flags": [], "net": {"box1/main": net},
            "settlement": [{"player": "box1", "spot": "main", "stake": 10}]})
        journal.commit()


def wait_progressing(condition: Callable[[], object], progress: Callable[[], object],
                     what: str, stall_s: float = 60.0, limit_s: float = 900.0,
                     woken_by: Signal | None = None, every_s: float = 0.05) -> None:
    """Wait until `condition` holds, for as long as `progress()` keeps changing: fail
    once it stood still for `stall_s` (stuck), or after `limit_s` in all. A loaded
    machine only makes the wait longer; a stall fails it as soon as it is one.

    `woken_by`: a signal that what is waited for notifies (a table process's output
    line by line, its end). Without one the state is a row count in another
    process's SQLite file (the floor processes' store), which nothing reports to
    this process: it is looked at again each time the clock says `every_s` went by
    (a condition variable that only its timeout wakes)."""
    clock = threading.Condition()
    started = moved = time.monotonic()
    last = progress()
    while not condition():
        now = time.monotonic()
        current = progress()
        if current != last:
            last, moved = current, now
        if now - moved > stall_s:
            pytest.fail(f"{what}: no progress for {stall_s:.0f} s (stuck at {last!r})")
        if now - started > limit_s:
            pytest.fail(f"{what}: not within {limit_s:.0f} s (at {last!r})")
        if woken_by is not None:
            # Woken by the next change; the timeout only brings the stall check round.
            woken_by.wait(condition, stall_s)
        else:
            with clock:
                clock.wait(every_s)


def make_journal(path: Path, rounds: int, **options: Any) -> Journal:
    journal = Journal(path, profile="casinos-austria")
    add_rounds(journal, rounds, **options)
    return journal


class Watcher:
    """Subscribes to everything under tablectl/v1 and keeps what arrives."""

    def __init__(self, port: int, topic: str = "tablectl/v1/#") -> None:
        self.messages: list[tuple[str, bytes, bool, Any]] = []
        self._lock = threading.Lock()
        self._subscribed = threading.Event()
        self.arrived = Signal()  # woken by each message paho hands over
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.client.on_message = self._on_message
        self.client.on_subscribe = lambda *a: self._subscribed.set()
        self.client.connect("127.0.0.1", port)
        self.client.subscribe(topic, qos=1)
        self.client.loop_start()
        if not self._subscribed.wait(15.0):
            pytest.fail("timed out waiting for the watcher's subscription")

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with self._lock:
            self.messages.append((message.topic, bytes(message.payload), bool(message.retain),
                                  message.properties))
        self.arrived.notify()

    def docs(self, kind: str) -> list[dict[str, Any]]:
        with self._lock:
            return [json.loads(p) for t, p, _, _ in self.messages if t.endswith("/" + kind)]

    def raw(self, kind: str) -> list[tuple[str, bytes, bool, Any]]:
        with self._lock:
            return [m for m in self.messages if m[0].endswith("/" + kind)]

    def wait(self, condition: Callable[[], object], what: str, timeout_s: float = 15.0) -> None:
        self.arrived.wait_until(condition, what, timeout_s)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def send(port: int, topic: str, payload: bytes, retain: bool = False) -> None:
    """Publish one message as some other program would, and wait for the broker's ack."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.connect("127.0.0.1", port)
    client.loop_start()
    client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(10)
    client.disconnect()
    client.loop_stop()
