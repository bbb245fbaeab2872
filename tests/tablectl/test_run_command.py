"""`tablectl run` as a user runs it: a subprocess in a fresh folder."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from hwsim.shoe import VirtualShoe

from journal import JournalReader
from table.machine import Table
from table.profiles import load_profile
from tests.tablectl.helpers import signal_when

ROUND_LINE = re.compile(r"^round (\d+) (settled|void)( \[[A-Z_, ]+\])?: (box\d/\w+ [+-]\d+ ?)+$")
COMMAND = [sys.executable, "-m", "tablectl", "run", "--sim", "--view", "rounds"]


def check_journal(path: Path) -> int:
    """The journal reads back whole: recorded rounds tile the events from the first
    on, each has its events, and replaying every event gives each recorded result."""
    with JournalReader(path) as journal:
        records = journal.rounds()
        events = [stored.event for stored in journal.events()]
        assert records, "no round was recorded"
        assert records[0].start_seq == 1
        for before, after in zip(records, records[1:], strict=False):
            assert after.round_no == before.round_no + 1
            assert after.start_seq == before.end_seq + 1
        for record in records:
            mine = journal.round_events(record.round_no)
            assert [e.seq for e in mine] == list(range(record.start_seq, record.end_seq + 1))
            kinds = {next(iter(e.event)) for e in mine}
            assert {"bet", "card"} <= kinds, (record.round_no, kinds)
        table = Table(load_profile(str(journal.profile), journal.rules))
        for event in events:
            table.apply(event)
        replayed = {result["round"]: result for result in table.results()}
        for record in records:
            assert replayed[record.round_no] == record.result, record.round_no
        return len(records)


def test_five_simulated_rounds(tmp_path: Path) -> None:
    finished = subprocess.run(COMMAND + ["--rounds", "5"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    lines = finished.stdout.splitlines()
    rounds = [line for line in lines if line.startswith("round ")]
    assert len(rounds) == 5, finished.stdout
    for number, line in enumerate(rounds, start=1):
        match = ROUND_LINE.match(line)
        assert match is not None, line
        assert int(match.group(1)) == number
    assert lines[-1] == "5 rounds played; journal var/sim-journal.sqlite"
    journal = tmp_path / "var" / "sim-journal.sqlite"
    assert journal.is_file()
    check_journal(journal)


def test_sigterm_stops_the_simulated_table_cleanly(tmp_path: Path) -> None:
    process = subprocess.Popen(COMMAND, cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    # A few rounds played: then stop it in the middle of things.
    done = signal_when(process, lambda lines: sum(line.startswith("round ") for line in lines)
                       >= 3, "three rounds", signal.SIGTERM, 60)
    stderr = done.stderr
    assert done.returncode == 0, stderr
    rest = done.stdout.splitlines()
    assert rest and re.fullmatch(r"\d+ rounds played; journal var/sim-journal\.sqlite",
                                 rest[-1]), rest
    assert "Traceback" not in stderr, stderr
    recorded = check_journal(tmp_path / "var" / "sim-journal.sqlite")
    assert recorded >= 2


def test_sigterm_stops_a_configured_table_cleanly(tmp_path: Path) -> None:
    shoe = VirtualShoe(["AS", "KD"], dealer_paced=True, link_path=tmp_path / "shoe")
    shoe.start()
    try:
        config = tmp_path / "table.toml"
        config.write_text(
            '[shoe]\nport = "{}"\n[journal]\npath = "journal.sqlite"\n[api]\nport = 0\n'
            .format(tmp_path / "shoe"), encoding="utf-8")
        env = dict(os.environ, GPIOZERO_PIN_FACTORY="mock")
        process = subprocess.Popen(
            [sys.executable, "-m", "tablectl", "run", "--config", str(config)],
            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            journal = tmp_path / "journal.sqlite"
            # The shoe's `loaded` is acknowledged, so stored: the daemon is up. (Looked at
            # again at each step of the shoe: an ACK read, a heartbeat sent.)
            assert shoe.wait_until(lambda: shoe.acked_seq == 1 or process.poll() is not None,
                                   60), "the daemon never acknowledged the shoe's first frame"
            assert process.poll() is None, process.communicate()
            process.send_signal(signal.SIGTERM)
            _, stderr = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
        assert process.returncode == 0, stderr
        assert "Traceback" not in stderr, stderr
        with JournalReader(journal) as reader:
            stored = [(e.source, e.source_ref, e.event) for e in reader.events()]
        # Epoch 0, the shoe's frame 1, and the shoe's uptime at its latest heartbeat.
        assert [(source, ref.partition("@")[0], event) for source, ref, event in stored] == [
            ("shoe", "0:1", {"shoe": "loaded"})
        ]
        assert stored[0][1].partition("@")[2].isdigit()
        assert not Path(f"{journal}-wal").exists(), "the journal was not closed"
    finally:
        shoe.stop()
