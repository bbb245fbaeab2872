"""A simulated table killed in the middle of a round goes on exactly where it
stopped: the restarted devices' process deals what is left of the shoe in
play, the interrupted round is finished and settled, and play goes on with
no refused `loaded`, no impossible card and no flood of events."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hwsim.dealer.shoes import seeded_shoe

from journal import JournalError, JournalReader
from table.profiles import load_profile
from tablectl.sim_resume import resumed_shoe
from tests.tablectl.helpers import OutputLines

PROFILE = "casinos-austria"


def _mid_deal(journal: Path) -> bool:
    """The journal holds a round in play with at least three of its cards."""
    if not journal.exists():
        return False
    try:
        with JournalReader(journal) as reader:
            events = reader.open_round_events()
            return (len(reader.rounds()) >= 2 and any("deal" in e.event for e in events)
                    and sum("card" in e.event for e in events) >= 3)
    except JournalError:
        return False


def _freeze_mid_deal(group: int, view: OutputLines, journal: Path) -> None:
    """Stop the table's processes (SIGSTOP) with a round in the middle of its deal in
    the journal. Play goes on between a look at the journal and the stop, so the
    journal is looked at again once they are stopped, and play resumed if the round
    ended meanwhile."""
    deadline = time.monotonic() + 60
    while True:
        view.wait_until(lambda: _mid_deal(journal) or view.ended,
                        "a round in the middle of its deal",
                        max(0.1, deadline - time.monotonic()))
        os.killpg(group, signal.SIGSTOP)
        if view.ended or _mid_deal(journal) or time.monotonic() > deadline:
            return
        os.killpg(group, signal.SIGCONT)


def test_a_simulated_table_killed_mid_round_resumes_it_exactly(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite"
    env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock", "TMPDIR": str(tmp_path)}
    command = [sys.executable, "-m", "tablectl", "run", "--sim", "--api-port", "off",
               "--profile", PROFILE, "--journal", str(journal),
               "--faults", "none"]
    # Its live view draws each change of the table: the journal is looked at again
    # after each line the view writes.
    errors = tmp_path / "first-run-errors.txt"
    with errors.open("wb") as error_file:
        first = subprocess.Popen([*command, "--pace", "0.02", "--view", "live"],
                                 cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                                 stderr=error_file, start_new_session=True)
    assert first.stdout is not None
    view = OutputLines(first.stdout)
    try:
        _freeze_mid_deal(first.pid, view, journal)
        assert _mid_deal(journal), (
            f"the table ended before a round was dealt (status {first.poll()}): "
            f"{errors.read_text(errors='replace')[-2000:]}")
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(10)
    with JournalReader(journal) as reader:
        interrupted = len(reader.rounds()) + 1
        before = reader.last_committed_seq
        in_play = reader.open_round_events()
    rules = load_profile(PROFILE)
    resumed = resumed_shoe(str(journal), rules, 1)  # the default --seed
    # What is left is the shoe in play, card for card (the first shoe of seed 1).
    assert resumed.in_play and resumed.exact
    assert resumed.cards == seeded_shoe(rules, 1)[resumed.dealt:]

    again = subprocess.run([*command, "--rounds", "3", "--view", "rounds"], cwd=tmp_path,
                           env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    with JournalReader(journal) as reader:
        records = [r for r in reader.rounds() if r.round_no >= interrupted]
        added = list(reader.events(after_seq=before))
        spanned = [e for e in reader.events(after_seq=records[0].start_seq - 1)
                   if e.seq <= records[0].end_seq]
    # The interrupted round settled, and play went on.
    assert [r.status for r in records][:3] == ["settled"] * 3, records
    assert records[0].start_seq == in_play[0].seq
    flags = {flag for r in records for flag in r.flags}
    assert "IMPOSSIBLE_CARD" not in flags, flags
    # The interrupted round is played out of the shoe in play. A new shoe may come only
    # after its last card: killed late in a shoe, the three rounds may reach its cut
    # card, and one killed after the round's last card loads the next shoe before the
    # next round begins, within the round's record (a round is recorded when the next
    # one begins: tablectl.round_record).
    loaded = [e.seq for e in added if e.event == {"shoe": "loaded"}]
    last_card = max(e.seq for e in spanned if "card" in e.event)
    assert all(seq > last_card for seq in loaded), (loaded, last_card, records[0])
    # Three rounds of seven boxes: tens of events each, not hundreds.
    assert len(added) < 3 * 80, len(added)
