"""Recorded rounds exported as a scenario that replays to the same results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from journal import (
    Journal,
    JournalError,
    JournalReader,
    export_scenario,
)

# -- export -----------------------------------------------------------------------


def journal_a_scenario(path: Path, doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Journal every event of a scenario as the daemon would, with each round's result."""
    from table.scenario import run_scenario  # the engine, only for the export tests

    results: list[dict[str, Any]] = run_scenario(doc)["rounds"]
    with Journal(path, profile=doc["profile"], rules=doc.get("rules")) as journal:
        for number, (played, result) in enumerate(zip(doc["rounds"], results, strict=True), 1):
            for index, event in enumerate(played["events"]):
                journal.append(event, "shoe" if "card" in event else "api",
                               f"{number}:{index}" if "card" in event else None)
            journal.record_round(number, result)
            journal.commit()
    return results


# Box 1 stands on 15, box 3 doubles 6+9 and draws 9H; the dealer's 6 draws
# KD (16) and 8C: bust, so both boxes win their whole stake.
TWO_BOXES_DEALER_BUSTS: list[dict[str, Any]] = [
    {"bet": {"box": 1, "amount": 100}}, {"bet": {"box": 3, "amount": 50}}, {"deal": {}},
    {"card": "TS"}, {"card": "5H"}, {"card": "6D"}, {"card": "9C"}, {"card": "6S"},
    {"do": {"box": 1, "action": "stand"}}, {"do": {"box": 3, "action": "double"}},
    {"card": "9H"}, {"card": "KD"}, {"card": "8C"},
]


def test_export_replays_to_the_same_results(path: Path) -> None:
    doc: dict[str, Any] = {
        "format": "table-scenario/1",
        "profile": "casinos-austria",
        "rules": {"dealer_hits_soft_17": True},
        "rounds": [
            {"events": TWO_BOXES_DEALER_BUSTS},
            {"events": TWO_BOXES_DEALER_BUSTS},
            {"events": [{"shoe": "loaded"}, *TWO_BOXES_DEALER_BUSTS]},
        ],
    }
    results = journal_a_scenario(path, doc)
    for result in results:
        assert result["status"] == "settled"
        assert result["net"] == {"box1/main": 100, "box3/main": 100}
        assert result["dealer"] == ["6D", "KD", "8C"]
    with Journal(path) as journal:
        exported = export_scenario(journal)
        assert exported["format"] == "table-scenario/1"
        assert exported["profile"] == "casinos-austria"
        assert exported["rules"] == {"dealer_hits_soft_17": True}
        assert [r["events"] for r in exported["rounds"]] == [r["events"] for r in doc["rounds"]]
        assert [r["expect"] for r in exported["rounds"]] == results
        # Through JSON, as `tablectl journal export` writes it, and replayed.
        from table.scenario import run_scenario

        replayed = run_scenario(json.loads(json.dumps(exported)))["rounds"]
        assert replayed == results
        one = export_scenario(journal, rounds=[2])
        assert one["name"] == "journal.sqlite: round 2" and len(one["rounds"]) == 1
        with pytest.raises(JournalError, match=r"round\(s\) 7 not recorded.*rounds 1 to 3"):
            export_scenario(journal, rounds=[1, 7])


def test_export_needs_a_profile(path: Path) -> None:
    with Journal(path) as journal, pytest.raises(JournalError, match="no profile is stored"):
        export_scenario(journal)


def test_export_numbers_rounds_and_refusals_as_the_replay_does(path: Path) -> None:
    """The daemon feeds the table every journal event without a position: a refusal
    is recorded at `event N` (N = its seq), and the journal stores the refused
    event's reason beside it. The export writes the refusal where the replay of the
    document puts it, and a selection's rounds are numbered from 1."""
    from table.machine import Table
    from table.profiles import load_profile
    from table.scenario import run_scenario

    refused_split = {"do": {"box": 1, "action": "split"}}  # T+5 is no pair
    played = [
        [{"shoe": "loaded"}, *TWO_BOXES_DEALER_BUSTS[:8], refused_split,
         *TWO_BOXES_DEALER_BUSTS[8:]],
        [{"shoe": "loaded"}, *TWO_BOXES_DEALER_BUSTS[:8], refused_split,
         *TWO_BOXES_DEALER_BUSTS[8:]],
    ]
    table = Table(load_profile("casinos-austria"))
    with Journal(path, profile="casinos-austria") as journal:
        for number, events in enumerate(played, 1):
            for event in events:
                outcome = table.apply(event)
                journal.append(event, "sim", refused=outcome.reason if not outcome.accepted
                               else None)
            journal.record_round(number, table.results()[-1])
            journal.commit()
    with JournalReader(path) as journal:
        recorded = [r.result for r in journal.rounds()]
        assert [r["refused"][0]["position"] for r in recorded] == ["event 10", "event 25"]
        exported = export_scenario(journal)
        assert [r["journal_round"] for r in exported["rounds"]] == [1, 2]
        expect = [r["expect"] for r in exported["rounds"]]
        assert [e["refused"][0]["position"] for e in expect] == [
            "round 1, event 10", "round 2, event 10"]
        assert run_scenario(json.loads(json.dumps(exported)))["rounds"] == expect
        second = export_scenario(journal, rounds=[2])
        assert second["rounds"][0]["journal_round"] == 2
        assert second["rounds"][0]["expect"]["round"] == 1
        assert second["rounds"][0]["expect"]["refused"][0]["position"] == "round 1, event 10"
        assert run_scenario(second)["rounds"] == [second["rounds"][0]["expect"]]
        for original, replayed in zip(recorded, expect, strict=True):
            assert {k: v for k, v in original.items() if k not in ("round", "refused")} == {
                k: v for k, v in replayed.items() if k not in ("round", "refused")}
        assert export_scenario(journal, rounds=[1, 2])["name"] == "journal.sqlite: rounds 1-2"



def play_and_journal(path: Path, events: list[dict[str, Any]], *, flag: bool = True
                     ) -> dict[str, Any]:
    """Apply each event to a table and journal it as the daemon does (with the
    table's reason when it refused it, unless `flag` is False); records round 1."""
    from table.machine import Table
    from table.profiles import load_profile

    table = Table(load_profile("casinos-austria"))
    with Journal(path, profile="casinos-austria") as journal:
        for event in events:
            outcome = table.apply(event)
            refused = outcome.reason if flag and not outcome.accepted else None
            journal.append(event, "sim", refused=refused)
        journal.record_round(1, table.results()[-1])
        journal.commit()
    result: dict[str, Any] = table.results()[-1]
    return result


def test_a_refusal_before_the_round_began_is_in_its_events_but_not_in_its_list(
        path: Path) -> None:
    """A hit before any bet is refused while no round exists: stored with its reason,
    in round 1's span, but in no round's `refused` list. The split is that list's
    only entry: event 10 of the round (the hit, 2 bets, deal, 5 cards, the split)."""
    from table.scenario import run_scenario

    early_hit = {"do": {"box": 1, "action": "hit"}}
    split = {"do": {"box": 1, "action": "split"}}  # T+5 is no pair
    recorded = play_and_journal(path, [early_hit, *TWO_BOXES_DEALER_BUSTS[:8], split,
                                       *TWO_BOXES_DEALER_BUSTS[8:]])
    assert [entry["event"] for entry in recorded["refused"]] == [split]
    with JournalReader(path) as journal:
        assert [e.seq for e in journal.events() if e.refused is not None] == [1, 10]
        exported = export_scenario(journal)
    [expect] = [r["expect"] for r in exported["rounds"]]
    assert [entry["position"] for entry in expect["refused"]] == ["round 1, event 10"]
    assert run_scenario(json.loads(json.dumps(exported)))["rounds"] == [expect]


def test_refusals_not_stored_with_their_events_keep_their_recorded_position(
        path: Path) -> None:
    split = {"do": {"box": 1, "action": "split"}}
    recorded = play_and_journal(path, [*TWO_BOXES_DEALER_BUSTS[:8], split,
                                       *TWO_BOXES_DEALER_BUSTS[8:]], flag=False)
    assert recorded["refused"][0]["position"] == "event 9"  # the table's own count
    with JournalReader(path) as journal:
        [exported] = export_scenario(journal)["rounds"]
    assert exported["expect"]["refused"] == recorded["refused"]
