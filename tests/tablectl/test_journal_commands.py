"""`tablectl journal rounds | show | export` on real journals written the way the
daemon writes them (tests/tablectl/journal_writing.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from journal import JournalReader
from tests.tablectl.journal_writing import (
    ROUND_1,
    ROUND_2,
    ROUND_3,
    Daemon,
    run,
    three_rounds,
)


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return three_rounds(tmp_path)


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
