"""Who may write through the local API: tokens, logins, sessions, CSRF, roles."""

from __future__ import annotations

import json
import logging
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
from tablectl.auth import Authenticator, UsersFile
from tablectl.cli import main
from tablectl.service import TableService
from tests.tablectl.http_calls import call

PIT_PASSWORD = "green felt 7"
DEALER_PASSWORD = "shuffle up 9"


@dataclass
class Rig:
    server: ApiServer
    service: TableService
    journal_path: Path
    users: UsersFile
    device_token: str

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any], Any]:
        answer = call(self.server.address, method, path, body, headers)
        return answer.status, answer.body, answer.headers

    def login(self, user: str, password: str) -> tuple[int, dict[str, Any], str | None]:
        status, answer, headers = self.request("POST", "/login",
                                               {"user": user, "password": password})
        cookie = headers.get("Set-Cookie")
        return status, answer, cookie.split(";")[0] if cookie else None

    def stored(self) -> list[tuple[str, dict[str, Any]]]:
        with JournalReader(self.journal_path) as reader:
            return [(e.source, e.event) for e in reader.events()]


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    users = UsersFile(tmp_path / "users.json")
    users.add_person("anna", "pit", PIT_PASSWORD)
    users.add_person("bob", "dealer", DEALER_PASSWORD)
    device_token = users.add_device("terminal-3")
    path = tmp_path / "journal.sqlite"
    journal = Journal(path, profile="casinos-austria")
    service = TableService(Table(load_profile("casinos-austria")), journal)
    loop = threading.Thread(target=service.run, daemon=True)
    loop.start()
    server = ApiServer(service, "127.0.0.1", 0, auth=Authenticator(users))
    server.start()
    try:
        yield Rig(server, service, path, users, device_token)
    finally:
        server.stop()
        service.stop()
        loop.join(5.0)
        journal.close()


BET = {"event": {"bet": {"box": 1, "amount": 100}}, "id": "t:1"}


@pytest.mark.parametrize("authorization", [
    None, "Bearer", "Bearer tct_forged", "Basic YW5uYTpncmVlbg==", "bearer  ",
])
def test_a_write_without_a_valid_token_is_401_before_the_body_is_read(
        rig: Rig, authorization: str | None) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    for body in (json.dumps(BET).encode(), b"[" * 5000, b"not json at all"):
        status, answer, _ = rig.request("POST", "/events", body, headers)
        assert status == 401, (authorization, body[:20], answer)
        assert "Bearer" in answer["error"]
    assert rig.stored() == []


def test_a_device_token_writes_as_that_device(rig: Rig) -> None:
    status, answer, _ = rig.request("POST", "/events", BET,
                                    {"Authorization": f"Bearer {rig.device_token}"})
    assert status == 200 and answer["stored"] is True
    assert rig.stored() == [("device:terminal-3", BET["event"])]


def test_an_expired_or_removed_token_is_401(rig: Rig) -> None:
    expired = rig.users.add_device("old-terminal", expires_days=-1)
    status, _, _ = rig.request("POST", "/events", BET, {"Authorization": f"Bearer {expired}"})
    assert status == 401
    rig.users.remove("terminal-3")
    status, _, _ = rig.request("POST", "/events", BET,
                               {"Authorization": f"Bearer {rig.device_token}"})
    assert status == 401
    assert rig.stored() == []


def _halt_a_round(rig: Rig) -> None:
    """A dealt round the dealer reports an unreadable card in: held for the pit."""
    device = {"Authorization": f"Bearer {rig.device_token}"}
    for n, event in enumerate([{"bet": {"box": 1, "amount": 100}}, {"deal": {}},
                               {"card": "9S"}, {"card": "7H"}]):
        status, answer, _ = rig.request("POST", "/events", {"event": event, "id": f"d:{n}"},
                                        device)
        assert status == 200 and answer["accepted"], answer
    token = rig.server.auth.issue_token("console", "dealer")
    status, answer, _ = rig.request("POST", "/events", {"event": {"flag": "UNREADABLE_CARD"}},
                                    {"Authorization": f"Bearer {token}"})
    assert status == 200 and answer["flags"] == ["UNREADABLE_CARD"]
    assert rig.service.snapshot.due.halted


def test_only_the_pit_resolves_a_misdeal_and_the_journal_says_who(rig: Rig) -> None:
    _halt_a_round(rig)
    before = rig.stored()
    void = {"event": {"resolve": "void"}, "id": "pit:1"}
    for token in (rig.device_token, rig.server.auth.issue_token("ops", "admin")):
        status, answer, _ = rig.request("POST", "/events", void,
                                        {"Authorization": f"Bearer {token}"})
        assert status == 403 and "pit" in answer["error"]
    status, me, cookie = rig.login("bob", DEALER_PASSWORD)
    assert status == 200 and me["role"] == "dealer" and me["may_resolve"] is False
    assert cookie is not None
    status, answer, _ = rig.request("POST", "/events", void,
                                    {"Cookie": cookie, "X-CSRF-Token": me["csrf"]})
    assert status == 403
    assert rig.stored() == before and rig.service.snapshot.due.halted
    status, me, cookie = rig.login("anna", PIT_PASSWORD)
    assert status == 200 and me["may_resolve"] is True and cookie is not None
    status, answer, _ = rig.request("POST", "/events", void,
                                    {"Cookie": cookie, "X-CSRF-Token": me["csrf"]})
    assert status == 200 and answer["accepted"] is True
    assert rig.stored()[-1] == ("pit:anna", {"resolve": "void"})
    assert rig.service.snapshot.view.phase == "void"


def test_a_session_write_needs_its_csrf_token_and_ends_at_logout(rig: Rig) -> None:
    status, me, cookie = rig.login("anna", PIT_PASSWORD)
    assert status == 200 and cookie is not None
    for headers in ({"Cookie": cookie}, {"Cookie": cookie, "X-CSRF-Token": "forged"}):
        status, answer, _ = rig.request("POST", "/events", BET, headers)
        assert status == 403 and "X-CSRF-Token" in answer["error"]
    forged = {"Cookie": "tablectl_session=forged", "X-CSRF-Token": me["csrf"]}
    assert rig.request("POST", "/events", BET, forged)[0] == 401
    assert rig.stored() == []
    assert rig.request("GET", "/me", headers={"Cookie": cookie})[1]["user"] == "anna"
    assert rig.request("POST", "/logout", headers={"Cookie": cookie})[0] == 200
    assert rig.request("GET", "/me", headers={"Cookie": cookie})[0] == 401
    status, _, _ = rig.request("POST", "/events", BET,
                               {"Cookie": cookie, "X-CSRF-Token": me["csrf"]})
    assert status == 401


def test_wrong_passwords_are_refused_then_rate_limited_and_logged(
        rig: Rig, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="tablectl")
    statuses = [rig.login("anna", f"wrong {n}")[0] for n in range(5)]
    assert statuses == [401] * 5
    status, answer, _ = rig.request("POST", "/login", {"user": "anna",
                                                       "password": PIT_PASSWORD})
    assert status == 429 and "too many failed logins" in answer["error"]
    assert sum("failed login for 'anna'" in r.getMessage() for r in caplog.records) == 5
    assert any("too many failures" in r.getMessage() for r in caplog.records)
    # The address is held back too, whatever user it tries next.
    assert rig.login("bob", DEALER_PASSWORD)[0] == 429


def test_an_unknown_user_is_refused_in_the_words_of_a_wrong_password(rig: Rig) -> None:
    assert rig.login("nobody", "x")[1] == rig.login("anna", "x")[1] == {
        "error": "wrong user or password"}


def test_reads_of_the_display_need_a_login(rig: Rig) -> None:
    for path in ("/display/rounds", "/display/rounds/1", "/display/stream", "/me"):
        status, answer, _ = rig.request("GET", path)
        assert status == 401 and "log in" in answer["error"] or answer["error"] == "not logged in"
    assert rig.request("GET", "/state")[0] == 200  # the table's state stays readable


def test_the_users_command_adds_lists_and_removes(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(tmp_path / "users.json")
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("long enough password\n"))
    assert main(["users", "--users", path, "add", "carla", "--role", "pit",
                 "--password-stdin"]) == 0
    assert main(["users", "--users", path, "add", "reader-1", "--role", "device"]) == 0
    token = capsys.readouterr().out.strip().splitlines()[-1]
    auth = Authenticator(UsersFile(path))
    principal = auth.by_token(token)
    assert principal is not None and principal.source == "device:reader-1"
    assert auth.login("carla", "long enough password", ("k",)) is not None
    assert main(["users", "--users", path, "list"]) == 0
    listing = capsys.readouterr().out
    assert "carla" in listing and "reader-1" in listing and "scrypt" not in listing
    stored = Path(path).read_text()
    assert token not in stored and "long enough password" not in stored
    assert Path(path).stat().st_mode & 0o077 == 0
    assert main(["users", "--users", path, "remove", "carla"]) == 0
    assert auth.login("carla", "long enough password", ("k",)) is None
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert main(["users", "--users", path, "add", "dan", "--role", "dealer",
                 "--password-stdin"]) == 2


def test_a_session_expires_and_a_login_limit_passes(tmp_path: Path) -> None:
    from tablectl.auth import LOGIN_WINDOW_S, SESSION_S

    now = [1_000_000.0]
    users = UsersFile(tmp_path / "users.json")
    users.add_person("anna", "pit", PIT_PASSWORD)
    auth = Authenticator(users, clock=lambda: now[0])
    login = auth.login("anna", PIT_PASSWORD, ("user:anna",))
    assert login is not None
    cookie, principal = login
    assert auth.by_session(cookie) == principal
    now[0] += SESSION_S + 1
    assert auth.by_session(cookie) is None
    for _ in range(5):
        assert auth.login("anna", "wrong", ("user:anna",)) is None
    assert auth.login_blocked(("user:anna",)) > 0
    now[0] += LOGIN_WINDOW_S + 1
    assert auth.login_blocked(("user:anna",)) == 0
