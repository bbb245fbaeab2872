"""`tablectl floor`, `tablectl floor report` and the broker settings: clear messages
for every bad input, and the report's totals."""

from __future__ import annotations

import datetime as dt
import json
import logging
import subprocess
import urllib.request
from pathlib import Path

import pytest

from tablectl.cli import main
from tablectl.config import ConfigError, parse_config
from tablectl.mqtt.floor_store import FloorStore
from tablectl.mqtt.publisher import Publisher
from tablectl.mqtt.settings import MqttSettingsError, check_table_id, from_options, parse_url
from tablectl.mqtt.topics import EventMessage, RoundMessage
from tests.tablectl.helpers import OutputLines, wait_watched
from tests.tablectl.mqtt.broker import Mosquitto, free_port
from tests.tablectl.mqtt.helpers import Watcher, make_journal


def test_broker_urls() -> None:
    broker = parse_url("mqtt://floor:s%40cret@broker.casino:1884")
    assert (broker.host, broker.port, broker.tls, broker.username, broker.password) == (
        "broker.casino", 1884, False, "floor", "s@cret")
    assert parse_url("mqtts://broker").port == 8883 and parse_url("mqtts://broker").tls
    assert parse_url("mqtt://10.0.0.5").port == 1883
    for bad, says in [("broker:1883", "not a broker URL"), ("http://broker", "unknown scheme"),
                      ("mqtt://broker:99999", "port"), ("mqtt://:1883", "no host"),
                      ("mqtt://broker/topic", "no path")]:
        with pytest.raises(MqttSettingsError, match=says):
            parse_url(bad)
    assert check_table_id("bj-07") == "bj-07"
    for bad in ("", "a/b", "a+b", "#", "-x", "x" * 65):
        with pytest.raises(MqttSettingsError, match="table id"):
            check_table_id(bad)


def test_config_mqtt_section(tmp_path: Path) -> None:
    base = {"shoe": {"port": "/dev/ttyACM0"}}
    secret = tmp_path / "secret"
    secret.write_text("pw\n")
    config = parse_config({**base, "mqtt": {"url": "mqtt://b:1883", "table": "bj-1",
                                            "username": "bj-1",
                                            "password_file": str(secret),
                                            "floor_url": "http://floor:8770"}})
    assert config.mqtt is not None
    assert config.mqtt.floor_url == "http://floor:8770"
    assert (config.mqtt.table, config.mqtt.broker.username, config.mqtt.broker.password) == (
        "bj-1", "bj-1", "pw")
    assert parse_config(base).mqtt is None  # off by default
    with pytest.raises(ConfigError) as error:
        parse_config({**base, "mqtt": {"url": "tcp://b", "table": "a/b", "colour": 1,
                                       "keepalive": 1, "cert_file": "c.pem",
                                       "floor_url": "mqtt://floor:1883"}})
    text = "\n".join(error.value.problems)
    for says in ("unknown scheme", "table id", "unknown key 'colour'", "keepalive",
                 "cert_file and key_file", "floor URL 'mqtt://floor:1883': give the floor's"):
        assert says in text


def test_run_options_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--sim", "--mqtt", "mqtt://127.0.0.1:1883"]) == 2
    assert "--mqtt URL and --table ID go together" in capsys.readouterr().err
    assert main(["run", "--sim", "--mqtt", "127.0.0.1", "--table", "bj-1"]) == 2
    assert "not a broker URL" in capsys.readouterr().err
    assert main(["run", "--sim", "--mqtt", "mqtt://h:1", "--table", "bj/1"]) == 2
    assert "table id" in capsys.readouterr().err
    assert main(["run", "--sim", "--floor-url", "http://floor:8770"]) == 2
    assert "--floor-url needs them" in capsys.readouterr().err
    assert main(["run", "--sim", "--mqtt", "mqtt://h:1", "--table", "bj-1",
                 "--floor-url", "floor:8770"]) == 2
    assert "floor URL 'floor:8770'" in capsys.readouterr().err


def test_floor_says_what_is_wrong_with_the_broker(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "floor.sqlite"
    assert main(["floor", "--broker", "ftp://host", "--store", str(store)]) == 2
    assert "unknown scheme" in capsys.readouterr().err
    assert main(["floor", "--broker", f"mqtt://127.0.0.1:{free_port()}",
                 "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert "cannot reach the broker" in err and "Traceback" not in err
    assert main(["floor", "--broker", "mqtt://no-such-host.invalid:1883",
                 "--store", str(store)]) == 2
    assert "is not known" in capsys.readouterr().err
    assert main(["floor", "--store", str(store)]) == 2
    assert "--broker URL is needed" in capsys.readouterr().err


@pytest.fixture
def locked_broker(tmp_path: Path) -> Mosquitto:
    folder = tmp_path / "locked"
    folder.mkdir()
    passwords = folder / "passwords"
    subprocess.run(["mosquitto_passwd", "-b", "-c", str(passwords), "bj-1", "right"],
                   check=True, capture_output=True)
    return Mosquitto(folder, extra=f"allow_anonymous false\npassword_file {passwords}\n")


def test_refused_credentials_are_said_and_nothing_is_published(
        locked_broker: Mosquitto, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    locked_broker.start()
    try:
        wrong = f"mqtt://bj-1:wrong@127.0.0.1:{locked_broker.port}"
        assert main(["floor", "--broker", wrong, "--store", str(tmp_path / "f.sqlite")]) == 2
        err = capsys.readouterr().err
        assert "refused the user name or password" in err and "Traceback" not in err
        journal = make_journal(tmp_path / "j.sqlite", 2)
        caplog.set_level(logging.ERROR, "tablectl.mqtt.publisher")
        publisher = Publisher(from_options(wrong, "bj-1"), journal.path)
        publisher.start()
        try:
            wait_watched(publisher.watchers, lambda: publisher.error is not None, "the refusal")
            assert "refused the user name or password" in caplog.text
            assert publisher.mark.events == 0 and not publisher.connected.is_set()
        finally:
            publisher.stop()
        # With the right password everything goes through.
        right = Publisher(from_options(
            f"mqtt://bj-1:right@127.0.0.1:{locked_broker.port}", "bj-1"), journal.path)
        right.start()
        try:
            wait_watched(right.watchers, lambda: right.mark.events == 8,
                         "the events, with the right password")
        finally:
            right.stop()
        journal.close()
    finally:
        locked_broker.stop()


def _day(hour: int, minute: int = 0) -> float:
    return dt.datetime(2026, 11, 25, hour, minute).timestamp()


def _round(table: str, number: int, house: int, at: float, status: str = "settled"
           ) -> RoundMessage:
    return RoundMessage(table, "o" * 32, number, number, number, status, (),
                        {"box1/main": -house}, house, 0 if status == "void" else 100, at)


def _event(table: str, seq: int, at: float) -> EventMessage:
    return EventMessage(table, "o" * 32, seq, "shoe", None, {"card": "7S"}, at, at)


def test_report_per_table_and_shift(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = FloorStore(tmp_path / "floor.sqlite")
    store.add([_event("bj-1", 1, _day(7)), _event("bj-1", 2, _day(13, 59)),
               _event("bj-1", 3, _day(15)), _event("bj-2", 1, _day(21, 30)),
               _round("bj-1", 1, 100, _day(7, 1)), _round("bj-1", 2, -30, _day(13, 59)),
               _round("bj-1", 3, 50, _day(15)), _round("bj-2", 1, 0, _day(21, 30), "void"),
               _round("bj-2", 2, 70, _day(22, 30))])
    store.close()
    path = str(tmp_path / "floor.sqlite")
    assert main(["floor", "report", "--store", path, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    one, two = doc["tables"]["bj-1"], doc["tables"]["bj-2"]
    assert (one["rounds"], one["events"], one["net"], one["staked"]) == (3, 3, 120, 300)
    assert (two["rounds"], two["void"], two["events"], two["net"]) == (2, 1, 1, 70)
    assert {k: (v["rounds"], v["net"]) for k, v in one["shifts"].items()} == {
        "2026-11-25 06:00": (2, 70), "2026-11-25 14:00": (1, 50)}
    assert {k: (v["rounds"], v["net"]) for k, v in two["shifts"].items()} == {
        "2026-11-25 14:00": (1, 0), "2026-11-25 22:00": (1, 70)}
    assert doc["shifts"]["2026-11-25 14:00"]["net"] == 50
    # One shift only, and in words.
    assert main(["floor", "report", "--store", path, "--from", "2026-11-25T14:00",
                 "--to", "2026-11-25T22:00"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines()[2:]]
    assert ["bj-1", "all", "1", "0", "1", "100", "+50"] in rows
    assert "2026-11-25 06:00" not in out
    # Other shifts: the day in two.
    assert main(["floor", "report", "--store", path, "--json", "--shifts", "08:00,20:00"]) == 0
    shifts = json.loads(capsys.readouterr().out)["tables"]["bj-1"]["shifts"]
    assert {k: v["net"] for k, v in shifts.items()} == {"2026-11-24 20:00": 100,
                                                        "2026-11-25 08:00": 20}


def test_report_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["floor", "report", "--store", str(tmp_path / "none.sqlite")]) == 2
    assert "no floor store there" in capsys.readouterr().err
    journal = make_journal(tmp_path / "j.sqlite", 1)
    journal.close()
    assert main(["floor", "report", "--store", str(tmp_path / "j.sqlite")]) == 2
    assert "not a floor store" in capsys.readouterr().err
    FloorStore(tmp_path / "f.sqlite").close()
    assert main(["floor", "report", "--store", str(tmp_path / "f.sqlite"), "--from",
                 "yesterday"]) == 2
    assert "--from 'yesterday'" in capsys.readouterr().err
    assert main(["floor", "report", "--store", str(tmp_path / "f.sqlite"), "--shifts",
                 "6 o'clock"]) == 2
    assert "not a time of day" in capsys.readouterr().err


def test_watcher_helper_sees_nothing_of_another_prefix(broker: Mosquitto) -> None:
    watcher = Watcher(broker.port)
    assert watcher.docs("events") == []
    watcher.close()


def test_floor_command_shows_the_tables_and_stops_cleanly(
        broker: Mosquitto, tmp_path: Path) -> None:
    import signal
    import sys

    journal = make_journal(tmp_path / "j.sqlite", 3, nets=[-100, 40, 25])
    publisher = Publisher(from_options(broker.url, "bj-11"), journal.path)
    publisher.start()
    store = tmp_path / "new" / "floor.sqlite"  # its folder is made
    floor = subprocess.Popen(
        [sys.executable, "-m", "tablectl", "floor", "--broker", broker.url, "--store",
         str(store), "--view", "lines", "--every", "0.2", "--http", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert floor.stdout is not None
    output = OutputLines(floor.stdout)
    lines = output.lines
    try:
        # The house won 100, lost 40 and 25: +35 over the shift's three rounds.
        output.wait_for_line(lambda line: line.split()[:2] == ["bj-11", "online"]
                             and line.split()[5:7] == ["+35", "3"],
                             "bj-11 online with the shift's net", 20)
        # The same on the web page.
        url = lines[0].rsplit("web page ", 1)[1].strip()
        with urllib.request.urlopen(url, timeout=10) as answer:
            assert "<title>tablectl floor</title>" in answer.read().decode()
        with urllib.request.urlopen(url + "floor.json", timeout=10) as answer:
            doc = json.loads(answer.read())
        assert doc["house"] == 35 and doc["broker"] == f"mqtt://127.0.0.1:{broker.port}"
        (row,) = doc["tables"]
        assert (row["table"], row["status"], row["profile"], row["shift_net"],
                row["shift_rounds"], row["missing"]) == (
            "bj-11", "online", "casinos-austria", 35, 3, 0)
    finally:
        publisher.stop()
        floor.send_signal(signal.SIGTERM)
        assert floor.wait(20) == 0
        output.join(5)
        journal.close()
    assert "floor stopped: 12 event(s) stored" in lines[-1]
    assert floor.stderr is not None and "Traceback" not in floor.stderr.read()


def test_floor_http_address_is_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    assert main(["floor", "--broker", "mqtt://127.0.0.1:1", "--http", "127.0.0.1:web",
                 "--store", str(tmp_path / "f.sqlite")]) == 2
    assert "give [HOST:]PORT" in capsys.readouterr().err
