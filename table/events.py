"""Table events (the `table-scenario/1` event shapes) parsed into small frozen objects."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from foundation.cards import CardError, parse_card
from table.sidebets import SIDE_BETS

SPOTS = ("main", "insurance", *SIDE_BETS)
ACTIONS = (
    "hit", "stand", "double", "split", "surrender", "insurance", "even_money", "rescue",
    "buy", "twist", "follow", "decline", "timeout",
)
# Accepted spellings that mean a scenario action.
ACTION_ALIASES = {"stick": "stand"}
RESOLUTIONS = ("void", "accept")
SHOE_STATUSES = ("loaded", "cut_card")
# Flags another part of the system reports as an event (shoe, camera). The camera reports
# CARD_OUT_OF_ORDER / CARD_TO_EMPTY_BOX for a card the shoe already gave to another place.
REPORTED_FLAGS = (
    "UNREADABLE_CARD", "SHOE_CAMERA_MISMATCH", "CARD_NOT_FROM_SHOE", "SHOE_OFFLINE", "CUT_CARD",
    "CARD_OUT_OF_ORDER", "CARD_TO_EMPTY_BOX",
)
DEALER = "dealer"
MAX_BOX = 7


class ScenarioError(ValueError):
    """A malformed event or scenario: where it is and what is wrong."""

    def __init__(self, position: str, message: str) -> None:
        self.position = position
        self.message = message
        super().__init__(f"{position}: {message}")


@dataclass(frozen=True, slots=True)
class Bet:
    box: int
    amount: int
    spot: str = "main"
    player: str | None = None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"box": self.box, "amount": self.amount}
        if self.spot != "main":
            body["spot"] = self.spot
        if self.player is not None:
            body["player"] = self.player
        return {"bet": body}


@dataclass(frozen=True, slots=True)
class Deal:
    def to_json(self) -> dict[str, Any]:
        return {"deal": {}}


@dataclass(frozen=True, slots=True)
class Card:
    card: str
    # None: the shoe does not know where it landed; an int box or "dealer" when a camera saw it.
    box: int | str | None = None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"card": self.card}
        if self.box is not None:
            body["box"] = self.box
        return body


@dataclass(frozen=True, slots=True)
class Do:
    box: int | str
    action: str
    player: str | None = None
    amount: int | None = None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"box": self.box, "action": self.action}
        if self.player is not None:
            body["player"] = self.player
        if self.amount is not None:
            body["amount"] = self.amount
        return {"do": body}


@dataclass(frozen=True, slots=True)
class Resolve:
    decision: str

    def to_json(self) -> dict[str, Any]:
        return {"resolve": self.decision}


@dataclass(frozen=True, slots=True)
class ShoeStatus:
    status: str

    def to_json(self) -> dict[str, Any]:
        return {"shoe": self.status}


@dataclass(frozen=True, slots=True)
class Flag:
    """A fault reported by the shoe or the camera (`{"flag": "UNREADABLE_CARD"}`)."""

    code: str

    def to_json(self) -> dict[str, Any]:
        return {"flag": self.code}


Event = Bet | Deal | Card | Do | Resolve | ShoeStatus | Flag

_KINDS = ("bet", "deal", "card", "do", "resolve", "shoe", "flag")


def _amount(value: Any, position: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(position, f"{what} must be a whole number of units, got {value!r}")
    if value <= 0:
        raise ScenarioError(position, f"{what} must be positive, got {value}")
    return value


def _box(value: Any, position: str, allow_dealer: bool) -> int | str:
    if allow_dealer and value == DEALER:
        return DEALER
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_BOX:
        hint = ' or "dealer"' if allow_dealer else ""
        raise ScenarioError(
            position, f"box must be a box number 1 to {MAX_BOX}{hint}, got {value!r}"
        )
    return value


def _player(value: Any, position: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ScenarioError(position, f"player must be a non-empty name, got {value!r}")
    return value


def _body(obj: Mapping[str, Any], kind: str, position: str, allowed: tuple[str, ...]) -> dict[
    str, Any
]:
    body = obj[kind]
    if not isinstance(body, Mapping):
        raise ScenarioError(position, f'"{kind}" must be an object, got {body!r}')
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise ScenarioError(
            position, f'unknown field(s) {unknown} in "{kind}"; allowed: {", ".join(allowed)}'
        )
    return dict(body)


# Events already parsed, keyed by their kind and fields (each value with its type,
# so a `true` is never taken for a 1): a scenario repeats the same few dozen
# cards, bets and decisions thousands of times. Events are frozen, so one object
# stands for every occurrence.
_PARSED: dict[tuple[Any, ...], Event] = {}
_PARSED_MAX = 4096


def _memo_key(obj: dict[str, Any]) -> tuple[Any, ...] | None:
    """The key of a one-kind event whose fields are whole numbers and strings;
    None for anything else (it is parsed every time)."""
    for kind, body in obj.items():
        if type(body) is str:
            return (kind, body)
        if type(body) is not dict:
            return None
        key: list[Any] = [kind]
        for name, value in body.items():
            if type(value) is int:
                key += (name, value)
            elif type(value) is str:
                key += (name, "", value)  # three entries: never equal to an int field's two
            else:
                return None
        return tuple(key)
    return None


def parse_event(obj: Any, position: str | int) -> Event:
    """Parse one event dict; `ScenarioError` says where and what is wrong."""
    key = _memo_key(obj) if type(obj) is dict and len(obj) == 1 else None
    if key is not None:
        known = _PARSED.get(key)
        if known is not None:
            return known
    event = _parse_event(obj, position)
    if key is not None and len(_PARSED) < _PARSED_MAX:
        _PARSED[key] = event
    return event


def _parse_event(obj: Any, position: str | int) -> Event:
    where = f"event {position}" if isinstance(position, int) else position
    if not isinstance(obj, Mapping):
        raise ScenarioError(where, f"an event must be an object, got {obj!r}")
    kinds = [key for key in obj if key in _KINDS]
    if len(kinds) != 1:
        raise ScenarioError(
            where, f"an event has exactly one of {', '.join(_KINDS)}; got keys {sorted(obj)}"
        )
    kind = kinds[0]
    extra = sorted(set(obj) - {kind, "box"} if kind == "card" else set(obj) - {kind})
    if extra:
        raise ScenarioError(where, f"unknown key(s) {extra} beside {kind!r}")
    if kind == "bet":
        body = _body(obj, kind, where, ("box", "amount", "spot", "player"))
        if "box" not in body or "amount" not in body:
            raise ScenarioError(where, 'a bet needs "box" and "amount"')
        spot = body.get("spot", "main")
        if spot not in SPOTS:
            raise ScenarioError(where, f"unknown spot {spot!r}; use one of {', '.join(SPOTS)}")
        if spot == "insurance":
            raise ScenarioError(where, 'insurance is a decision: {"do": {"action": "insurance"}}')
        box = _box(body["box"], where, allow_dealer=False)
        assert isinstance(box, int)
        return Bet(box, _amount(body["amount"], where, "amount"), spot,
                   _player(body.get("player"), where))
    if kind == "deal":
        _body(obj, kind, where, ())
        return Deal()
    if kind == "card":
        try:
            card = parse_card(obj["card"])
        except CardError as exc:
            raise ScenarioError(where, str(exc)) from None
        seen_at = obj.get("box")
        return Card(card, None if seen_at is None else _box(seen_at, where, allow_dealer=True))
    if kind == "do":
        body = _body(obj, kind, where, ("box", "action", "player", "amount"))
        if "box" not in body or "action" not in body:
            raise ScenarioError(where, 'a decision needs "box" and "action"')
        action = ACTION_ALIASES.get(body["action"], body["action"])
        if action not in ACTIONS:
            raise ScenarioError(
                where, f"unknown action {body['action']!r}; use one of {', '.join(ACTIONS)}"
            )
        amount = body.get("amount")
        return Do(
            _box(body["box"], where, allow_dealer=True), action,
            _player(body.get("player"), where),
            None if amount is None else _amount(amount, where, "amount"),
        )
    if kind == "resolve":
        if obj[kind] not in RESOLUTIONS:
            raise ScenarioError(where, f"resolve must be 'void' or 'accept', got {obj[kind]!r}")
        return Resolve(obj[kind])
    if kind == "shoe":
        if obj[kind] not in SHOE_STATUSES:
            raise ScenarioError(
                where, f"shoe status must be one of {', '.join(SHOE_STATUSES)}, got {obj[kind]!r}"
            )
        return ShoeStatus(obj[kind])
    if obj[kind] not in REPORTED_FLAGS:
        raise ScenarioError(
            where, f"flag must be one of {', '.join(REPORTED_FLAGS)}, got {obj[kind]!r}"
        )
    return Flag(obj[kind])
