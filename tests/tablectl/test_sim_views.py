"""What `tablectl run --sim` prints: every round once (--view rounds), and every
phase of a round as it happens (the live view)."""

from __future__ import annotations

import io
import re
from pathlib import Path

from journal import JournalReader
from tablectl.display import round_line
from tablectl.sim import SimOptions, SimulatedTable

CLEAR = "\x1b[H\x1b[J"


def test_the_rounds_view_prints_every_round_exactly_once_flat_out(tmp_path: Path) -> None:
    rounds = 150
    out = io.StringIO()
    journal = tmp_path / "journal.sqlite"
    sim = SimulatedTable(SimOptions(journal=str(journal), rounds=rounds, seed=5,
                                    mistake_rate=0.1), out=out)
    sim.start()
    sim.run()
    assert sim.error is None, sim.error
    printed = [line for line in out.getvalue().splitlines() if line.startswith("round ")]
    assert [int(line.split()[1]) for line in printed] == list(range(1, rounds + 1))
    # Each line is the round's result as the journal recorded it.
    with JournalReader(journal) as reader:
        recorded = [round_line(record.result) for record in reader.rounds()]
    assert printed == recorded


def test_the_live_view_shows_draw_then_stand_or_bust_payouts_and_the_shoe(
        tmp_path: Path) -> None:
    out = io.StringIO()
    sim = SimulatedTable(SimOptions(journal=str(tmp_path / "j.sqlite"), rounds=3, seed=2,
                                    mistake_rate=0.0, pace_s=1.2, live_view=True), out=out)
    sim.start()
    sim.run()
    assert sim.error is None, sim.error
    frames = [frame for frame in out.getvalue().split(CLEAR) if frame.startswith("round ")]
    with JournalReader(tmp_path / "j.sqlite") as reader:
        results = {record.round_no: record.result for record in reader.rounds()}
    for number in (1, 2):
        mine = [f for f in frames if f.startswith(f"round {number} ")]
        dealer_lines = [re.search(r"^  dealer .*$", f, re.M).group(0) for f in mine]  # type: ignore[union-attr]
        draws = [k for k, line in enumerate(dealer_lines) if line.endswith("DRAW")]
        ends = [k for k, line in enumerate(dealer_lines)
                if line.endswith("STAND") or line.endswith("BUST")]
        assert draws and ends and draws[0] < ends[0], dealer_lines
        settled = mine[ends[0]]
        total = int(re.search(r"\((\d+)\)  (STAND|BUST)$", dealer_lines[ends[0]], re.M)
                    .group(1))  # type: ignore[union-attr]
        assert dealer_lines[ends[0]].endswith("BUST" if total > 21 else "STAND")
        # The payouts: each box's net is the round's recorded net for that box.
        for box, net in _net_per_box(results[number]["net"]).items():
            line = rf"^  \S\S {box} .* net {re.escape(f'{net:+d}')}$"
            assert re.search(line, settled, re.M), (box, net, settled)
        assert re.search(r"^  shoe    online, \d+ of 312 cards left, penetration \d+\.\d%",
                         settled, re.M)
        assert "legend" in settled and "BUST: dealer over 21" in settled


def _net_per_box(net: dict[str, int]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for key, value in net.items():
        box = key.split("/")[0]
        totals[box] = totals.get(box, 0) + value
    return totals
