"""The floor's terminal view and its shifts."""

from __future__ import annotations

import datetime as dt

import pytest

from tablectl.mqtt.floor import Numbers, TableInfo
from tablectl.mqtt.floor_view import parse_shifts, render, shift_start

SHIFTS = parse_shifts("06:00,14:00,22:00")


def test_shift_start() -> None:
    at = dt.datetime(2026, 11, 25, 13, 59).timestamp()
    assert shift_start(at, SHIFTS) == dt.datetime(2026, 11, 25, 6, 0)
    assert shift_start(at + 60, SHIFTS) == dt.datetime(2026, 11, 25, 14, 0)
    # Before the first shift of the day: the night shift of the day before.
    early = dt.datetime(2026, 11, 25, 5, 0).timestamp()
    assert shift_start(early, SHIFTS) == dt.datetime(2026, 11, 24, 22, 0)
    with pytest.raises(ValueError, match="distinct"):
        parse_shifts("06:00,06:00")


def test_render_one_line_per_table() -> None:
    gap = Numbers()
    for seq in (1, 2, 5):
        gap.add(seq)
    gap.known = 8  # 3, 4, 6, 7 and 8 missing
    tables = [
        TableInfo("bj-1", "online", {"profile": "casinos-austria", "round_in_play": 12,
                                     "phase": "dealer", "open_flags": ["DEALER_STOOD_ON_DRAW"]},
                  last_event_at=100.0, events=gap),
        TableInfo("bj-2", "offline", {"profile": "live-studio", "round_in_play": 3,
                                      "phase": "betting", "open_flags": []},
                  last_event_at=None, problem="another table uses this id"),
    ]
    text = render(tables, {"bj-1": (250, 9), "bj-2": (-40, 2)}, now=130.0,
                  shift=dt.datetime(2026, 11, 25, 14, 0), broker="mqtt://b:1883")
    lines = text.splitlines()
    assert lines[0].startswith("floor on mqtt://b:1883: 2 table(s); shift since 2026-11-25 14:00")
    one, two, total = lines[2], lines[3], lines[4]
    assert one.split()[:9] == ["bj-1", "online", "casinos-austria", "12", "dealer", "+250",
                               "9", "30s", "DEALER_STOOD_ON_DRAW"]
    assert "[5 event(s) missing, asked again]" in one
    assert two.split()[:9] == ["bj-2", "offline", "live-studio", "3", "betting", "-40", "2",
                               "-", "-"]
    assert "[another table uses this id]" in two
    assert total.split() == ["house,", "all", "tables", "+210"]
