"""The simulated table (devices in their own process), under every profile: the dealer's own copy of
the table and the daemon's stay the same through mistakes, pit resolutions and
a noisy shoe line, and the journal replays to every recorded result."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hwsim.shoe import LineFaults

from table.machine import Table
from table.profiles import list_profiles, load_profile
from table.views import Outcome, TableView
from tablectl.commands.run import DEFAULT_SIM_FAULTS
from tablectl.daemon import DaemonError
from tablectl.links import ServiceForward, views_difference
from tablectl.service import Submission
from tablectl.sim import SimOptions, SimulatedTable
from tests.tablectl.test_run_command import check_journal

ROUNDS = 25


@pytest.mark.parametrize("profile", list_profiles())
def test_every_profile_runs_flat_out_with_the_dealers_table_and_the_daemons_alike(
        profile: str, tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite"
    sim = SimulatedTable(SimOptions(profile=profile, journal=str(journal), rounds=ROUNDS,
                                    seed=3, boxes=7, mistake_rate=0.2, live_view=False,
                                    faults=LineFaults.parse(DEFAULT_SIM_FAULTS)),
                         out=io.StringIO())
    sim.start()
    assert sim.daemon is not None and sim.daemon.service is not None
    service = sim.daemon.service
    sim.run()
    assert sim.error is None, sim.error
    assert sim.done is not None, "the dealer did not report his rounds"
    assert sim.rounds_played == ROUNDS
    assert sim.forward.answered == sim.forward.forwarded == sim.done.forwarded
    assert sim.order.frames_passed == sim.done.frames_made
    # Both tables (the dealer's, in the devices' process, and the daemon's) saw the
    # same events: the same round, phase, hands and flags.
    assert service.table.view() == sim.done.view
    assert service.table.current_result() == sim.done.result
    # Each round is recorded when the next begins, and the last one at the stop.
    assert check_journal(journal) == ROUNDS


def test_a_journal_that_cannot_be_used_ends_the_devices_process_too(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite"
    journal.write_text("not a journal\n")
    sim = SimulatedTable(SimOptions(journal=str(journal), rounds=1), out=io.StringIO())
    with pytest.raises(DaemonError, match="journal"):
        sim.start()
    assert sim._devices is not None and not sim._devices.is_alive()
    assert journal.read_text() == "not a journal\n"


def run_with_a_card_posted(tmp_path: Path, rounds: int,
                           when: Callable[[TableView], bool]) -> SimulatedTable:
    """A card posted through the API once the table's view first satisfies `when`:
    a card the virtual dealer did not deal, so his own table and the daemon's part."""
    sim = SimulatedTable(SimOptions(journal=str(tmp_path / "journal.sqlite"), rounds=rounds,
                                    seed=3, boxes=3, mistake_rate=0.0, live_view=False,
                                    pace_s=0.05), out=io.StringIO())
    sim.start()
    assert sim.daemon is not None and sim.daemon.service is not None
    service = sim.daemon.service
    posted: list[Submission] = []

    def post_a_card(_: dict[str, Any], __: Outcome) -> None:
        # Queued from the table's loop as it applies the event: however far behind
        # the dealer the table runs, the card is in before the run ends.
        if not posted and when(service.table.view()):
            posted.append(Submission({"card": "AS"}, "api"))
            service.submit(posted[0])

    service.on_event(post_a_card)
    sim.run()
    assert posted
    return sim


def test_an_event_the_dealer_did_not_make_stops_the_table_in_one_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # The simulation stops saying how, without a traceback. Paced, so that many rounds
    # are still to come when the card is posted.
    with caplog.at_level(logging.INFO):
        sim = run_with_a_card_posted(tmp_path, 200, lambda view: view.round >= 3)
    assert sim.error is not None and "differ" in str(sim.error), sim.error
    assert "\n" not in str(sim.error)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info], \
        caplog.text


def test_tables_that_parted_with_every_answer_alike_are_told_apart_at_the_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Were each answer the same on both tables, the two tables are still compared
    # once the dealer is done. The card comes after the last round settled: a card
    # then is a misdeal, which halts the daemon's table and not the dealer's.
    monkeypatch.setattr(ServiceForward, "_difference", staticmethod(lambda *_: None))
    sim = run_with_a_card_posted(
        tmp_path, 4, lambda view: view.round == 4 and view.phase == "settled")
    assert sim.error is not None and "differ at the end" in str(sim.error), sim.error
    assert "halted True against False" in str(sim.error)


def test_two_tables_that_parted_are_told_apart_by_their_views() -> None:
    dealers, daemons = (Table(load_profile("casinos-austria")) for _ in range(2))
    for table in (dealers, daemons):
        table.apply({"bet": {"box": 1, "amount": 10}})
    assert views_difference(daemons.view(), dealers.view()) is None
    # A card the dealer did not deal, with no bet closed yet, is a misdeal that halts
    # the round: the daemon's table is halted, the dealer's not.
    daemons.apply({"card": "AS"})
    difference = views_difference(daemons.view(), dealers.view())
    assert difference is not None and "\n" not in difference
    assert "halted True against False" in difference


def test_a_box_that_differs_is_named_by_its_cards() -> None:
    dealers, daemons = (Table(load_profile("casinos-austria")) for _ in range(2))
    for table in (dealers, daemons):
        for event in ({"bet": {"box": 1, "amount": 10}}, {"bet": {"box": 2, "amount": 20}},
                      {"deal": {}}, {"card": "5H"}, {"card": "9C"}, {"card": "7D"},
                      {"card": "KS"}):
            table.apply(event)
    # Dealt box 1, box 2, the dealer (no hole card), box 1 again: the next card is box
    # 2's second, which only the daemon's table gets.
    daemons.apply({"card": "AS"})
    difference = views_difference(daemons.view(), dealers.view())
    assert difference is not None
    assert "phase 'playing' against 'dealing'" in difference
    assert "box 2 (9C AS playing) against (9C playing)" in difference
    assert len(difference) < 300
