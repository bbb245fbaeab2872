"""`tablectl journal check` and `journal salvage` on a really damaged journal."""

from __future__ import annotations

from pathlib import Path

import pytest

from journal import Journal
from tablectl.cli import main
from tests.journal.helpers import damaged_journal


def test_check_reports_the_damage_and_salvage_copies_what_is_readable(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = damaged_journal(tmp_path)
    assert main(["journal", "check", "--journal", str(path)]) == 1
    out = capsys.readouterr().out
    assert "DAMAGED" in out and "events not readable:" in out
    assert "journal salvage" in out

    copy = tmp_path / "new.sqlite"
    assert main(["journal", "salvage", "--journal", str(path), "-o", str(copy)]) == 0
    out = capsys.readouterr().out
    with Journal(copy, profile="casinos-austria") as journal:
        stored = sum(1 for _ in journal.events())
    assert f"copied {stored} event(s)" in out and 0 < stored < 2000
    # A second salvage to the same file is refused in one line, the copy kept.
    assert main(["journal", "salvage", "--journal", str(path), "-o", str(copy)]) == 2
    assert "already exists" in capsys.readouterr().err


def test_check_of_an_intact_journal_says_so(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "journal.sqlite"
    with Journal(path, profile="casinos-austria") as journal:
        journal.append({"deal": {}}, "button")
        journal.commit()
    assert main(["journal", "check", "--journal", str(path)]) == 0
    assert "intact" in capsys.readouterr().out
