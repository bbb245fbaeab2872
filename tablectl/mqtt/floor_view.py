"""The floor in a terminal: one line per table."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

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


def render(tables: Sequence[TableInfo], house: dict[str, tuple[int, int]], *, now: float,
           shift: dt.datetime, broker: str, error: str | None = None) -> str:
    """The floor as text: status, profile, round, the shift's win/loss for the house,
    open flags, time since the last event, and what is missing."""
    lines = [f"floor on {broker}: {len(tables)} table(s); shift since "
             f"{shift:%Y-%m-%d %H:%M}" + (f"  ({error})" if error else ""),
             f"{'table':<12} {'status':<8} {'profile':<18} {'round':>6} {'phase':<10} "
             f"{'shift net':>10} {'rounds':>6} {'last':>5}  flags"]
    total = 0
    for info in tables:
        state = info.state
        net, rounds = house.get(info.table, (0, 0))
        total += net
        flags = list(state.get("open_flags") or ())
        missing = info.events.known - info.events.contiguous - len(info.events.above)
        notes = []
        if missing > 0:
            notes.append(f"{missing} event(s) missing, asked again")
        if info.problem:
            notes.append(info.problem)
        round_no = state.get("round_in_play", state.get("round", "-"))
        last = None if info.last_event_at is None else max(now - info.last_event_at, 0.0)
        lines.append(
            f"{info.table:<12} {info.status:<8} {str(state.get('profile') or '-'):<18} "
            f"{round_no!s:>6} {str(state.get('phase') or '-'):<10} {net:>+10d} "
            f"{rounds:>6d} {_ago(last):>5}  {','.join(flags) or '-'}"
            + (f"  [{'; '.join(notes)}]" if notes else ""))
    lines.append(f"{'house, all tables':<58} {total:>+10d}")
    return "\n".join(lines)
