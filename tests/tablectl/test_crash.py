"""The crash test: SIGKILL the daemon at random moments while a dealer plays on.

The virtual shoe (ShoeLink on a pty) and the virtual dealer live in this
process; the daemon runs as `python -m tablectl run --config ...` in a child
process. A killer thread sends SIGKILL at seeded random moments and starts the
daemon again at once; the dealer keeps dealing through the local API, resending
the same event under the same id while the daemon is down, and the shoe keeps
every unacknowledged frame and sends it again.

Afterwards the journal is checked against the shoe and against a reference run
of the same dealer and shoe played in-process without a daemon and without
kills: every card the shoe dealt is in the journal exactly once and in order,
every round has the result the reference round has, and no round is
half-settled. See docs/crash-safety.md.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hwsim.dealer import (
    VirtualDealer,
    VirtualShoeCards,
    seeded_shoe,
)
from hwsim.dealer.shoes import derived_seed
from hwsim.shoe import VirtualShoe

from journal import JournalReader, RoundRecord
from table.machine import Table
from table.profiles import Rules, load_profile
from tests.tablectl.crash_rig import (
    BOXES,
    KEY_FIELDS,
    KILLS,
    MIN_KILLS,
    MISTAKE_RATE,
    PROFILE,
    ROUND_OVER,
    ROUNDS,
    SEED,
    DaemonProcess,
    Killer,
    Progress,
    Reference,
    WatchedLink,
    dealer_token,
    free_port,
    play_reference,
    write_config,
)

from .helpers import Signal

# -- the test --------------------------------------------------------------------------


@pytest.fixture
def journal_folder(tmp_path: Path) -> Iterator[Path]:
    """Where the daemon keeps its journal: in memory (tmpfs) where the machine has one.

    A SIGKILL ends the process, not the machine: what the daemon wrote before it
    died is in the kernel's page cache whether or not it reached the disk, so the
    disk's flush time (most of a commit on a real disk) only slows the test down
    without changing what it checks. The daemon still commits with fsync."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    with tempfile.TemporaryDirectory(prefix="tablectl-crash-", dir=shm) as folder:
        yield Path(folder)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_sigkill_at_random_moments_loses_and_doubles_nothing(
    tmp_path: Path, journal_folder: Path
) -> None:
    mistake_rate = MISTAKE_RATE
    rules = load_profile(PROFILE)
    first_shoe = seeded_shoe(rules, derived_seed(SEED, "first shoe"))
    reference = play_reference(rules, first_shoe, mistake_rate)

    # Woken by the shoe's ACKs, the dealer's answers and the rounds he finished.
    activity = Signal()
    shoe = VirtualShoe(first_shoe, dealer_paced=True, link_path=tmp_path / "shoe",
                       seed=SEED)
    shoe.on_ack = activity.notify
    shoe.start()
    port = free_port()
    journal_path = journal_folder / "journal.sqlite"
    config = write_config(tmp_path, shoe.path, port, journal_path)
    daemon = DaemonProcess(config, tmp_path / "daemon.log")
    link = WatchedLink(f"http://127.0.0.1:{port}", token=dealer_token(tmp_path),
                       changed=activity)
    dealer = VirtualDealer(rules, link, VirtualShoeCards(shoe), seed=SEED, boxes=BOXES,
                           mistake_rate=mistake_rate, session="crash", retry_wait_s=0.01,
                           patience_s=60.0)
    progress = Progress(activity)
    rng = random.Random(derived_seed(SEED, "kills"))
    targets = sorted(rng.sample(range(2, ROUNDS + 1), KILLS))
    killer = Killer(daemon, shoe, link, progress, targets, rng)
    thread = threading.Thread(target=killer.run, name="killer", daemon=True)
    started = time.monotonic()
    daemon.start()
    try:
        assert link.wait_ready(30.0), "the daemon did not start:\n" + daemon.log_tail()
        thread.start()
        # One round more than the test counts: a round is final once the next begins.
        for expected in range(1, ROUNDS + 2):
            number = dealer.play_round()
            assert number == expected, f"the dealer played round {number}, not {expected}"
            progress.finished(number)
        killer.halt()
        thread.join(30.0)
        assert not thread.is_alive(), "the killer did not finish"
        if killer.error is not None:
            raise killer.error
        assert shoe.pending_count == 0, "a shoe frame is still unacknowledged"
        # The last kill may have been a moment ago: SIGTERM once the daemon is up
        # (a daemon still starting has no handler yet and dies of it).
        assert link.wait_ready(30.0), daemon.log_tail()
        daemon.wait_started_up(30.0)
        assert daemon.exited() is None, "the daemon stopped by itself:\n" + daemon.log_tail()
        assert daemon.terminate() == 0, daemon.log_tail()
    finally:
        killer.halt()
        daemon.close()
        link.close()
        shoe.stop()
    elapsed = time.monotonic() - started

    if journal_folder != tmp_path:  # kept with the test's files for a look after a failure
        for stored in journal_folder.iterdir():
            shutil.copy2(stored, tmp_path / stored.name)
    journal = JournalReader(journal_path)
    try:
        events = list(journal.events())
        records = journal.rounds()
    finally:
        journal.close()

    kills = killer.kills
    served = [k for k in kills if k.served]
    report = (
        f"{ROUNDS} rounds, mistake rate {mistake_rate}: {len(kills)} kills "
        f"({len(served)} of a serving daemon, {len(kills) - len(served)} during startup, "
        f"{sum(1 for k in kills if k.frames_unacked)} with a shoe frame unacknowledged, "
        f"{sum(1 for k in kills if k.api_in_flight)} with an API call in flight), "
        f"{daemon.starts} daemon starts, {len(events)} journal events, "
        f"dealer retries {dealer.stats.retries}, duplicates {dealer.stats.duplicates}, "
        f"shoe re-sends {shoe.counters.frames_resent}; {elapsed:.1f} s; the table at the "
        f"restarts: {_phases_at_restarts(rules, events, daemon.log_tail(lines=10**6))}"
    )
    print("\n" + report)

    # (d) The daemon really was killed, at least 50 times while it was serving.
    assert len(served) >= MIN_KILLS, report
    assert all(k.exit_code == -signal.SIGKILL for k in kills), report
    assert daemon.starts == len(kills) + 1, report

    # (a) Every card the shoe dealt is in the journal once, in order, under its frame.
    shoe_events = [e for e in events if e.source == "shoe"]
    sent = [r for r in shoe.records if _shoe_event(r) is not None]
    assert [_frame_number(e.source_ref) for e in shoe_events] == [
        f"0:{r.seq}" for r in sent], report
    assert [e.event for e in shoe_events] == [_shoe_event(r) for r in sent], report
    journal_cards = [e.event["card"] for e in shoe_events if "card" in e.event]
    assert journal_cards == [r.card for r in sent if r.kind == "card"]
    assert journal_cards == reference.drawn, "the shoe dealt other cards than in the reference"
    assert len(journal_cards) == shoe.cards_dealt
    refs = [(e.source, e.source_ref) for e in events if e.source_ref is not None]
    assert len(refs) == len(set(refs)), "an event was stored twice under one reference"

    # Nothing lost, nothing doubled, nothing else: the journal holds exactly the
    # events of the uninterrupted run, in its order.
    _assert_same_events([e.event for e in events], reference.events)

    # (b) Every round is in the journal with the reference round's result.
    numbers = [r.round_no for r in records]
    assert numbers[:ROUNDS] == list(range(1, ROUNDS + 1)), report
    assert numbers[ROUNDS:] in ([], [ROUNDS + 1]), report
    for record in records:
        _assert_same_result(record, reference.results[record.round_no])

    # (c) No round is half-settled: each record is a finished round, it spans the
    # events right after the previous one, the events in its span replay to exactly
    # the recorded result, and nothing was journalled after the last round.
    _assert_rounds_whole(rules, events, records, reference)


def _shoe_event(record: Any) -> dict[str, Any] | None:
    """The table event a shoe frame becomes in the journal (None: not journalled)."""
    if record.kind == "card":
        return {"card": record.card}
    if record.kind == "unreadable":
        return {"flag": "UNREADABLE_CARD"}
    if record.event in ("loaded", "cut_card"):
        return {"shoe": record.event}
    return None


def _phases_at_restarts(rules: Rules, events: list[Any], log_text: str) -> str:
    """How the journal left the table at each restart (from the daemon's start-up
    lines), for the figures: the kills fell in which phases."""
    replayed = Counter(int(n) for n in re.findall(r"(\d+) events replayed", log_text)[1:])
    phases: Counter[str] = Counter()
    table = Table(rules)
    for count in range(len(events) + 1):
        if count:
            table.apply(events[count - 1].event)
        if replayed[count]:
            phases[table.state] += replayed[count]
    return ", ".join(f"{phase} {n}" for phase, n in phases.most_common())


def _frame_number(ref: str | None) -> str:
    """A shoe frame's journal reference without what follows its `EPOCH:SEQ`."""
    return (ref or "").partition("@")[0]


def _as_stored(result: dict[str, Any]) -> dict[str, Any]:
    stored: dict[str, Any] = json.loads(json.dumps(result))
    return stored


def _assert_same_result(record: RoundRecord, expected: dict[str, Any]) -> None:
    expected = _as_stored(expected)
    got = record.result
    for key in KEY_FIELDS:
        assert got.get(key) == expected.get(key), (
            f"round {record.round_no}: {key} is {got.get(key)!r} in the journal, "
            f"{expected.get(key)!r} in the reference run")
    assert got == expected, f"round {record.round_no}: the journal's result differs"
    assert record.status == expected["status"]
    assert list(record.flags) == expected["flags"]


def _assert_same_events(got: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    if got == expected:
        return
    at = next((i for i, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b),
              min(len(got), len(expected)))
    raise AssertionError(
        f"the journal's events part from the reference run at event {at + 1} "
        f"({len(got)} events against {len(expected)}):\n"
        f"  journal:   {got[max(0, at - 3):at + 4]}\n"
        f"  reference: {expected[max(0, at - 3):at + 4]}")


def _assert_rounds_whole(rules: Rules, events: list[Any], records: list[RoundRecord],
                         reference: Reference) -> None:
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    table = Table(rules)
    end = 0
    for record in records:
        assert record.status in ROUND_OVER, f"round {record.round_no} is {record.status}"
        assert record.start_seq == end + 1, (
            f"round {record.round_no} starts at seq {record.start_seq}, not right after "
            f"round {record.round_no - 1} (seq {end})")
        assert record.end_seq >= record.start_seq
        for stored in events[record.start_seq - 1:record.end_seq]:
            table.apply(stored.event)
        assert table.state in ROUND_OVER, (
            f"round {record.round_no}: its events leave the table {table.state}")
        assert _as_stored(table.current_result() or {}) == record.result, (
            f"round {record.round_no}: its events replay to another result than recorded")
        end = record.end_seq
    # After the last record: nothing, or the whole of the next round, ended as in
    # the reference (it is recorded when a round after it begins).
    after = events[end:]
    if after:
        for stored in after:
            table.apply(stored.event)
        result = table.current_result()
        assert table.state in ROUND_OVER and result is not None, (
            f"the events after the last recorded round leave the table {table.state}")
        assert result["round"] == records[-1].round_no + 1
        assert _as_stored(result) == _as_stored(reference.results[result["round"]])
