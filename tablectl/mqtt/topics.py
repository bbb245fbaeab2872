"""Topics and payloads of the floor, version 1 (docs/floor.md).

Every payload is a JSON object with `"v": 1`, the `table` id and the `origin` (the
id of the table's journal, made once beside it) so that two tables that were given
the same id are told apart. Decoding checks everything a floor stores: a message
that is not ours, or not whole, raises `BadMessage` and nothing is stored.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii as _quote  # type: ignore[attr-defined]
from typing import Any

from tablectl.mqtt.settings import TABLE_ID

PREFIX = "tablectl/v1"
VERSION = 1
KINDS = ("events", "rounds", "state", "status", "resend")
# What the floor subscribes to (resend is the floor's own request to a table).
FLOOR_TOPICS = tuple(f"{PREFIX}/+/{kind}" for kind in ("events", "rounds", "state", "status"))
SHARED_KINDS = ("events", "rounds")  # split among a share group's floor processes


def floor_topics(share: str | None = None) -> list[str]:
    """What a floor subscribes to. With a share group (MQTT 5 shared subscription) the
    broker gives each event and round to one floor process of the group; every process
    still gets every table's state and status (small, retained: a shared subscription
    is not sent retained messages)."""
    if share is None:
        return list(FLOOR_TOPICS)
    return [f"$share/{share}/{name}" if name.rsplit("/", 1)[1] in SHARED_KINDS else name
            for name in FLOOR_TOPICS]


def check_share_group(name: str) -> str:
    if not TABLE_ID.match(name):
        raise ValueError(f"share group {name!r}: use 1-64 letters, digits, '_', '-' or '.'")
    return name
MAX_PAYLOAD = 256 * 1024


class BadMessage(ValueError):
    """A message on our topics that is not ours or is malformed."""


def topic(table: str, kind: str) -> str:
    return f"{PREFIX}/{table}/{kind}"


def split_topic(name: str) -> tuple[str, str]:
    """(table, kind) of one of our topics; BadMessage for any other."""
    parts = name.split("/")
    if len(parts) != 4 or f"{parts[0]}/{parts[1]}" != PREFIX or parts[3] not in KINDS:
        raise BadMessage(f"topic {name!r} is not a tablectl/v1 topic")
    if not TABLE_ID.match(parts[2]):
        raise BadMessage(f"topic {name!r}: {parts[2]!r} is not a table id")
    return parts[2], parts[3]


def encode(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":"), sort_keys=True,
                      allow_nan=False).encode()


def _number(value: float | None) -> str:
    return "null" if value is None else repr(float(value))  # as json writes a float


def event_payload(table: str, origin: str, seq: int, source: str, source_ref: str | None,
                  event: str, at: float | None, sent: float) -> bytes:
    """`event` is the journal's stored JSON text, put in as it is. Written out by hand
    (what `encode` makes of the same object, keys sorted): this runs for every event
    a table publishes, and json.dumps of a dict costs more than paho's publish."""
    ref = "null" if source_ref is None else _quote(source_ref)
    return (f'{{"at":{_number(at)},"event":{event},"origin":{_quote(origin)},'
            f'"sent":{_number(sent)},"seq":{int(seq)},"source":{_quote(source)},'
            f'"source_ref":{ref},"table":{_quote(table)},"v":{VERSION}}}').encode()


def round_payload(table: str, origin: str, round_no: int, start_seq: int, end_seq: int,
                  status: str, flags: list[str], result: dict[str, Any],
                  at: float | None, sent: float) -> bytes:
    net = result.get("net") or {}
    staked = sum(int(item.get("stake", 0)) for item in result.get("settlement") or ())
    return encode({
        "v": VERSION, "table": table, "origin": origin, "round": round_no,
        "seq": end_seq, "start_seq": start_seq, "end_seq": end_seq, "status": status,
        "flags": flags, "net": net, "house": -sum(net.values()), "staked": staked,
        "at": at, "sent": sent,
    })


@dataclass(frozen=True)
class EventMessage:
    table: str
    origin: str
    seq: int
    source: str
    source_ref: str | None
    event: dict[str, Any]
    at: float | None
    sent: float | None

    @property
    def event_text(self) -> str:
        return json.dumps(self.event, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True)
class RoundMessage:
    table: str
    origin: str
    round: int
    start_seq: int
    end_seq: int
    status: str
    flags: tuple[str, ...]
    net: dict[str, int]
    house: int
    staked: int
    at: float | None


def decode(table: str, kind: str, payload: bytes) -> dict[str, Any]:
    """The JSON object of a message on `tablectl/v1/<table>/<kind>`, checked for the
    fields every kind has."""
    if len(payload) > MAX_PAYLOAD:
        raise BadMessage(f"{kind} of {table}: {len(payload)} bytes, more than a table sends")
    try:
        doc = json.loads(payload)
    except (UnicodeDecodeError, ValueError):
        raise BadMessage(f"{kind} of {table}: not JSON") from None
    if not isinstance(doc, dict):
        raise BadMessage(f"{kind} of {table}: not a JSON object")
    if doc.get("v") != VERSION:
        raise BadMessage(f"{kind} of {table}: payload version {doc.get('v')!r}, "
                         f"this floor reads version {VERSION}")
    if doc.get("table") != table:
        raise BadMessage(f"{kind} on {table}'s topic names table {doc.get('table')!r}")
    if not isinstance(doc.get("origin"), str) or not doc["origin"]:
        raise BadMessage(f"{kind} of {table}: no origin")
    return doc


def _int(doc: dict[str, Any], key: str, what: str, minimum: int = 1) -> int:
    value = doc.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise BadMessage(f"{what}: {key} = {value!r} is not a whole number >= {minimum}")
    return value


def _time(doc: dict[str, Any], key: str, what: str) -> float | None:
    value = doc.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadMessage(f"{what}: {key} = {value!r} is not a time")
    return float(value)


def decode_event(table: str, payload: bytes) -> EventMessage:
    doc = decode(table, "events", payload)
    seq = _int(doc, "seq", f"event of {table}")
    what = f"event {seq} of {table}"
    source, ref, event = doc.get("source"), doc.get("source_ref"), doc.get("event")
    if not isinstance(source, str) or not source:
        raise BadMessage(f"{what}: no source")
    if ref is not None and not isinstance(ref, str):
        raise BadMessage(f"{what}: source_ref is not a string")
    if not isinstance(event, dict) or not event:
        raise BadMessage(f"{what}: event is not a table event (a one-key JSON object)")
    return EventMessage(table, doc["origin"], seq, source, ref, event,
                        _time(doc, "at", what), _time(doc, "sent", what))


def decode_round(table: str, payload: bytes) -> RoundMessage:
    doc = decode(table, "rounds", payload)
    number = _int(doc, "round", f"round of {table}")
    what = f"round {number} of {table}"
    start, end = _int(doc, "start_seq", what), _int(doc, "end_seq", what)
    if end < start:
        raise BadMessage(f"{what}: end_seq {end} before start_seq {start}")
    status, flags, net = doc.get("status"), doc.get("flags"), doc.get("net")
    if status not in ("settled", "void"):
        raise BadMessage(f"{what}: status {status!r} is not settled or void")
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise BadMessage(f"{what}: flags is not a list of names")
    if not isinstance(net, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
            for k, v in net.items()):
        raise BadMessage(f"{what}: net is not an object of whole amounts")
    house = _int(doc, "house", what, minimum=-(10**15))
    if house != -sum(net.values()):
        raise BadMessage(f"{what}: house {house} is not the opposite of the players' net")
    staked = _int(doc, "staked", what, minimum=0)
    return RoundMessage(table, doc["origin"], number, start, end, status, tuple(flags), net,
                        house, staked, _time(doc, "at", what))
