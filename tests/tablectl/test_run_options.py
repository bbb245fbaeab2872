"""`tablectl run`'s options are applied or refused, never ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl.cli import main


def test_simulated_table_options_with_a_config_are_refused_each_with_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[shoe]\nport = "loop://"\n', encoding="utf-8")
    code = main(["run", "--config", str(config), "--profile", "st-moritz", "--rounds", "3",
                 "--seed", "4"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--profile: a configured table's profile is [table] profile" in err
    assert "--rounds: a configured table plays until it is stopped" in err
    assert "--seed: a real shoe and dealer are not seeded" in err


def test_sim_check_validates_and_exits_without_playing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--sim", "--check", "--rounds", "2", "--profile", "st-moritz"]) == 0
    out = capsys.readouterr().out
    assert "the options are valid (profile st-moritz, 7 boxes, 2 rounds" in out
    assert not (tmp_path / "var").exists()  # nothing was played, no journal made
    (tmp_path / "afile").write_text("", encoding="utf-8")
    assert main(["run", "--sim", "--check", "--profile", "atlantis", "--faults", "x=1"]) == 2
    err = capsys.readouterr().err
    assert "2 problem(s)" in err and "--profile: profile 'atlantis'" in err and "--faults" in err
    assert main(["run", "--sim", "--check", "--journal", "afile/j.sqlite"]) == 2
    assert "afile is not a folder" in capsys.readouterr().err


def test_sim_check_refuses_a_journal_of_another_profile(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from journal import Journal

    Journal(tmp_path / "j.sqlite", profile="st-moritz").close()
    assert main(["run", "--sim", "--check", "--journal", str(tmp_path / "j.sqlite")]) == 2
    assert "written under profile 'st-moritz', not 'casinos-austria'" in capsys.readouterr().err
