"""Scenarios: malformed input is rejected with where and what; replays are byte-identical."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from table.conformance import check_scenario
from table.events import ScenarioError, parse_event
from table.scenario import load_scenario, run_scenario

SCENARIO: dict[str, Any] = {
    "format": "table-scenario/1",
    "name": "two rounds with a misdeal and a co-bettor",
    "profile": "casinos-austria",
    "rounds": [
        {"events": [{"bet": {"box": 1, "amount": 100}},
                    {"bet": {"box": 1, "amount": 50, "player": "anna"}},
                    {"bet": {"box": 2, "amount": 40}}, {"deal": {}},
                    {"card": "9S"}, {"card": "8D"}, {"card": "6C"}, {"card": "9H"},
                    {"card": "3D"}, {"do": {"box": 1, "action": "split"}}, {"card": "2C"},
                    {"do": {"box": 1, "action": "double"}},
                    {"do": {"box": 1, "action": "follow", "player": "anna"}},
                    {"card": "9C"}, {"card": "KD"}, {"do": {"box": 1, "action": "stand"}},
                    {"do": {"box": 2, "action": "surrender"}},
                    {"do": {"box": 2, "action": "stand"}}, {"card": "TH"},
                    {"card": "7S"}]},
        {"events": [{"bet": {"box": 3, "amount": 25}}, {"card": "5H"},
                    {"resolve": "accept"}, {"deal": {}}, {"card": "AS"}, {"card": "7D"},
                    {"card": "KH"}]},
    ],
}


def test_replaying_the_same_events_gives_byte_identical_output() -> None:
    first = json.dumps(run_scenario(SCENARIO), sort_keys=True)
    second = json.dumps(run_scenario(json.loads(json.dumps(SCENARIO))), sort_keys=True)
    assert first == second
    rounds = json.loads(first)["rounds"]
    # Round 1: box 1 splits its 9s: 9+2 doubled to 20 (anna follows the split by rule and
    # the double by choice), 9+K = 19; box 2 may not surrender and stands on 11; the dealer
    # 6+10+7 busts: box 1 wins 200 + 100, anna 100 + 50, box 2 40.
    assert rounds[0]["status"] == "settled"
    assert rounds[0]["net"] == {"anna/main": 150, "box1/main": 300, "box2/main": 40}
    assert rounds[0]["refused"][0]["reason"].startswith("this table has no surrender")
    assert rounds[0]["refused"][0]["position"] == "round 1, event 17"
    assert rounds[1]["net"] == {"box3/main": 37} and rounds[1]["flags"] == ["EXTRA_CARD"]


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ({"card": "1X"}, "unknown card '1X'"),
        ({"bet": {"box": 0, "amount": 10}}, "box must be a box number 1 to 7, got 0"),
        ({"bet": {"box": 1, "amount": -5}}, "amount must be positive, got -5"),
        ({"bet": {"box": 1, "amount": 2.5}}, "whole number of units"),
        ({"bet": {"box": 1, "amount": 5, "spot": "side"}}, "unknown spot 'side'"),
        ({"do": {"box": 1, "action": "fold"}}, "unknown action 'fold'"),
        ({"resolve": "maybe"}, "resolve must be 'void' or 'accept'"),
        ({"deal": {}, "card": "AS"}, "exactly one of"),
        ({"bet": {"box": 1}}, 'a bet needs "box" and "amount"'),
    ],
)
def test_a_malformed_event_names_its_position_and_what_is_wrong(event: dict[str, Any],
                                                                message: str) -> None:
    with pytest.raises(ScenarioError) as error:
        parse_event(event, 4)
    assert error.value.position == "event 4"
    assert message in str(error.value)


def test_a_malformed_scenario_file_names_the_line_of_the_bad_event(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(
        '{"format": "table-scenario/1", "profile": "casinos-austria", "rounds": [\n'
        ' {"events": [\n'
        '   {"bet": {"box": 1, "amount": 100}},\n'
        '   {"deal": {}},\n'
        '   {"card": "1X"}\n'
        ' ]}\n'
        ']}\n',
        encoding="utf-8",
    )
    with pytest.raises(ScenarioError) as error:
        load_scenario(path)
    text = str(error.value)
    assert "round 1, event 3 (line 5)" in text and "unknown card '1X'" in text


def test_invalid_json_and_unknown_profiles_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"rounds": [\n', encoding="utf-8")
    with pytest.raises(ScenarioError, match="line 2"):
        load_scenario(path)
    with pytest.raises(ScenarioError, match="no such profile"):
        run_scenario({"profile": "nowhere", "rounds": []})


def test_check_scenario_reports_each_difference() -> None:
    doc = {"profile": "casinos-austria", "rounds": [
        {"events": [{"bet": {"box": 1, "amount": 100}}, {"deal": {}}, {"card": "AS"},
                    {"card": "9C"}, {"card": "KH"}],
         "expect": {"status": "settled", "net": {"box1/main": 100}, "dealer": ["9C"]}}]}
    differences = check_scenario(doc)
    assert differences == ['round 1: net: expected {"box1/main": 100}, got {"box1/main": 150} '
                           "(box1/main: expected 100, got 150)"]


def test_json_lines_scenarios_load_as_the_same_document(tmp_path: Path) -> None:
    from table.scenario import to_jsonl

    text = to_jsonl(SCENARIO)
    lines = text.splitlines()
    assert len(lines) == 1 + len(SCENARIO["rounds"])
    assert json.loads(lines[0]) == {k: v for k, v in SCENARIO.items() if k != "rounds"}
    assert [json.loads(line) for line in lines[1:]] == SCENARIO["rounds"]
    for name in ("case.jsonl", "case.json"):  # found by its suffix, or by its header line
        path = tmp_path / name
        path.write_text(text + "\n", encoding="utf-8")  # blank lines are skipped
        assert load_scenario(path) == SCENARIO
        assert run_scenario(load_scenario(path)) == run_scenario(SCENARIO)


def test_a_bad_json_lines_scenario_names_its_line(tmp_path: Path) -> None:
    from table.scenario import to_jsonl

    bad = json.loads(json.dumps(SCENARIO))
    bad["rounds"][1]["events"][1] = {"card": "1X"}
    path = tmp_path / "bad.jsonl"
    path.write_text(to_jsonl(bad), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"round 2, event 2 \(line 3\).*unknown card"):
        load_scenario(path)
    path.write_text('{"format": "table-scenario/1", "profile": "casinos-austria"}\n{"events": [\n',
                    encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"bad.jsonl, line 2.*one JSON object a line"):
        load_scenario(path)
    path.write_text(json.dumps(SCENARIO) + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"line 1.*header .* without \"rounds\""):
        load_scenario(path)
    path.write_text("", encoding="utf-8")
    with pytest.raises(ScenarioError, match="empty"):
        load_scenario(path)
    header_only = tmp_path / "none.jsonl"
    header_only.write_text('{"profile": "casinos-austria"}\n', encoding="utf-8")
    assert load_scenario(header_only) == {"profile": "casinos-austria", "rounds": []}


def test_a_bad_profile_or_override_names_the_file_and_the_line_of_its_key(
        tmp_path: Path) -> None:
    path = tmp_path / "case.json"
    body = ('{"format": "table-scenario/1",\n "profile": "%s",\n "rules": %s,\n'
            ' "rounds": [{"events": [{"bet": {"box": 1, "amount": 100}}]}]}\n')
    for profile, rules, line, message in [
        ("atlantis", "{}", 2, "profile 'atlantis': no such profile"),
        ("casinos-austria", '{"deks": 6}', 3, "key 'deks': unknown key"),
        ("casinos-austria", '{"decks": "six"}', 3, "key 'decks': expected an integer"),
        ("live-studio", '{"hole_card": "maybe"}', 3, "'maybe' is not allowed"),
        ("casinos-austria", "[6]", 3, '"rules" must be an object'),
    ]:
        path.write_text(body % (profile, rules), encoding="utf-8")
        with pytest.raises(ScenarioError) as error:
            load_scenario(path)
        assert error.value.position == f"{path}, line {line}"
        assert message in error.value.message


def test_an_event_seen_before_is_parsed_alike_and_a_lookalike_is_still_refused() -> None:
    good = {"bet": {"box": 1, "amount": 10}}
    assert parse_event(good, 1) == parse_event(json.loads(json.dumps(good)), 2)
    # JSON's true equals 1 in Python: the event parsed before must not stand for it.
    for event in ({"bet": {"box": True, "amount": 10}}, {"bet": {"box": 1, "amount": True}},
                  {"bet": {"box": "1", "amount": 10}}, {"do": {"box": 1, "action": 1}}):
        with pytest.raises(ScenarioError):
            parse_event(event, 3)
    assert parse_event({"card": "ts"}, 1) == parse_event({"card": "TS"}, 2)
    assert parse_event({"card": "TS", "box": 2}, 1).box == 2


def test_a_bad_event_late_in_a_long_file_names_its_line(tmp_path: Path) -> None:
    # 200 rounds of 7 events, one event a line after a line for the round's start:
    # round r's event e is on line 2 + (r - 1) * 9 + e.
    events = [{"bet": {"box": 1, "amount": 10}}, {"deal": {}}, {"card": "TS"},
              {"card": "7H"}, {"card": "9C"}, {"do": {"box": 1, "action": "stand"}},
              {"card": "KS"}]
    rounds = []
    for r in range(200):
        body = [json.dumps(event) for event in events]
        if r == 149:
            body[5] = json.dumps({"do": {"box": 1, "action": "fold"}})
        rounds.append(' {"events": [\n  ' + ",\n  ".join(body) + "\n ]}")
    path = tmp_path / "long.json"
    path.write_text('{"format": "table-scenario/1", "profile": "casinos-austria", "rounds": [\n'
                    + ",\n".join(rounds) + "\n]}\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as error:
        load_scenario(path)
    assert f"round 150, event 6 (line {2 + 149 * 9 + 6})" in str(error.value)
    assert "unknown action 'fold'" in str(error.value)
