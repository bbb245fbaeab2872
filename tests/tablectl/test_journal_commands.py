"""`tablectl journal rounds | show | export` on real journals, written the way
the daemon writes them: each event applied to a `Table`, appended with its
source (and the table's reason when it refused it) and committed; a round is
recorded when the next one begins (just before the event that began it is
appended), so events after a settlement, such as a new shoe, still belong to
it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from journal import Journal, JournalReader
from table.machine import Table
from table.profiles import load_profile
from tablectl.cli import main

Item = tuple[dict[str, Any], str, str | None]

# Round 1 (casinos-austria: 6 decks, no hole card, dealer stands on soft 17).
# Box 1 bets 100, box 2 bets 50 plus 10 on Dealer Bust. Deal: box 1 6S, box 2 TH,
# dealer 5D, box 1 5C (11), box 2 7H (17). A split for box 2 comes while box 1
# plays: refused. Box 1 doubles (stake 200) and draws 9S: 20. Box 2 stands on 17.
# Dealer 5D TC = 15 draws 3H = 18 and stands.
#   box 1: 20 beats 18, stake 200 paid back 400: net +200
#   box 2: 17 loses to 18: -50; Dealer Bust lost (the dealer has 18): -10
#   house: -200 + 50 + 10 = -140; staked 200 + 50 + 10 = 260
ROUND_1: list[Item] = [
    ({"bet": {"box": 1, "amount": 100}}, "api", None),
    ({"bet": {"box": 2, "amount": 50}}, "api", None),
    ({"bet": {"box": 2, "amount": 10, "spot": "dealer_bust"}}, "api", None),
    ({"deal": {}}, "button", None),
    ({"card": "6S"}, "shoe", "11:1"),
    ({"card": "TH"}, "shoe", "12:2"),
    ({"card": "5D"}, "shoe", "13:3"),
    ({"card": "5C"}, "shoe", "14:4"),
    ({"card": "7H"}, "shoe", "15:5"),
    ({"do": {"box": 2, "action": "split"}}, "button", None),
    ({"do": {"box": 1, "action": "double"}}, "button", None),
    ({"card": "9S"}, "shoe", "16:6"),
    ({"do": {"box": 2, "action": "stand"}}, "button", None),
    ({"card": "TC"}, "shoe", "17:7"),
    ({"card": "3H"}, "shoe", "18:8"),
]
# Round 2: box 1 and box 2 bet 100. The camera sees 9S land on box 1, then 6H on
# the dealer's spot while box 2 is due: CARD_OUT_OF_ORDER halts the round; the pit
# voids it and every bet is returned (net 0).
ROUND_2: list[Item] = [
    ({"bet": {"box": 1, "amount": 100}}, "api", None),
    ({"bet": {"box": 2, "amount": 100}}, "api", None),
    ({"deal": {}}, "button", None),
    ({"card": "9S", "box": 1}, "camera", None),
    ({"card": "6H", "box": "dealer"}, "camera", None),
    ({"resolve": "void"}, "button", None),
]
# Then a new shoe (still round 2's: no round has begun) and round 3, in play:
# a bet and two cards.
ROUND_3: list[Item] = [
    ({"shoe": "loaded"}, "shoe", "19:0"),
    ({"bet": {"box": 1, "amount": 100}}, "api", None),
    ({"deal": {}}, "button", None),
    ({"card": "8S"}, "shoe", "20:1"),
    ({"card": "7D"}, "shoe", "21:2"),
]


class Daemon:
    """Plays events into a table and its journal as the daemon's loop does."""

    def __init__(self, path: Path) -> None:
        self.table = Table(load_profile("casinos-austria"))
        self.journal = Journal(path, profile="casinos-austria")
        self.recorded = 0

    def play(self, items: list[Item]) -> None:
        for event, source, ref in items:
            outcome = self.table.apply(event)
            for result in self.table.results(since=self.recorded):
                if result["round"] >= self.table.rounds_played:
                    break
                self.journal.record_round(result["round"], result)
                self.recorded = result["round"]
            self.journal.append(event, source, ref,
                                refused=None if outcome.accepted else outcome.reason)
            self.journal.commit()

    def close(self) -> None:
        self.journal.close()


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    path = tmp_path / "journal.sqlite"
    daemon = Daemon(path)
    daemon.play(ROUND_1 + ROUND_2 + ROUND_3)
    daemon.close()
    return path


def files_in(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- rounds ------------------------------------------------------------------------


def test_rounds_lists_each_round_and_the_one_in_play(
        journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "journal", "rounds", "--journal", str(journal))
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"{journal}: profile casinos-austria, 2 round(s) recorded",
        "round  status   seq    staked  flags              net",
        "    1  settled  1-15      260  -                  box1 +200, box2 -60; house -140",
        "    2  void     16-22       -  CARD_OUT_OF_ORDER  box1 0, box2 0; house 0",
        "    3  open     23-26       -  -                  in play: 4 event(s), not settled yet",
    ]


def test_rounds_json(journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "journal", "rounds", "--journal", str(journal), "--json")
    assert code == 0
    listed = json.loads(out)
    assert listed["profile"] == "casinos-austria" and listed["rules"] == {}
    assert listed["rounds"] == [
        {"round": 1, "status": "settled", "flags": [], "start_seq": 1, "end_seq": 15,
         "staked": 260, "net": {"box1": 200, "box2": -60}, "house": -140},
        {"round": 2, "status": "void", "flags": ["CARD_OUT_OF_ORDER"], "start_seq": 16,
         "end_seq": 22, "staked": None, "net": {"box1": 0, "box2": 0}, "house": 0},
    ]
    assert listed["open"] == {"round": 3, "status": "open", "start_seq": 23, "end_seq": 26,
                              "events": 4}


def test_rounds_of_a_fresh_journal_with_no_bet_yet(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "journal.sqlite"
    daemon = Daemon(path)
    daemon.play(ROUND_3[:1])  # the shoe is loaded, no bet yet
    daemon.close()
    code, out, _ = run(capsys, "journal", "rounds", "--journal", str(path))
    assert code == 0
    assert out.splitlines()[1:] == [
        "round  status   seq  staked  flags  net",
        "    -  between  1-1       -  -      1 event(s), no bet yet",
    ]
    code, out, _ = run(capsys, "journal", "rounds", "--journal", str(path), "--json")
    assert json.loads(out)["open"] == {"round": None, "status": "between", "start_seq": 1,
                                       "end_seq": 1, "events": 1}


def test_a_finished_round_not_recorded_yet_is_shown_from_a_replay(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Round 1 is settled, but the daemon records it only when round 2 begins.
    path = tmp_path / "journal.sqlite"
    daemon = Daemon(path)
    daemon.play(ROUND_1)
    daemon.close()
    code, out, _ = run(capsys, "journal", "rounds", "--journal", str(path))
    assert code == 0
    assert out.splitlines()[1:] == [
        "round  status    seq   staked  flags  net",
        "    1  settled*  1-15     260  -      box1 +200, box2 -60; house -140",
        "* round 1 is over but not recorded yet (the daemon records a round when the next "
        "one begins); its figures come from replaying the journal",
    ]
    code, out, _ = run(capsys, "journal", "show", "1", "--journal", str(path))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("round 1: settled, not recorded yet (")
    assert "  box1    main           1     1    200     400  20 beats 18" in lines
    code, out, _ = run(capsys, "journal", "show", "1", "--journal", str(path), "--json")
    shown = json.loads(out)
    assert (shown["recorded"], shown["status"], shown["result"]) == (False, "settled", None)
    assert shown["replayed_result"]["net"] == {"box1/main": 200, "box2/dealer_bust": -10,
                                               "box2/main": -50}
    code, _, err = run(capsys, "journal", "export", "--journal", str(path), "--format", "json")
    assert code == 2 and "holds no recorded round yet" in err


# -- show ----------------------------------------------------------------------------


def test_show_a_settled_round_for_the_pit(journal: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "journal", "show", "1", "--journal", str(journal))
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"round 1: settled ({journal}, profile casinos-austria, seq 1-15)",
        "seq  source     event",
        "  1  api        bet 100 on box 1 main",
        "  2  api        bet 50 on box 2 main",
        "  3  api        bet 10 on box 2 dealer_bust",
        "  4  button     deal (no more bets)",
        "  5  shoe 11:1  card 6S  -> box 1, hand 1",
        "  6  shoe 12:2  card TH  -> box 2, hand 1",
        "  7  shoe 13:3  card 5D  -> dealer",
        "  8  shoe 14:4  card 5C  -> box 1, hand 1",
        "  9  shoe 15:5  card 7H  -> box 2, hand 1",
        " 10  button     box 2 split  REFUSED: box 2 is not up: box 1 plays now",
        " 11  button     box 1 double",
        " 12  shoe 16:6  card 9S  -> box 1, hand 1",
        " 13  button     box 2 stand",
        " 14  shoe 17:7  card TC  -> dealer",
        " 15  shoe 18:8  card 3H  -> dealer",
        "flags: none",
        "dealer: 5D TC 3H (18)",
        "box 1, hand 1: 6S 5C 9S = 20, stood",
        "box 2, hand 1: TH 7H = 17, stood",
        "settlement:",
        "  player  spot         box  hand  stake  payout  rule",
        "  box1    main           1     1    200     400  20 beats 18",
        "  box2    main           2     1     50       0  17 loses to 18",
        "  box2    dealer_bust    2     -     10       0  dealer bust lost",
        "net: box1 +200, box2 -60; house -140 "
        "(box1/main +200, box2/dealer_bust -10, box2/main -50)",
    ]


def test_show_a_void_round(journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "journal", "show", "2", "--journal", str(journal))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"round 2: void ({journal}, profile casinos-austria, seq 16-22)"
    assert " 19  camera     card 9S (seen on box 1)  -> box 1, hand 1" in lines
    assert (" 20  camera     card 6H (seen on the dealer's spot)  -> not dealt  "
            "FLAG CARD_OUT_OF_ORDER") in lines
    assert " 21  button     pit resolution: void" in lines
    assert " 22  shoe 19:0  new shoe loaded" in lines  # after the void, before round 3
    assert "flags: CARD_OUT_OF_ORDER" in lines
    assert "settlement: none, the round is void: every bet is returned" in lines
    assert lines[-1] == "net: box1 0, box2 0; house 0 (box1/main 0, box2/main 0)"


def test_show_the_round_in_play(journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "journal", "show", "3", "--journal", str(journal))
    assert code == 0
    assert out.splitlines()[1:] == [
        "seq  source     event",
        " 23  api        bet 100 on box 1 main",
        " 24  button     deal (no more bets)",
        " 25  shoe 20:1  card 8S  -> box 1, hand 1",
        " 26  shoe 21:2  card 7D  -> dealer",
        "in play: no result recorded yet",
    ]
    assert out.startswith("round 3: open (")


def test_show_json_gives_the_events_and_the_stored_result(
        journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "journal", "show", "1", "--journal", str(journal), "--json")
    assert code == 0
    shown = json.loads(out)
    assert (shown["round"], shown["status"], shown["start_seq"], shown["end_seq"]) == (
        1, "settled", 1, 15)
    assert [(e["seq"], e["source"], e["source_ref"], e["event"]) for e in shown["events"]] == [
        (seq, source, ref, event) for seq, (event, source, ref) in enumerate(ROUND_1, 1)]
    with JournalReader(journal) as stored:
        assert shown["result"] == stored.round_record(1).result
    assert shown["result"]["net"] == {"box1/main": 200, "box2/dealer_bust": -10,
                                      "box2/main": -50}
    code, out, _ = run(capsys, "journal", "show", "3", "--journal", str(journal), "--json")
    assert json.loads(out)["result"] is None and json.loads(out)["status"] == "open"


# -- export ----------------------------------------------------------------------------


def test_export_jsonl_replays_to_the_recorded_results(
        journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "export.jsonl"
    code, out, _ = run(capsys, "journal", "export", "--journal", str(journal),
                       "--format", "jsonl", "-o", str(target))
    assert code == 0 and out == f"wrote 2 round(s) of {journal} to {target} (jsonl)\n"
    lines = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert lines[0] == {"format": "table-scenario/1", "name": "journal.sqlite: rounds 1-2",
                        "profile": "casinos-austria"}
    assert [line["journal_round"] for line in lines[1:]] == [1, 2]
    assert lines[1]["events"] == [event for event, _, _ in ROUND_1]
    assert lines[2]["events"] == [event for event, _, _ in ROUND_2 + ROUND_3[:1]]
    code, out, _ = run(capsys, "replay", str(target), "--json")
    assert code == 0
    replayed = json.loads(out)["rounds"]
    assert replayed == [line["expect"] for line in lines[1:]]
    assert [r["net"] for r in replayed] == [
        {"box1/main": 200, "box2/dealer_bust": -10, "box2/main": -50},
        {"box1/main": 0, "box2/main": 0},
    ]
    with JournalReader(journal) as stored:
        recorded = [r.result for r in stored.rounds()]
    for before, again in zip(recorded, replayed, strict=True):  # only the numbering differs
        assert {**before, "refused": []} == {**again, "refused": []}
        assert [r["reason"] for r in before["refused"]] == [r["reason"] for r in again["refused"]]


def test_export_json_is_a_scenario_that_passes_conformance(
        journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "journal", "export", "--journal", str(journal), "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["format"] == "table-scenario/1" and len(doc["rounds"]) == 2
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "journal.json").write_text(out, encoding="utf-8")
    code, out, _ = run(capsys, "conformance", str(folder))
    assert code == 0 and "pass journal.json" in out


def test_export_a_selection_of_rounds(journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "journal", "export", "--journal", str(journal),
                       "--format", "json", "--rounds", "2")
    assert code == 0
    doc = json.loads(out)
    assert doc["name"] == "journal.sqlite: round 2"
    assert [r["journal_round"] for r in doc["rounds"]] == [2]
    assert doc["rounds"][0]["expect"]["round"] == 1  # the replay's numbering
    code, out, _ = run(capsys, "journal", "export", "--journal", str(journal),
                       "--format", "jsonl", "--rounds", "2,1-2")
    assert code == 0
    assert [json.loads(line).get("journal_round") for line in out.splitlines()] == [None, 1, 2]


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
