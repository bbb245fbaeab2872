"""A full disk, for real: the journal on a 4 MB tmpfs filled to the last byte.
The table halts with the alarm, acknowledges nothing it did not store (the shoe
keeps its card, a terminal's call answers 503), and resumes by itself once
space is freed: the shoe's card is stored once, the terminal's retry is
stored, and every acknowledgement came after its frame was in the file."""

from __future__ import annotations

import io
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from journal import JournalError, JournalReader
from tablectl.sim import SimOptions, SimulatedTable, run_simulation
from tests.tablectl.daemon_bench import DELIVERED_S, Bench, Running, bet
from tests.tablectl.helpers import Signal

RESUMES_WITHIN_S = 10.0


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a 4 MB tmpfs for a really full disk needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"a 4 MB tmpfs cannot be mounted here: {done.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def _fill(disk: Path) -> Path:
    """Write a file until the file system is full; returns it."""
    filler = disk / "filler"
    chunk = b"\0" * 4096
    with filler.open("wb", buffering=0) as file:
        try:
            while True:
                file.write(chunk)
        except OSError:
            pass
    return filler


def _wait_resumed(running: Running) -> None:
    running.changed.wait_until(lambda: running.request("GET", "/health")[0] == 200,
                               "the table resumed", RESUMES_WITHIN_S)
    assert running.service.snapshot.journal_fault is None


def test_a_full_disk_halts_loses_nothing_and_the_table_resumes_by_itself(
        small_disk: Path) -> None:
    bench = Bench(small_disk)
    try:
        shoe = bench.start_shoe(["9S", "4D"])
        running = bench.open()
        assert running.cards.wait_delivered(DELIVERED_S)
        filler = _fill(small_disk)
        stored = refused_id = 0
        for i in range(5000):
            status, answer = running.request("POST", "/events",
                                             {"event": bet(1 + i % 7, 10), "id": f"t:{i}"})
            if status != 200:
                refused_id = i
                break
            stored += 1
        assert status == 503 and answer["stored"] is False, "the disk never filled"
        running.changed.wait_until(lambda: running.lamps()["alarm"], "the alarm")
        status, health = running.request("GET", "/health")
        assert status == 503 and "the journal cannot store" in health["reason"]
        filler.unlink()  # space again: no restart, no operator
        _wait_resumed(running)
        # The terminal retries the call that was refused, under its id: stored now.
        retried = running.post(bet(1 + refused_id % 7, 10), f"t:{refused_id}")
        assert retried["stored"] is True and retried["duplicate"] is False

        # A second episode, in the deal: the card that cannot be stored is kept by
        # the shoe and arrives once space is back.
        running.post({"deal": {}}, "t:deal")
        filler = _fill(small_disk)
        acked = shoe.acked_seq
        resends = shoe.counters.resend_rounds
        running.cards.draw()
        assert shoe.wait_until(lambda: shoe.counters.resend_rounds >= resends + 3, 10.0), \
            "the shoe never re-sent"
        running.changed.wait_until(lambda: running.lamps()["alarm"], "the alarm")
        assert shoe.acked_seq == acked and shoe.pending_count == 1
        filler.unlink()
        _wait_resumed(running)
        assert running.cards.wait_delivered(DELIVERED_S), "the kept card never arrived"
        running.changed.wait_until(
            lambda: running.service.table.view().boxes[0].hands[0].cards == ("9S",),
            "the card on box 1")
        assert not running.lamps()["alarm"]

        with JournalReader(bench.journal_path) as reader:
            events = list(reader.events())
        assert [e.source_ref for e in events if e.source.startswith("pit")] == [
            f"t:{i}" for i in range(stored)] + [f"t:{refused_id}", "t:deal"]
        assert [event for _, event in bench.shoe_events()] == [{"shoe": "loaded"},
                                                               {"card": "9S"}]
        assert all(found for _, found in bench.acks), bench.acks
    finally:
        bench.shutdown()


def _stored_rounds(path: Path) -> int:
    try:
        with JournalReader(path) as reader:
            return len(reader.rounds())
    except (JournalError, OSError):  # not created yet, or busy: none stored as far as seen
        return 0


def test_the_simulated_table_stops_on_a_full_disk_and_counts_what_is_stored(
        small_disk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = small_disk / "journal.sqlite"
    options = SimOptions(journal=str(journal), rounds=100_000, seed=5, boxes=7,
                         mistake_rate=0.0, live_view=False)
    filled: list[Path] = []

    def fill_after_a_few_rounds(sim: SimulatedTable) -> None:
        # Woken by the table after each batch and each round of answers (a commit).
        changed = Signal()
        assert sim.daemon is not None and sim.daemon.service is not None
        sim.daemon.service.on_change(changed.notify)
        sim.daemon.service.after_answers(changed.notify)
        changed.wait_until(lambda: sim.rounds_played >= 5, "five rounds", 60)
        # The dealer plays ahead of the journal's group commit: fill the disk once a
        # round is stored, so that the summary has stored rounds to count.
        changed.wait_until(lambda: _stored_rounds(journal) >= 1, "a stored round", 60)
        filled.append(_fill(small_disk))

    sims: list[SimulatedTable] = []
    original_start = SimulatedTable.start

    def start(sim: SimulatedTable) -> None:
        original_start(sim)
        sims.append(sim)
        threading.Thread(target=fill_after_a_few_rounds, args=(sim,), daemon=True).start()

    SimulatedTable.start = start  # type: ignore[method-assign]
    try:
        status = run_simulation(options, lambda stop: None, out=io.StringIO())
    finally:
        SimulatedTable.start = original_start  # type: ignore[method-assign]
    assert filled, "the disk was never filled"
    err = capsys.readouterr().err
    assert status == 1, err
    assert "the journal cannot store" in err and "Traceback" not in err
    with JournalReader(journal) as reader:
        recorded = len(reader.rounds())
    assert f"; {recorded} rounds stored in {journal}" in err
    assert recorded >= 1 and sims[0].error is not None
