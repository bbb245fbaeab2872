"""The math report: generated with its rules, bets, chart and curves."""

from __future__ import annotations

from pathlib import Path

import pytest

from houseedge.report import write_report
from table.profiles import load_profile
from tablectl.cli import main


def test_report_of_a_casino_profile(tmp_path: Path) -> None:
    path = write_report(load_profile("live-studio"), tmp_path, hands=40_000, decks=(6, 8))
    text = path.read_text(encoding="utf-8")
    for part in ("## Rules", "`decks` | `8`", "## Every bet", "| pair | 10.3614% |",
                 "## Basic strategy", "A-A", "| decks | house edge (analysis) |",
                 "| penetration |", "simulation"):
        assert part in text


def test_report_of_the_banker_game_says_why_it_has_no_edge(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rtp", "pontoon-british", "--report", str(tmp_path)]) == 0
    assert "pontoon-british.md" in capsys.readouterr().out
    text = (tmp_path / "pontoon-british.md").read_text(encoding="utf-8")
    assert "No house edge" in text and "draws to 17" in text and "stick" in text
