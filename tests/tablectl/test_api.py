"""The local API over real HTTP on 127.0.0.1 (port 0), on a real service and journal.

Writes carry a token the server issued for a device ("device:terminal") unless a
test says otherwise; authentication itself is in test_api_auth.py."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from journal import Journal, JournalReader
from table.machine import Table
from table.profiles import load_profile
from tablectl.api import ApiServer
from tablectl.links import HttpTableLink
from tablectl.service import TableService
from tests.tablectl.http_calls import call


@dataclass
class Api:
    service: TableService
    server: ApiServer
    journal_path: Path
    token: str = ""

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
        answer = call(self.server.address, method, path, body, headers)
        return answer.status, answer.body

    def post(self, event: Any, ref: str | None = None) -> tuple[int, dict[str, Any]]:
        body: dict[str, Any] = {"event": event}
        if ref is not None:
            body["id"] = ref
        return self.request("POST", "/events", json.dumps(body).encode(),
                            {"Content-Type": "application/json",
                             "Authorization": f"Bearer {self.token}"})

    def state(self) -> dict[str, Any]:
        status, answer = self.request("GET", "/state")
        assert status == 200
        return answer

    def stored_events(self) -> list[tuple[str, str | None, dict[str, Any]]]:
        with JournalReader(self.journal_path) as reader:
            return [(e.source, e.source_ref, e.event) for e in reader.events()]


def _start(tmp_path: Path, capped: bool = False,
           rules: dict[str, Any] | None = None) -> Iterator[Api]:
    """`capped`: the journal may not grow past the pages a fresh file has, so SQLite
    really reports it full after about a hundred small events."""
    path = tmp_path / "journal.sqlite"
    max_pages = None
    if capped:
        with Journal(path, profile="casinos-austria") as fresh:
            max_pages = int(fresh._db.execute("PRAGMA page_count").fetchone()[0])
    journal = Journal(path, profile="casinos-austria", max_pages=max_pages, rules=rules)
    service = TableService(Table(load_profile("casinos-austria", rules)), journal)
    loop = threading.Thread(target=service.run, daemon=True)
    loop.start()
    server = ApiServer(service, "127.0.0.1", 0)
    server.start()
    try:
        yield Api(service, server, path, server.auth.issue_token("terminal", "device"))
    finally:
        server.stop()
        service.stop()
        loop.join(5.0)
        journal.close()


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    yield from _start(tmp_path)


def bet(box: int, amount: int) -> dict[str, Any]:
    return {"bet": {"box": box, "amount": amount}}


def test_a_bet_posted_is_in_the_state(api: Api) -> None:
    assert api.server.address[1] != 0
    status, answer = api.post(bet(3, 250), "terminal-3:1")
    assert status == 200
    assert answer == {"stored": True, "accepted": True, "reason": None, "seq": 1,
                      "duplicate": False, "flags": []}
    state = api.state()
    assert state["journal_seq"] == 1 and state["journal_fault"] is None
    assert state["shoe_online"] is True
    assert state["due"]["phase"] == "betting" and state["due"]["round"] == 1
    assert [(b["number"], b["bets"]) for b in state["view"]["boxes"]] == [
        (3, [["box3", "main", 250]])
    ]
    assert api.stored_events() == [("device:terminal", "terminal-3:1", bet(3, 250))]


def test_the_same_id_twice_is_one_bet(api: Api) -> None:
    first = api.post(bet(1, 100), "terminal-1:7")
    again = api.post(bet(1, 100), "terminal-1:7")
    assert first[0] == again[0] == 200
    assert first[1]["duplicate"] is False and again[1]["duplicate"] is True
    assert again[1]["stored"] is True
    assert again[1]["seq"] == first[1]["seq"]  # the answer names the event stored first
    assert [b["bets"] for b in api.state()["view"]["boxes"]] == [[["box1", "main", 100]]]
    assert len(api.stored_events()) == 1
    # Without an id nothing is deduplicated: a second call is a second bet.
    api.post(bet(1, 100))
    api.post(bet(1, 100))
    assert [b["bets"] for b in api.state()["view"]["boxes"]] == [[["box1", "main", 300]]]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"event": {"bet": ', "the body is not JSON"),
        (b"\xff\xfe not text", "the body is not JSON"),
        (b'{"event": "bet"}', 'expected {"event": {...}, "id": "..."}'),
        (b'{"bet": {"box": 1, "amount": 100}}', 'expected {"event": {...}, "id": "..."}'),
        (b'[1, 2]', 'expected {"event": {...}, "id": "..."}'),
        (b'{"event": {"card": "1X"}, "id": "t:1"}', "not a table event"),
        (b'{"event": {"bet": {"box": 0, "amount": 10}}}', "box must be a box number 1 to 7"),
        (b'{"event": {"bet": {"box": 1, "amount": 10}}, "id": 5}', "id must be a text"),
        (b'{"event": {"bet": {"box": 1, "amount": 10}}, "extra": 1}', "unknown key"),
        (b'{"event": {"bet": {"box": 1, "amount": NaN}}}', "not JSON"),
        (b'{"event": {"do": {"box": 1, "action": "fly"}}}', "unknown action"),
        (b"[" * 4000 + b"]" * 4000, "nests deeper"),
        (b'{"event": {"bet": {"box": 1, "amount": 10}}, "id": "'
         + b"[" * 5000 + b'"}', "id must be a text"),
    ],
)
def test_bad_calls_are_400_with_a_clear_message_and_store_nothing(
        api: Api, body: bytes, message: str) -> None:
    status, answer = api.request("POST", "/events", body, {
        "Content-Type": "application/json", "Authorization": f"Bearer {api.token}"})
    assert status == 400
    assert message in answer["error"], answer
    assert api.stored_events() == []
    assert api.state()["view"]["boxes"] == []


def test_an_unknown_card_names_the_card_and_how_to_write_one(api: Api) -> None:
    status, answer = api.post({"card": "1X"}, "t:1")
    assert status == 400
    assert "unknown card '1X'" in answer["error"]
    assert "rank" in answer["error"] and "suit" in answer["error"]


def test_an_empty_body_is_refused(api: Api) -> None:
    status, answer = api.request("POST", "/events", b"", {
        "Content-Length": "0", "Authorization": f"Bearer {api.token}"})
    assert status == 400 and "send a JSON body" in answer["error"]


def test_an_oversized_body_is_413_and_nothing_is_stored(api: Api) -> None:
    body = json.dumps({"event": bet(1, 100), "id": "x" * 100_000}).encode()
    status, answer = api.request("POST", "/events", body, {
        "Content-Type": "application/json", "Authorization": f"Bearer {api.token}"})
    assert status == 413 and "larger than" in answer["error"]
    assert api.stored_events() == []


@pytest.mark.parametrize("amount", [10**30, int("9" * 4200), 10**6 + 1, 1.5, "100", True, -10, 0])
def test_an_amount_outside_the_limits_is_422_and_nothing_is_stored(
        api: Api, amount: Any) -> None:
    status, answer = api.post({"bet": {"box": 1, "amount": amount}}, "t:big")
    assert status == 422, answer
    assert "amount" in answer["error"] and len(answer["error"]) < 300
    assert api.stored_events() == [] and api.state()["view"]["boxes"] == []


def test_a_bet_over_the_box_limit_of_the_profile_is_refused_and_not_stored(
        tmp_path: Path) -> None:
    for api in _start(tmp_path, rules={"max_box_total": 500}):
        limit = 500
        status, answer = api.post(bet(1, limit + 1))
        assert status == 422 and str(limit) in answer["error"]
        assert api.post(bet(1, limit))[0] == 200
        status, answer = api.post(bet(1, limit))  # the box would hold twice the limit
        assert status == 422 and answer["stored"] is False
        assert len(api.stored_events()) == 1


def test_the_same_id_with_another_event_is_409_and_stores_nothing(api: Api) -> None:
    assert api.post(bet(1, 100), "terminal-1:7")[0] == 200
    status, answer = api.post(bet(1, 500), "terminal-1:7")
    assert status == 409 and "different event" in answer["error"]
    assert len(api.stored_events()) == 1
    assert [b["bets"] for b in api.state()["view"]["boxes"]] == [[["box1", "main", 100]]]
    # The same event again is the first answer, not a conflict.
    status, answer = api.post(bet(1, 100), "terminal-1:7")
    assert status == 200 and answer["duplicate"] is True


def test_a_decision_for_a_box_that_is_not_up_is_refused_and_not_stored(api: Api) -> None:
    events = [bet(1, 100), bet(2, 100), {"deal": {}}, {"card": "TS"}, {"card": "9D"},
              {"card": "6C"}, {"card": "8H"}, {"card": "7D"}]
    for event in events:
        assert api.post(event)[1]["accepted"] is True
    assert api.state()["due"]["box"] == 1
    status, answer = api.post({"do": {"box": 2, "action": "stand"}}, "terminal-2:3")
    assert status == 422
    assert answer["stored"] is False and answer["accepted"] is False
    assert "box 1" in answer["error"], answer["error"]
    assert len(api.stored_events()) == len(events)
    # Nothing changed at the table: box 1 is still up, and the round notes no refusal.
    assert api.state()["due"]["box"] == 1
    assert api.service.ask(lambda table: table.current_result())["refused"] == []


def test_health_and_unknown_paths(api: Api) -> None:
    # A table without a camera: nothing about one.
    assert api.request("GET", "/health") == (200, {"ok": True, "status": "ok",
                                                   "journal_fault": None, "camera": None})
    assert api.state()["camera"] is None
    status, answer = api.request("GET", "/nothing")
    assert status == 404 and "GET /state" in answer["error"]
    status, answer = api.request("POST", "/state", b"{}",
                                 {"Authorization": f"Bearer {api.token}"})
    assert status == 405 and "not allowed" in answer["error"]


def test_a_full_journal_makes_the_api_unavailable(tmp_path: Path) -> None:
    for api in _start(tmp_path, capped=True):
        answers = []
        for i in range(1000):
            status, answer = api.post(bet(1 + i % 7, 10), f"t:{i}")
            answers.append((status, answer))
            if status != 200:
                break
        status, answer = answers[-1]
        assert status == 503, "the capped journal never filled"
        assert answer["stored"] is False and "journal cannot store" in answer["reason"]
        health_status, health = api.request("GET", "/health")
        assert health_status == 503 and health["ok"] is False
        assert "journal cannot store" in health["journal_fault"]
        assert api.state()["journal_fault"] == health["journal_fault"]
        assert len(api.stored_events()) == len(answers) - 1


def test_the_http_link_reads_the_table_exactly(api: Api) -> None:
    link = HttpTableLink(api.server.url, token=api.token)
    try:
        for i, event in enumerate([bet(1, 100), {"deal": {}}, {"card": "9S"}, {"card": "AD"},
                                   {"card": "9H"}]):
            sent = link.send(event, f"dealer:{i}")
            assert sent.stored and sent.accepted
        assert link.send(bet(1, 100), "dealer:0").duplicate
        # The dealer's ace opened the insurance window.
        assert link.due() == api.service.table.due()
        assert link.due().phase == "insurance"
        assert link.view() == api.service.table.view()
    finally:
        link.close()


def test_a_refused_call_is_not_a_duplicate_when_sent_again(api: Api) -> None:
    # Nothing is dealt yet, so box 1 cannot stand: refused, and nothing is stored.
    stand = {"do": {"box": 1, "action": "stand"}}
    first = api.post(stand, "terminal-1:1")
    again = api.post(stand, "terminal-1:1")
    assert first[0] == again[0] == 422
    assert again[1]["duplicate"] is False and again[1]["error"] == first[1]["error"]
    assert api.stored_events() == []


@pytest.mark.parametrize("hang_up", [BrokenPipeError, ConnectionResetError,
                                     ConnectionAbortedError])
def test_a_caller_that_hangs_up_is_not_logged_as_an_api_fault(
        hang_up: type[ConnectionError], caplog: pytest.LogCaptureFixture) -> None:
    import asyncio
    from types import SimpleNamespace

    from tablectl.api import ApiServer

    async def handler(request: object) -> object:
        raise hang_up("the caller is gone")

    request = SimpleNamespace(method="GET", path="/state")
    with pytest.raises(hang_up):
        asyncio.run(ApiServer._errors(SimpleNamespace(), request, handler))  # type: ignore[arg-type]
    assert not [r for r in caplog.records if r.exc_info], caplog.text


def test_relearning_the_house_deck_before_the_camera_has_started_is_503(
        tmp_path: Path) -> None:
    """The API is up a moment before the camera: the pit's call does nothing and says so."""
    from tablectl.api import ApiServer
    from tests.tablectl.http_calls import bearer, call

    journal = Journal(tmp_path / "journal.sqlite", profile="casinos-austria")
    service = TableService(Table(load_profile("casinos-austria")), journal)
    calls: list[str] = []

    def relearn() -> None:
        calls.append("relearn")
        return None

    server = ApiServer(service, "127.0.0.1", 0, relearn=relearn)
    server.start()
    try:
        pit = bearer(server.auth.issue_token("pit-1", "pit"))
        answer = call(server.address, "POST", "/camera/house-deck/relearn", {}, pit)
        assert answer.status == 503 and "the camera is starting" in answer.body["error"]
        assert calls == ["relearn"]
    finally:
        server.stop()
        journal.close()
