"""Floors on a shared subscription (MQTT 5 `$share/GROUP/...`) against a real Mosquitto:
several floor processes on one store split the events and rounds, and the store ends
up holding each table's journal once, whichever process stored what, also when one of
them goes away or is killed."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from journal import Journal
from tablectl.cli import main
from tablectl.mqtt.floor import Floor
from tablectl.mqtt.floor_store import FloorStore
from tablectl.mqtt.publisher import Publisher
from tablectl.mqtt.settings import from_options, parse_url
from tablectl.mqtt.topics import floor_topics
from tests.tablectl.helpers import Signal
from tests.tablectl.mqtt.broker import Mosquitto
from tests.tablectl.mqtt.helpers import add_rounds, make_journal, wait_progressing
from tests.tablectl.mqtt.test_kills import Run, _count, _rows


def test_floor_topics_share_events_and_rounds_only() -> None:
    assert floor_topics("floor") == [
        "$share/floor/tablectl/v1/+/events", "$share/floor/tablectl/v1/+/rounds",
        "tablectl/v1/+/state", "tablectl/v1/+/status"]
    assert floor_topics(None) == ["tablectl/v1/+/events", "tablectl/v1/+/rounds",
                                  "tablectl/v1/+/state", "tablectl/v1/+/status"]


def test_share_needs_a_group_name_and_a_client_id_each(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "floor.sqlite")
    assert main(["floor", "--broker", "mqtt://127.0.0.1:1", "--store", store,
                 "--share", "a/b"]) == 2
    assert "share group 'a/b'" in capsys.readouterr().err
    assert main(["floor", "--broker", "mqtt://127.0.0.1:1", "--store", store,
                 "--share", "floor"]) == 2
    assert "its own --client-id" in capsys.readouterr().err


def _stored(store: Path, journal: Journal) -> bool:
    table = journal.path.stem
    return (_count(store, "SELECT COUNT(*) FROM events WHERE table_id = ?", table)
            == journal.last_committed_seq
            and _count(store, "SELECT COUNT(*) FROM rounds WHERE table_id = ?", table)
            == len(journal.rounds()))


def _same_as_journal(store: Path, journal: Journal) -> None:
    table = journal.path.stem
    assert _rows(store, "SELECT seq, source, source_ref FROM events WHERE table_id = ? "
                 "ORDER BY seq", table) == [(e.seq, e.source, e.source_ref)
                                            for e in journal.events()]
    assert _rows(store, "SELECT round_no, start_seq, end_seq FROM rounds WHERE table_id = ? "
                 "ORDER BY round_no", table) == [(r.round_no, r.start_seq, r.end_seq)
                                                 for r in journal.rounds()]


def test_two_floors_split_the_tables_messages_and_store_each_once(
        broker: Mosquitto, tmp_path: Path) -> None:
    store_path = tmp_path / "floor.sqlite"
    stores = [FloorStore(store_path), FloorStore(store_path)]
    # No resend can be asked within the test: what the store holds came through the
    # shared subscription, each message to one floor.
    floors = [Floor(parse_url(broker.url), store, client_id=f"floor-{name}", share="floor",
                    resend_after_s=300.0) for name, store in zip("ab", stores, strict=True)]
    changed = Signal()  # woken by either floor after each batch it stored
    for floor in floors:
        floor.watchers.add(changed.notify)
        floor.start()
    journals = [make_journal(tmp_path / f"bj-{n}.sqlite", 30) for n in (1, 2, 3)]
    publishers = [Publisher(from_options(broker.url, j.path.stem), j.path) for j in journals]
    try:
        for publisher in publishers:
            publisher.start()
        for journal in journals:
            changed.wait_until(lambda j=journal: _stored(store_path, j),
                               f"{journal.path.stem} stored", 60)
        total = sum(j.last_committed_seq for j in journals)
        # Each floor stored a part, the two parts are the whole, nothing came twice. (A
        # floor counts a batch a moment after its commit, which the test sees first.)
        changed.wait_until(lambda: sum(floor.stored_events for floor in floors) == total,
                           "the floors' counts", 20)
        assert all(floor.stored_events > 0 for floor in floors)
        assert sum(floor.duplicates for floor in floors) == 0
        # Each floor still sees every table's status and state (not shared).
        for floor in floors:
            changed.wait_until(lambda f=floor: {i.table: i.status for i in f.snapshot()} == {
                "bj-1": "online", "bj-2": "online", "bj-3": "online"}, "every status", 20)

        # One floor goes away: the other alone takes what the tables play next.
        floors[0].stop()
        before = floors[1].stored_events
        for journal, publisher in zip(journals, publishers, strict=True):
            add_rounds(journal, 10, first=31)
            publisher.wake()
        for journal in journals:
            changed.wait_until(lambda j=journal: _stored(store_path, j),
                               f"{journal.path.stem} again", 60)
        changed.wait_until(lambda: floors[1].stored_events - before == 3 * 10 * 4,
                           "the second floor's count of all 120", 20)
        for journal in journals:
            _same_as_journal(store_path, journal)
    finally:
        for publisher in publishers:
            publisher.stop()
        for floor in floors:
            floor.stop()
        for store in stores:
            store.close()
        for journal in journals:
            journal.close()


class SharedRun(Run):
    """Simulated tables as processes, and floor processes of one share group."""

    def start_shared_floor(self, name: str) -> subprocess.Popen[bytes]:
        return self.floor_process(f"floor-{name}", ["--share", "floor", "--client-id",
                                                    f"floor-{name}"])


@pytest.mark.slow
def test_a_floor_of_the_group_killed_loses_nothing(broker: Mosquitto, tmp_path: Path) -> None:
    run = SharedRun(broker, tmp_path)
    floors: dict[str, subprocess.Popen[bytes]] = {}
    try:
        floors["a"] = run.start_shared_floor("a")
        floors["b"] = run.start_shared_floor("b")
        # Each floor made the store before it connected (what `start_shared_floor` waits for).
        assert _count(run.store, "SELECT COUNT(*) FROM meta") > 0
        for table in ("bj-1", "bj-2"):
            run.start_table(table, 120)
        wait_progressing(lambda: run.floor_events("bj-1") > 300
                         and run.floor_events("bj-2") > 300,
                         lambda: (run.events(), run.floor_events("bj-1")), "the floors storing")
        floors["b"].send_signal(signal.SIGKILL)  # what it held and had not stored is gone
        floors["b"].wait(10)
        wait_progressing(lambda: run.floor_events("bj-1") > 600,
                         lambda: (run.events(), run.floor_events("bj-1")), "floor a storing alone")
        floors["b"] = run.start_shared_floor("b")
        for table in run.tables:
            assert run.wait_table(table) == 0, (tmp_path / f"{table}.log").read_text()
        # What a table had not got acknowledged when it stopped goes out at its next start.
        journals = [Journal(run.journal(t)) for t in ("bj-1", "bj-2")]
        publishers = [Publisher(from_options(broker.url, j.path.stem), j.path)
                      for j in journals]
        for publisher in publishers:
            publisher.start()
        try:
            for journal in journals:
                wait_progressing(lambda j=journal: _stored(run.store, j),
                                 lambda j=journal: run.floor_events(j.path.stem),
                                 f"the floors to hold all of {journal.path.stem}")
        finally:
            for publisher in publishers:
                publisher.stop()
        for name, process in floors.items():
            process.send_signal(signal.SIGTERM)
            assert process.wait(20) == 0
            run.outputs[f"floor-{name}"].join(10)
            said = (tmp_path / f"floor-{name}.out").read_text().splitlines()[-1]
            assert said.startswith("floor stopped: "), said
            if name == "a":  # stored a part (b's second life may have come after the play)
                assert not said.startswith("floor stopped: 0 event(s)"), said
        for journal in journals:
            _same_as_journal(run.store, journal)
            journal.close()
        for name in floors:
            assert "Traceback" not in (tmp_path / f"floor-{name}.log").read_text()
    finally:
        run.stop_all()
        for process in floors.values():
            if process.poll() is None:
                process.kill()
                process.wait(10)
