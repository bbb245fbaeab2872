"""Every project case file is a well-formed `table-scenario/1` document.

These checks need no engine: they keep the hand-worked cases honest (right
format, known profiles, events and codes spelled as the format says, an
expectation and its arithmetic on every round).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.cases.scenario_files import PROJECT_CASES, load_scenario, scenario_paths

PROFILES = {
    "casinos-austria",
    "st-moritz",
    "st-moritz-65",
    "live-studio",
    "pontoon-sydney",
    "pontoon-british",
    "pontoon-online",
    "ru-casino",
}
SPOTS = {"main", "insurance", "pair", "dealer_bust", "3cw", "queens", "sevens"}
ACTIONS = {
    "hit", "stand", "double", "split", "surrender", "insurance", "even_money", "rescue",
    "buy", "twist", "follow", "decline", "timeout",
}
FLAGS = {
    "CARD_OUT_OF_ORDER", "CARD_TO_EMPTY_BOX", "EXTRA_CARD", "DEALER_DREW_ON_STAND",
    "DEALER_STOOD_ON_DRAW", "IMPOSSIBLE_CARD", "UNREADABLE_CARD", "SHOE_CAMERA_MISMATCH",
    "CARD_NOT_FROM_SHOE", "CUT_CARD", "SHOE_OFFLINE",
}
STATUSES = {"settled", "void", "open"}
CARD = re.compile(r"^(10|[2-9TJQKA])[SHDC]$")
FILE_NAME = re.compile(r"^(\d{2,3})-([a-z0-9-]+)\.json$")
NET_KEY = re.compile(r"^[A-Za-z0-9_]+/[a-z0-9_]+$")

PATHS = scenario_paths(PROJECT_CASES)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _event_problems(event: Any) -> list[str]:
    if not isinstance(event, dict) or len(event) != 1:
        return [f"an event is an object with exactly one key, got {event!r}"]
    (kind, body), = event.items()
    if kind == "bet":
        problems = []
        if not _is_int(body.get("box")) or body["box"] < 1:
            problems.append(f"bet needs a box number >= 1: {body!r}")
        if not _is_int(body.get("amount")) or body["amount"] <= 0:
            problems.append(f"bet needs a positive integer amount: {body!r}")
        if body.get("spot", "main") not in SPOTS:
            problems.append(f"unknown spot {body.get('spot')!r}")
        return problems
    if kind == "deal":
        return [] if body == {} else [f"deal takes an empty object: {body!r}"]
    if kind == "card":
        return [] if isinstance(body, str) and CARD.match(body) else [f"bad card {body!r}"]
    if kind == "do":
        problems = []
        if body.get("action") not in ACTIONS:
            problems.append(f"unknown action {body.get('action')!r}")
        box = body.get("box")
        if box != "dealer" and not (_is_int(box) and box >= 1):
            problems.append(f"do needs a box number or 'dealer': {body!r}")
        if box == "dealer" and body.get("action") != "stand":
            problems.append(f"the dealer can only stand: {body!r}")
        if "amount" in body and (not _is_int(body["amount"]) or body["amount"] <= 0):
            problems.append(f"do amount must be a positive integer: {body!r}")
        return problems
    if kind == "resolve":
        return [] if body in ("void", "accept") else [f"resolve is void or accept: {body!r}"]
    if kind == "shoe":
        return [] if body in ("loaded", "cut_card") else [f"shoe is loaded or cut_card: {body!r}"]
    return [f"unknown event kind {kind!r}"]


def _card_event_problems(event: dict[str, Any]) -> list[str]:
    # a card event may carry "box" beside "card"; check it without the extra key
    core = {"card": event["card"]}
    problems = _event_problems(core)
    where = event.get("box")
    if where is not None and where != "dealer" and not _is_int(where):
        problems.append(f"card box must be a number or 'dealer': {where!r}")
    extra = set(event) - {"card", "box"}
    if extra:
        problems.append(f"a card event takes only card and box, not {sorted(extra)}")
    return problems


def _round_problems(doc: dict[str, Any], index: int, rnd: Any) -> list[str]:
    where = f"round {index + 1}"
    if not isinstance(rnd, dict):
        return [f"{where}: a round is an object"]
    problems = []
    why = rnd.get("why")
    if not isinstance(why, str) or len(why) < 20:
        problems.append(f"{where}: needs a 'why' string with the worked arithmetic")
    events = rnd.get("events")
    if not isinstance(events, list) or not events:
        problems.append(f"{where}: needs a non-empty events list")
        events = []
    for event in events:
        found = _card_event_problems(event) if isinstance(event, dict) and "card" in event \
            else _event_problems(event)
        problems += [f"{where}: {p}" for p in found]
    expect = rnd.get("expect")
    if not isinstance(expect, dict):
        return problems + [f"{where}: needs an expect object"]
    if expect.get("status") not in STATUSES:
        problems.append(f"{where}: status must be one of {sorted(STATUSES)}")
    flags = expect.get("flags")
    if not isinstance(flags, list) or any(f not in FLAGS for f in flags):
        problems.append(f"{where}: flags must be a list of known codes, got {flags!r}")
    net = expect.get("net")
    if not isinstance(net, dict) or not net:
        problems.append(f"{where}: net must name every player/spot that staked")
    else:
        for key, value in net.items():
            if not NET_KEY.match(key) or key.split("/")[1] not in SPOTS:
                problems.append(f"{where}: net key {key!r} is not player/spot")
            if not _is_int(value):
                problems.append(f"{where}: net {key} must be an integer, got {value!r}")
        if expect.get("status") == "void" and any(net.values()):
            problems.append(f"{where}: a void round nets 0 everywhere")
    dealer = expect.get("dealer")
    cards_ok = isinstance(dealer, list) and all(
        isinstance(c, str) and CARD.match(c) for c in dealer
    )
    if dealer is not None and not cards_ok:
        problems.append(f"{where}: dealer must be a list of cards, got {dealer!r}")
    if expect.get("status") == "settled" and dealer is None:
        problems.append(f"{where}: a settled round states the dealer's cards")
    if doc.get("profile") == "pontoon-british" and expect.get("status") == "settled" \
            and not isinstance(expect.get("next_banker"), str):
        problems.append(f"{where}: pontoon-british rounds name the next banker")
    return problems


def scenario_problems(path: Path) -> list[str]:
    doc = load_scenario(path)
    problems = []
    match = FILE_NAME.match(path.name)
    if not match:
        problems.append("file name must be NN-profile-short-description.json")
    elif not path.name[len(match.group(1)) + 1:].startswith(f"{doc.get('profile')}-"):
        problems.append("the file name must carry the scenario's profile after the number")
    if doc.get("format") != "table-scenario/1":
        problems.append(f"format must be 'table-scenario/1', got {doc.get('format')!r}")
    if not isinstance(doc.get("name"), str) or not doc["name"]:
        problems.append("needs a name")
    if doc.get("profile") not in PROFILES:
        problems.append(f"unknown profile {doc.get('profile')!r}")
    if "rules" in doc and not isinstance(doc["rules"], dict):
        problems.append("rules, when given, is an object of overrides")
    rounds = doc.get("rounds")
    if not isinstance(rounds, list) or not rounds:
        return problems + ["needs a non-empty rounds list"]
    for index, rnd in enumerate(rounds):
        problems += _round_problems(doc, index, rnd)
    return problems


def test_the_data_folder_holds_the_cases() -> None:
    assert len(PATHS) >= 60, f"expected at least 60 cases in {PROJECT_CASES}, found {len(PATHS)}"


def test_case_numbers_are_unique() -> None:
    matches = [FILE_NAME.match(p.name) for p in PATHS]
    numbers = [m.group(1) for m in matches if m is not None]
    assert len(numbers) == len(set(numbers)), "two case files share a number"


def test_every_profile_has_cases() -> None:
    seen = {load_scenario(p).get("profile") for p in PATHS}
    assert PROFILES <= seen, f"profiles without a case: {sorted(PROFILES - seen)}"


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_case_file_is_a_valid_scenario(path: Path) -> None:
    assert scenario_problems(path) == []


def test_the_checker_rejects_a_broken_scenario(tmp_path: Path) -> None:
    broken = tmp_path / "01-casinos-austria-broken.json"
    broken.write_text(
        '{"format": "table-scenario/2", "profile": "casinos-austria", "name": "x", "rounds": ['
        '{"why": "short", "events": [{"card": "1S"}, {"do": {"box": 1, "action": "fly"}}],'
        ' "expect": {"status": "done", "flags": ["OOPS"], "net": {"box1": 1.5}}}]}',
        encoding="utf-8",
    )
    problems = "\n".join(scenario_problems(broken))
    for expected in ("format must be", "'why'", "bad card", "unknown action", "status must",
                     "flags must", "not player/spot", "must be an integer"):
        assert expected in problems
