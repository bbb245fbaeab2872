"""Small helpers to play events through a real table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table.events import parse_event
from table.machine import Table
from table.profiles import load_profile
from table.views import Outcome


def bet(box: int, amount: int, **extra: Any) -> dict[str, Any]:
    return {"bet": {"box": box, "amount": amount, **extra}}


def do(box: int | str, action: str, **extra: Any) -> dict[str, Any]:
    return {"do": {"box": box, "action": action, **extra}}


def cards(*codes: str) -> list[dict[str, Any]]:
    return [{"card": code} for code in codes]


DEAL: dict[str, Any] = {"deal": {}}


def table(profile: str, rules: Mapping[str, Any] | None = None) -> Table:
    return Table(load_profile(profile, rules))


def feed(tbl: Table, events: list[dict[str, Any]]) -> list[Outcome]:
    return [tbl.apply(parse_event(event, i + 1)) for i, event in enumerate(events)]


def play(profile: str, events: list[dict[str, Any]],
         rules: Mapping[str, Any] | None = None) -> Table:
    tbl = table(profile, rules)
    feed(tbl, events)
    return tbl


def last(tbl: Table) -> dict[str, Any]:
    result = tbl.current_result()
    assert result is not None
    return result
