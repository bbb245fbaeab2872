"""`tablectl floor report`: totals per table and per shift from the floor's store.

A round counts where its last event was played (the table's clock), an event where
it was appended; `net` is the house's win (positive) or loss over the rounds.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from tablectl.mqtt.floor_store import FloorStore
from tablectl.mqtt.floor_view import shift_start


def _blank() -> dict[str, int]:
    return {"rounds": 0, "void": 0, "events": 0, "staked": 0, "net": 0}


def floor_report(store: FloorStore, shifts: Sequence[dt.time], since: float | None = None,
                 until: float | None = None) -> dict[str, Any]:
    low = since if since is not None else float("-inf")
    high = until if until is not None else float("inf")
    tables: dict[str, dict[str, Any]] = {}
    by_shift: dict[str, dict[str, int]] = {}

    def entry(table: str, moment: float) -> tuple[dict[str, Any], dict[str, int]]:
        total = tables.setdefault(table, {**_blank(), "shifts": {}})
        name = f"{shift_start(moment, shifts):%Y-%m-%d %H:%M}"
        return total, total["shifts"].setdefault(name, _blank())

    for table, moment, status, house, staked in store.db.execute(
            "SELECT table_id, COALESCE(at, received), status, house, staked FROM rounds "
            "ORDER BY table_id, round_no"):
        if not low <= moment < high:
            continue
        for target in entry(str(table), float(moment)):
            target["rounds"] += 1
            target["void"] += status == "void"
            target["net"] += int(house)
            target["staked"] += int(staked)
    for table, moment, count in store.db.execute(
            "SELECT table_id, COALESCE(at, received), 1 FROM events"):
        if not low <= moment < high:
            continue
        for target in entry(str(table), float(moment)):
            target["events"] += count
    for total in tables.values():
        for name, figures in total["shifts"].items():
            floor_shift = by_shift.setdefault(name, _blank())
            for key, value in figures.items():
                floor_shift[key] += value
    return {
        "store": str(store.path),
        "from": None if since is None else _iso(since),
        "to": None if until is None else _iso(until),
        "tables": dict(sorted(tables.items())),
        "shifts": dict(sorted(by_shift.items())),
    }


def _iso(moment: float) -> str:
    return dt.datetime.fromtimestamp(moment).isoformat(timespec="minutes")


def report_text(doc: dict[str, Any]) -> str:
    span = f" from {doc['from'] or 'the start'} to {doc['to'] or 'now'}"
    lines = [f"{doc['store']}: {len(doc['tables'])} table(s){span}",
             f"{'table':<12} {'shift':<17} {'rounds':>7} {'void':>5} {'events':>8} "
             f"{'staked':>10} {'net':>9}"]

    def line(name: str, shift: str, figures: dict[str, Any]) -> str:
        return (f"{name:<12} {shift:<17} {figures['rounds']:>7d} {figures['void']:>5d} "
                f"{figures['events']:>8d} {figures['staked']:>10d} {figures['net']:>+9d}")

    for table, total in doc["tables"].items():
        for shift, figures in total["shifts"].items():
            lines.append(line(table, shift, figures))
        lines.append(line(table, "all", total))
    for shift, figures in doc["shifts"].items():
        lines.append(line("floor", shift, figures))
    if not doc["tables"]:
        lines.append("nothing stored in that time")
    return "\n".join(lines)
