"""`tablectl journal`: where the journal is found, bad input (one line, exit 2, the
journal untouched), and the commands beside a running writer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from journal import Journal
from table.machine import Table
from table.profiles import load_profile
from tablectl.cli import main
from tests.tablectl.journal_writing import (
    ROUND_1,
    ROUND_2,
    ROUND_3,
    Daemon,
    files_in,
    run,
    three_rounds,
)


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return three_rounds(tmp_path)


# -- where the journal is -----------------------------------------------------------------


def test_the_default_journal_is_var_journal_sqlite_in_the_working_folder(
        journal: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "var").mkdir()
    journal.rename(tmp_path / "var" / "journal.sqlite")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "journal", "rounds")
    assert code == 0
    assert out.startswith("var/journal.sqlite: profile casinos-austria, 2 round(s) recorded")


def test_without_a_daemon_journal_the_simulated_tables_is_read_and_named(
        journal: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # What `tablectl run --sim` leaves in a fresh clone: var/sim-journal.sqlite only.
    (tmp_path / "var").mkdir()
    journal.rename(tmp_path / "var" / "sim-journal.sqlite")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "journal", "rounds")
    assert code == 0
    assert out.startswith("var/sim-journal.sqlite: profile casinos-austria, 2 round(s)")
    assert "reading var/sim-journal.sqlite (the simulated table's journal" in err
    # With both files, the daemon's is read and the other one is pointed at.
    Daemon(tmp_path / "var" / "journal.sqlite").close()
    code, out, err = run(capsys, "journal", "rounds")
    assert code == 0 and out.startswith("var/journal.sqlite: profile casinos-austria, 0 round")
    assert "the simulated table's is var/sim-journal.sqlite, read with --journal" in err


def test_export_writes_one_json_document_without_format(
        journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "journal", "export", "--journal", str(journal))
    assert code == 0
    doc = json.loads(out)
    assert doc["format"] == "table-scenario/1" and len(doc["rounds"]) == 2


def test_the_journal_path_from_a_config_file(
        journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "table.toml"
    config.write_text(
        '[table]\nprofile = "casinos-austria"\n\n'
        '[shoe]\ndriver = "shoelink"\nport = "/dev/serial/by-id/usb-Acme_Shoe_SHOE-0042-if00"\n\n'
        f'[journal]\npath = "{journal}"\n',
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "journal", "show", "2", "--config", str(config))
    assert code == 0 and out.startswith(f"round 2: void ({journal}")
    config.write_text('[journal]\npath = 7\n', encoding="utf-8")
    code, out, err = run(capsys, "journal", "rounds", "--config", str(config))
    assert code == 2 and out == ""
    assert err.startswith(f"error: {config}: ") and "[journal] path = 7" in err
    assert len(err.splitlines()) == 1


# -- bad input: one line, exit 2, the journal untouched ---------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["rounds", "--journal", "{dir}/missing.sqlite"],
         "error: no journal at {dir}/missing.sqlite (given with --journal); give the journal "
         "file with --journal PATH, or the daemon's config with --config PATH"),
        (["rounds", "--journal", "{dir}/notes.txt"],
         "error: {dir}/notes.txt is not a tablectl journal (not an SQLite file)"),
        (["show", "9", "--journal", "{journal}"],
         "error: round 9 is not in the journal: {journal} holds rounds 1 to 2, and round 3 "
         "not recorded yet; list them with `tablectl journal rounds`"),
        (["show", "first", "--journal", "{journal}"],
         "error: 'first' is not a round number; give a number from 1 up"),
        (["export", "--journal", "{journal}", "--format", "json", "--rounds", "3-x"],
         "error: --rounds '3-x': '3-x' is not a round number or range; write numbers and "
         "ranges from 1 up, low-high, separated by commas, e.g. 3-7,9"),
        (["export", "--journal", "{journal}", "--format", "json", "--rounds", "1,7-9"],
         "error: --rounds 1,7-9: round(s) 7-9 not recorded: {journal} holds rounds 1 to 2"),
        (["export", "--journal", "{journal}", "--format", "json", "--rounds", "2-3"],
         "(round 3 is not recorded yet: the daemon records a round when the next one "
         "begins)"),
        (["export", "--journal", "{journal}", "--format", "json", "-o", "{journal}"],
         "error: -o {journal} is the journal itself; write the export to another file"),
        (["export", "--journal", "{journal}", "--format", "json", "-o", "{dir}/no/x.json"],
         "error: -o {dir}/no/x.json: the folder {dir}/no does not exist; create it first"),
    ],
)
def test_bad_input_is_one_error_line_and_exit_2(
        journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        argv: list[str], message: str) -> None:
    (tmp_path / "notes.txt").write_text("not a journal\n" * 20, encoding="utf-8")
    before = files_in(tmp_path)
    fill = {"dir": str(tmp_path), "journal": str(journal)}
    code, out, err = run(capsys, "journal", *(arg.format(**fill) for arg in argv))
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1
    assert message.format(**fill) in err
    assert files_in(tmp_path) == before


def test_a_round_in_play_is_not_exported_and_an_empty_journal_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "journal.sqlite"
    daemon = Daemon(path)
    daemon.play(ROUND_3)
    daemon.close()
    code, _, err = run(capsys, "journal", "export", "--journal", str(path), "--format", "json")
    assert code == 2
    assert err == f"error: {path} holds no recorded round yet; nothing to export\n"


# -- beside the running daemon ---------------------------------------------------------------


def test_the_commands_do_not_disturb_a_running_writer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "journal.sqlite"
    daemon = Daemon(path)
    daemon.play(ROUND_1 + ROUND_2[:3])
    main_file = path.read_bytes()
    for argv in (["rounds"], ["show", "1"], ["show", "2", "--json"],
                 ["export", "--format", "jsonl"]):
        code, _, err = run(capsys, "journal", *argv, "--journal", str(path))
        assert (code, err) == (0, "")
    assert path.read_bytes() == main_file
    daemon.play(ROUND_2[3:] + ROUND_3)  # the daemon goes on storing and recording
    assert daemon.journal.last_committed_seq == 26 and daemon.recorded == 2
    code, out, _ = run(capsys, "journal", "rounds", "--journal", str(path))
    assert code == 0 and "CARD_OUT_OF_ORDER" in out
    daemon.close()


def test_a_journal_written_by_the_table_service_reads_and_replays(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The daemon's own loop writes the journal; the commands agree with what it recorded."""
    from tablectl.service import Submission, TableService

    path = tmp_path / "journal.sqlite"
    with Journal(path, profile="casinos-austria") as written:
        service = TableService(Table(load_profile("casinos-austria")), written)
        for event, source, ref in ROUND_1 + ROUND_2 + ROUND_3:
            service.process([Submission(event, source, ref)])
        recorded = [r.result for r in written.rounds()]
    assert [(r["status"], r["net"]) for r in recorded] == [
        ("settled", {"box1/main": 200, "box2/dealer_bust": -10, "box2/main": -50}),
        ("void", {"box1/main": 0, "box2/main": 0}),
    ]
    code, out, _ = run(capsys, "journal", "rounds", "--journal", str(path), "--json")
    listed = json.loads(out)
    assert [(r["round"], r["status"], r["house"]) for r in listed["rounds"]] == [
        (1, "settled", -140), (2, "void", 0)]
    assert (listed["open"]["round"], listed["open"]["status"]) == (3, "open")
    target = tmp_path / "rounds.jsonl"
    assert main(["journal", "export", "--journal", str(path), "--format", "jsonl",
                 "-o", str(target)]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, "replay", str(target), "--json")
    lines = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert code == 0 and json.loads(out)["rounds"] == [line["expect"] for line in lines[1:]]
