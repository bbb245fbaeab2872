"""docs/floor.md's table config and "Securing the broker", run as written: the `[mqtt]`
example is parsed by the table's config loader, and Mosquitto runs the page's
broker config (TLS with a certificate made here, no anonymous clients, a password
file) and its ACL, with a table publishing under its own id through the real
publisher and a floor user reading every table."""

from __future__ import annotations

import re
import subprocess
import threading
import tomllib
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from journal import Journal
from tablectl.config import parse_config
from tablectl.mqtt.connect import make_client
from tablectl.mqtt.publisher import Publisher
from tablectl.mqtt.settings import Broker, MqttConfig
from tests.tablectl.helpers import Signal
from tests.tablectl.mqtt.broker import Mosquitto
from tests.tablectl.mqtt.helpers import make_journal

DOCS = Path(__file__).resolve().parents[3] / "docs" / "floor.md"
PASSWORDS = {"bj-07": "seven", "bj-08": "eight", "floor": "floor-secret"}


def _block(after: str, fence: str = "```") -> str:
    """The first fenced block after the line `after` of docs/floor.md."""
    text = DOCS.read_text(encoding="utf-8")
    found = re.search(re.escape(after) + r".*?" + re.escape(fence) + r"[a-z]*\n(.*?)```",
                      text, re.S)
    assert found is not None, f"no block after {after!r} in docs/floor.md"
    return found.group(1)


def test_the_tables_mqtt_section_reads_as_the_page_says(tmp_path: Path) -> None:
    section = tomllib.loads(_block("## The table's side"))["mqtt"]
    password_file = tmp_path / "mqtt-password"
    password_file.write_text("from-the-file\n", encoding="utf-8")
    assert section["password_file"] == "/etc/tablectl/mqtt-password"
    section["password_file"] = str(password_file)
    config = parse_config({"shoe": {"port": "/dev/ttyACM0"}, "mqtt": section})
    assert config.mqtt is not None
    broker = config.mqtt.broker
    # mqtts:// is TLS, on 8883 as written; the password is the file's, its line end cut.
    assert (broker.host, broker.port, broker.tls) == ("broker.floor.casino", 8883, True)
    assert (config.mqtt.table, broker.username, broker.password) == (
        "bj-07", "bj-07", "from-the-file")
    assert broker.ca_file == "/etc/tablectl/floor-ca.pem"


def _certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1: it is its own CA."""
    cert, key = folder / "broker.crt", folder / "broker.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


@pytest.fixture
def secured_broker(tmp_path: Path) -> Any:
    folder = tmp_path / "broker"
    folder.mkdir()
    cert, key = _certificate(folder)
    passwords, acl = folder / "passwd", folder / "acl"
    for number, (user, password) in enumerate(PASSWORDS.items()):
        subprocess.run(["mosquitto_passwd", "-b", *(["-c"] if number == 0 else []),
                        str(passwords), user, password], check=True, capture_output=True)
    acl.write_text(_block("`/etc/mosquitto/acl`:"), encoding="utf-8")
    config = _block("`/etc/mosquitto/conf.d/floor.conf`:")
    assert config.startswith("listener 8883\n")
    config = config.removeprefix("listener 8883\n")  # the test's listener: a free port
    for name, path in (("/etc/mosquitto/certs/broker.crt", cert),
                       ("/etc/mosquitto/certs/broker.key", key),
                       ("/etc/mosquitto/passwd", passwords), ("/etc/mosquitto/acl", acl)):
        assert name in config
        config = config.replace(name, str(path))
    broker = Mosquitto(folder, extra=config)
    broker.start()
    try:
        yield broker, cert
    finally:
        broker.stop()


class FloorReader:
    """The floor's user, subscribed as the ACL lets it read; keeps the topics received."""

    def __init__(self, broker: Broker) -> None:
        self.topics: list[str] = []
        self.arrived = Signal()
        self._subscribed = threading.Event()
        self.client = make_client(broker, "floor-reader")
        self.client.on_message = self._on_message
        self.client.on_subscribe = lambda *_: self._subscribed.set()
        self.client.connect(broker.host, broker.port)
        self.client.subscribe([(f"tablectl/v1/+/{kind}", 1)
                               for kind in ("events", "rounds", "state", "status")])
        self.client.loop_start()
        assert self._subscribed.wait(10), "the floor reader's subscription"

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        self.topics.append(message.topic)
        self.arrived.notify()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _broker(port: int, user: str, cert: Path) -> Broker:
    return Broker("127.0.0.1", port, True, user, PASSWORDS[user], str(cert))


def test_a_table_publishes_under_its_own_id_only(secured_broker: Any, tmp_path: Path) -> None:
    mosquitto, cert = secured_broker
    floor = FloorReader(_broker(mosquitto.port, "floor", cert))
    journal: Journal = make_journal(tmp_path / "bj-07.sqlite", 2)  # 8 events, 2 rounds
    publisher = Publisher(MqttConfig(_broker(mosquitto.port, "bj-07", cert), "bj-07"),
                          journal.path)
    publisher.start()
    try:
        floor.arrived.wait_until(
            lambda: floor.topics.count("tablectl/v1/bj-07/events") == 8
            and floor.topics.count("tablectl/v1/bj-07/rounds") == 2
            and "tablectl/v1/bj-07/status" in floor.topics
            and "tablectl/v1/bj-07/state" in floor.topics,
            "bj-07's events, rounds, state and status through TLS and the ACL", 60)
    finally:
        publisher.stop()
        journal.close()
    assert publisher.error is None

    # bj-07's password speaks for bj-07 only: as bj-08 it is refused (MQTT 5 tells
    # the sender), and the floor never sees it. The message after it, on bj-07's own
    # topic, arrives; what was refused would have arrived before it.
    stolen = make_client(_broker(mosquitto.port, "bj-07", cert), "bj-07-as-bj-08")
    acknowledged: dict[int, int] = {}
    answered = Signal()

    def on_publish(client: mqtt.Client, userdata: Any, mid: int, reason: Any,
                   properties: Any) -> None:
        acknowledged[mid] = int(getattr(reason, "value", reason))
        answered.notify()

    stolen.on_publish = on_publish
    stolen.connect("127.0.0.1", mosquitto.port)
    stolen.loop_start()
    try:
        forged = stolen.publish("tablectl/v1/bj-08/events", b"{}", qos=1).mid
        own = stolen.publish("tablectl/v1/bj-07/events", b"{}", qos=1).mid
        answered.wait_until(lambda: forged in acknowledged and own in acknowledged,
                            "the broker's answers to both publishes", 30)
        floor.arrived.wait_until(
            lambda: floor.topics.count("tablectl/v1/bj-07/events") == 9,
            "the message on bj-07's own topic", 30)
    finally:
        stolen.disconnect()
        stolen.loop_stop()
        floor.close()
    assert acknowledged[forged] == 0x87  # "Not authorized" (MQTT 5.0, 3.4.2.1)
    assert acknowledged[own] == 0
    assert not any("bj-08" in topic for topic in floor.topics)
