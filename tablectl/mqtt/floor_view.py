"""The floor in a terminal: one line per table."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from tablectl.mqtt.floor import TableInfo

SHIFTS = ("06:00", "14:00", "22:00")


def parse_shifts(text: str) -> tuple[dt.time, ...]:
    """`06:00,14:00,22:00`: the times of day shifts begin (local time)."""
    times = []
    for part in text.split(","):
        try:
            times.append(dt.time.fromisoformat(part.strip()))
        except ValueError:
            raise ValueError(f"{part.strip()!r} is not a time of day (HH:MM)") from None
    if not times or len(set(times)) != len(times):
        raise ValueError("give the distinct times of day shifts begin, e.g. 06:00,14:00,22:00")
    return tuple(sorted(times))


def shift_start(moment: float, shifts: Sequence[dt.time]) -> dt.datetime:
    """The local start of the shift `moment` (seconds since the epoch) falls in."""
    local = dt.datetime.fromtimestamp(moment)
    day = local.date()
    starts = [dt.datetime.combine(day, t) for t in shifts]
    before = [s for s in starts if s <= local]
    if before:
        return before[-1]
    return dt.datetime.combine(day - dt.timedelta(days=1), shifts[-1])


def _ago(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:.0f}s"
    if seconds < 3600:
        return f"{seconds / 60:.0f}m"
    return f"{seconds / 3600:.1f}h"


def rows(tables: Sequence[TableInfo], house: dict[str, tuple[int, int]], *, now: float
         ) -> list[dict[str, Any]]:
    """One plain row per table, for the terminal and the web page."""
    out = []
    for info in tables:
        state = info.state
        net, rounds = house.get(info.table, (0, 0))
        missing = info.events.known - info.events.contiguous - len(info.events.above)
        out.append({
            "table": info.table, "status": info.status,
            "profile": state.get("profile"), "round": state.get("round_in_play",
                                                                  state.get("round")),
            "phase": state.get("phase"), "shift_net": net, "shift_rounds": rounds,
            "open_flags": list(state.get("open_flags") or ()),
            "last_event_s": None if info.last_event_at is None
            else round(max(now - info.last_event_at, 0.0), 1),
            "missing": max(missing, 0), "problem": info.problem,
        })
    return out


def render(tables: Sequence[TableInfo], house: dict[str, tuple[int, int]], *, now: float,
           shift: dt.datetime, broker: str, error: str | None = None) -> str:
    """The floor as text: status, profile, round, the shift's win/loss for the house,
    open flags, time since the last event, and what is missing."""
    lines = [f"floor on {broker}: {len(tables)} table(s); shift since "
             f"{shift:%Y-%m-%d %H:%M}" + (f"  ({error})" if error else ""),
             f"{'table':<12} {'status':<8} {'profile':<18} {'round':>6} {'phase':<10} "
             f"{'shift net':>10} {'rounds':>6} {'last':>5}  flags"]
    total = 0
    for row in rows(tables, house, now=now):
        total += row["shift_net"]
        notes = []
        if row["missing"] > 0:
            notes.append(f"{row['missing']} event(s) missing, asked again")
        if row["problem"]:
            notes.append(row["problem"])
        round_no = "-" if row["round"] is None else row["round"]
        lines.append(
            f"{row['table']:<12} {row['status']:<8} {str(row['profile'] or '-'):<18} "
            f"{round_no!s:>6} {str(row['phase'] or '-'):<10} {row['shift_net']:>+10d} "
            f"{row['shift_rounds']:>6d} {_ago(row['last_event_s']):>5}  "
            f"{','.join(row['open_flags']) or '-'}"
            + (f"  [{'; '.join(notes)}]" if notes else ""))
    lines.append(f"{'house, all tables':<58} {total:>+10d}")
    return "\n".join(lines)
