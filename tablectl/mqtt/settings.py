"""The broker a table publishes to: `[mqtt]` in the config, or `--mqtt URL --table ID`.

Imports nothing of paho, so the config can be checked where paho is not installed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

SCHEMES = {"mqtt": (1883, False), "mqtts": (8883, True)}
# A table id is one topic level: no '/', '+', '#', and nothing a shell or a file name minds.
TABLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class MqttSettingsError(ValueError):
    """A broker URL or table id that cannot be used; the message says why."""


@dataclass(frozen=True)
class Broker:
    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None
    # TLS: the CA that signed the broker's certificate (None: the system's), and a
    # client certificate and key for brokers that authenticate tables by certificate.
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    keepalive: int = 15

    @property
    def address(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


@dataclass(frozen=True)
class MqttConfig:
    broker: Broker
    table: str
    # The floor's web page (`tablectl floor --http`), shown on this table's pit display.
    floor_url: str | None = None


def parse_url(url: str) -> Broker:
    """`mqtt://[user[:password]@]host[:port]` (plain, 1883) or `mqtts://...` (TLS, 8883)."""
    text = url.strip()
    if "://" not in text:
        raise MqttSettingsError(
            f"{url!r} is not a broker URL; write mqtt://HOST:PORT (or mqtts://HOST:PORT for TLS)")
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise MqttSettingsError(
            f"{url!r}: unknown scheme {parts.scheme!r}; use mqtt:// or mqtts:// (TLS)")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise MqttSettingsError(f"{url!r}: a broker URL has no path or query; "
                                "write mqtt://HOST:PORT")
    try:
        port = parts.port
    except ValueError:
        raise MqttSettingsError(f"{url!r}: the port is not a number from 1 to 65535") from None
    host = parts.hostname
    if not host:
        raise MqttSettingsError(f"{url!r}: no host; write mqtt://HOST:PORT")
    default_port, tls = SCHEMES[scheme]
    if port == 0:
        raise MqttSettingsError(f"{url!r}: the port is not a number from 1 to 65535")
    return Broker(host, port or default_port, tls,
                  unquote(parts.username) if parts.username else None,
                  unquote(parts.password) if parts.password is not None else None)


def check_table_id(table: str) -> str:
    if not isinstance(table, str) or not TABLE_ID.match(table):
        raise MqttSettingsError(
            f"table id {table!r}: use 1-64 letters, digits, '_', '-' or '.', starting "
            "with a letter or digit (it is one level of the topic tablectl/v1/<table>/...)")
    return table


def parse_section(raw: Any, problems: list[str]) -> MqttConfig | None:
    """The config file's `[mqtt]` section; every problem is added to `problems`."""
    if not isinstance(raw, dict):
        problems.append(f"[mqtt] must be a table of keys, got {type(raw).__name__}")
        return None
    known = {"url", "table", "username", "password", "password_file", "ca_file",
             "cert_file", "key_file", "keepalive", "floor_url"}
    for key in sorted(set(raw) - known):
        problems.append(f"[mqtt] unknown key {key!r}; allowed keys: {', '.join(sorted(known))}")
    texts: dict[str, str | None] = {}
    for key in known - {"keepalive"}:
        value = raw.get(key)
        if value is not None and not (isinstance(value, str) and value.strip()):
            problems.append(f"[mqtt] {key} = {value!r}: expected a non-empty string")
            value = None
        texts[key] = value
    keepalive = raw.get("keepalive", 15)
    if not isinstance(keepalive, int) or isinstance(keepalive, bool) or not 5 <= keepalive <= 600:
        problems.append(f"[mqtt] keepalive = {keepalive!r}: expected seconds from 5 to 600")
        keepalive = 15
    broker: Broker | None = None
    url = texts["url"]
    if url is None:
        problems.append("[mqtt] url is missing: the broker, e.g. url = \"mqtt://broker:1883\"")
    else:
        try:
            broker = parse_url(url)
        except MqttSettingsError as error:
            problems.append(f"[mqtt] url: {error}")
    table = texts["table"]
    if table is None:
        problems.append("[mqtt] table is missing: this table's id on the floor, e.g. "
                        "table = \"bj-07\"")
    else:
        try:
            check_table_id(table)
        except MqttSettingsError as error:
            problems.append(f"[mqtt] {error}")
    password = texts["password"]
    if texts["password_file"] is not None:
        if password is not None:
            problems.append("[mqtt] password and password_file: give one of them")
        try:
            with open(str(texts["password_file"]), encoding="utf-8") as file:
                password = file.read().strip()
        except OSError as error:
            problems.append(f"[mqtt] password_file cannot be read: {error.strerror or error}")
    if (texts["cert_file"] is None) != (texts["key_file"] is None):
        problems.append("[mqtt] cert_file and key_file go together: give both or neither")
    floor_url = texts["floor_url"]
    if floor_url is not None:
        try:
            check_floor_url(floor_url)
        except MqttSettingsError as error:
            problems.append(f"[mqtt] {error}")
    if broker is None or table is None:
        return None
    username = texts["username"] or broker.username
    return MqttConfig(Broker(
        broker.host, broker.port, broker.tls or texts["ca_file"] is not None,
        username, password if password is not None else broker.password,
        texts["ca_file"], texts["cert_file"], texts["key_file"], keepalive), table, floor_url)


def floor_json_url(url: str) -> str:
    """`http://HOST:PORT[/]` (the floor's `--http` page) as the URL of its floor.json."""
    text = url.strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise MqttSettingsError(
            f"floor URL {url!r}: give the floor's web page, http://HOST:PORT "
            "(`tablectl floor --http HOST:PORT`)")
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        raise MqttSettingsError(f"floor URL {url!r}: the port is not a number") from None
    if parts.query or parts.fragment:
        raise MqttSettingsError(f"floor URL {url!r}: no query, just http://HOST:PORT")
    path = parts.path
    if not path.endswith("/floor.json"):
        path = path.rstrip("/") + "/floor.json"
    return f"{parts.scheme}://{parts.netloc}{path}"


def check_floor_url(url: str) -> str:
    floor_json_url(url)
    return url


def from_options(url: str, table: str, floor_url: str | None = None) -> MqttConfig:
    """`--mqtt URL --table ID [--floor-url URL]` on the command line."""
    return MqttConfig(parse_url(url), check_table_id(table),
                      None if floor_url is None else check_floor_url(floor_url))
