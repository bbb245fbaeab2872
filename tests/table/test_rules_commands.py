"""The replay, conformance and profiles commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablectl.cli import main

CASE = {
    "format": "table-scenario/1", "profile": "casinos-austria",
    "rounds": [{"events": [{"bet": {"box": 1, "amount": 100}}, {"deal": {}}, {"card": "TS"},
                           {"card": "7H"}, {"card": "9C"}, {"do": {"box": 1, "action": "stand"}},
                           {"card": "KS"}],
                "expect": {"status": "settled", "flags": [], "net": {"box1/main": 100},
                           "dealer": ["7H", "KS"]}}],
}


def _write(folder: Path, name: str, doc: object) -> Path:
    path = folder / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_replay_json_prints_the_result_object(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "case.json", CASE)
    assert main(["replay", str(path), "--json"]) == 0
    first = capsys.readouterr().out
    assert json.loads(first)["rounds"][0]["net"] == {"box1/main": 100}
    assert main(["replay", str(path), "--json"]) == 0
    assert capsys.readouterr().out == first


def test_replay_of_a_malformed_file_fails_with_the_position(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = json.loads(json.dumps(CASE))
    bad["rounds"][0]["events"][0] = {"bet": {"box": 0, "amount": 100}}
    path = _write(tmp_path, "bad.json", bad)
    assert main(["replay", str(path), "--json"]) == 2
    assert "round 1, event 1" in capsys.readouterr().err


def test_conformance_reports_each_case_and_fails_on_a_difference(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, "01-pass.json", CASE)
    assert main(["conformance", str(tmp_path)]) == 0
    assert "pass 01-pass.json" in capsys.readouterr().out
    wrong = json.loads(json.dumps(CASE))
    wrong["rounds"][0]["expect"]["net"] = {"box1/main": 150}
    _write(tmp_path, "02-fail.json", wrong)
    assert main(["conformance", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL 02-fail.json" in out and "box1/main: expected 150, got 100" in out


def test_conformance_runs_the_shared_cases_when_present(
        capsys: pytest.CaptureFixture[str]) -> None:
    shared = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "cases"
    if not shared.is_dir():
        pytest.skip("the shared conformance cases are not beside this checkout")
    assert main(["conformance", str(shared)]) == 0
    assert "0 failed" in capsys.readouterr().out


def test_profiles_list_and_show(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["profiles"]) == 0
    listing = capsys.readouterr().out
    assert "pontoon-british" in listing and "st-moritz-65" in listing
    assert main(["profiles", "show", "live-studio"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["decks"] == 8 and shown["decision_timeout"] == "hit_to_12"
    assert main(["profiles", "show", "atlantis"]) == 2
    assert "no such profile" in capsys.readouterr().err


def test_replay_checks_the_expect_blocks_and_fails_on_a_difference(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "case.json", CASE)
    assert main(["replay", str(path)]) == 0
    assert "1 round(s) as expected" in capsys.readouterr().err
    # Box 1 stands on 19 against the dealer's 7 + K = 17: it wins its 100, not 150.
    wrong = json.loads(json.dumps(CASE))
    wrong["rounds"][0]["expect"]["net"] = {"box1/main": 150}
    wrong["rounds"][0]["expect"]["dealer"] = ["7H", "KS", "2C"]
    path = _write(tmp_path, "wrong.json", wrong)
    for extra in ([], ["--json"]):
        assert main(["replay", str(path), *extra]) == 1
        captured = capsys.readouterr()
        assert "round 1: net: expected" in captured.err and "box1/main: expected 150, got 100" \
            in captured.err
        assert "round 1: dealer: expected" in captured.err
        assert "2 difference(s)" in captured.err
        if extra:  # the result still comes out, whole, on stdout
            assert json.loads(captured.out)["rounds"][0]["net"] == {"box1/main": 100}


def test_replay_json_writes_one_round_a_line(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(json.dumps(CASE))
    doc["rounds"] = [{"events": doc["rounds"][0]["events"]} for _ in range(3)]
    path = _write(tmp_path, "three.json", doc)
    assert main(["replay", str(path), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 5 and lines[0] == '{"rounds": [' and lines[-1] == "]}"
    assert [json.loads(line.rstrip(","))["round"] for line in lines[1:-1]] == [1, 2, 3]
