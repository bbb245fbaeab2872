"""The virtual dealer's ways to the table: in-process through the service, or over
the local API from another process (hardware-in-the-loop runs, crash tests)."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from hwsim.dealer.protocols import DealerError, Sent, TableUnavailable

from table.views import Due, Outcome, TableView, due_from_json, view_from_json
from tablectl.service import Receipt, Submission, TableService


class ServiceLink:
    """A `TableLink` on the daemon's own service: `send` returns once stored."""

    def __init__(self, service: TableService, source: str = "sim",
                 timeout_s: float = 10.0) -> None:
        self.service = service
        self.source = source
        self.timeout_s = timeout_s

    def due(self) -> Due:
        return self.service.snapshot.due

    def view(self) -> TableView:
        return self.service.snapshot.view

    def send(self, event: dict[str, Any], ref: str) -> Sent:
        receipt = self.service.submit_and_wait(event, self.source, ref, self.timeout_s)
        if not receipt.stored:
            raise TableUnavailable(receipt.reason or "the table did not store the event")
        return Sent(receipt.stored, receipt.accepted, receipt.reason, receipt.duplicate)


class ServiceForward:
    """Hands a shadow dealer's events (`hwsim.dealer.shadow.ShadowLink`) to the
    service without waiting: each is held until the table has applied the shoe
    frames that came before it (`frames_taken() >= after_frames`). The table's
    answer is checked against the dealer's own table's: a difference (the two
    tables no longer the same) or an event not stored is kept in `error`, and
    the next event handed on raises it."""

    def __init__(self, service: TableService, frames_taken: Callable[[], int] = lambda: 0,
                 source: str = "sim") -> None:
        self.service = service
        self.frames_taken = frames_taken
        self.source = source
        self.forwarded = 0
        self.applied = 0
        self.error: str | None = None

    def __call__(self, event: dict[str, Any], ref: str, after_frames: int,
                 expected: Outcome) -> None:
        frames_taken = self.frames_taken

        def ready() -> bool:
            return frames_taken() >= after_frames

        self.service.submit(self.submission(event, ref, expected, ready))

    def submission(self, event: dict[str, Any], ref: str, expected: Outcome,
                   ready: Callable[[], bool] | None = None) -> Submission:
        """The event as a submission that checks the table's answer against
        `expected`; raises the error kept from an earlier one."""
        if self.error is not None:
            raise DealerError(self.error)

        def handled(receipt: Receipt) -> None:
            self.applied += 1  # on the loop thread only
            if (receipt.malformed or receipt.accepted != expected.accepted
                    or receipt.flags != expected.flags):
                self.error = (f"the table answered {event} (ref {ref}) with accepted="
                              f"{receipt.accepted} {receipt.reason or ''} {receipt.flags}, "
                              f"the dealer's own table with accepted={expected.accepted} "
                              f"{expected.reason or ''} {expected.flags}: they differ")

        def stored(receipt: Receipt) -> None:
            if not receipt.stored and self.error is None:
                self.error = f"the table did not store {event} (ref {ref}): {receipt.reason}"

        self.forwarded += 1
        return Submission(event, self.source, ref, reply=stored, handled=handled, ready=ready)

    def wait_applied(self, timeout_s: float) -> bool:
        """True once the table has applied every event handed on."""
        deadline = time.monotonic() + timeout_s
        while self.applied < self.forwarded:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.002)
        return True


class HttpTableLink:
    """A `TableLink` over the local API (`tablectl/api.py`). Connection failures
    raise `TableUnavailable`, so a dealer retries while the daemon restarts.
    `token`: the bearer token its writes carry (`tablectl users add NAME --role
    device`, or one the daemon issued)."""

    def __init__(self, url: str, timeout_s: float = 10.0, token: str | None = None) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"{url!r}: give the API as http://HOST:PORT")
        self.host = parts.hostname
        self.port = parts.port or 80
        self.timeout_s = timeout_s
        self.token = token
        self._conn: http.client.HTTPConnection | None = None

    def state(self) -> dict[str, Any]:
        return self._request("GET", "/state")

    def due(self) -> Due:
        return due_from_json(self.state()["due"])

    def view(self) -> TableView:
        return view_from_json(self.state()["view"])

    def send(self, event: dict[str, Any], ref: str) -> Sent:
        answer = self._request("POST", "/events", {"event": event, "id": ref})
        if answer.get("error") is not None and not answer.get("stored"):
            return Sent(False, False, answer.get("reason") or answer["error"], False)
        return Sent(bool(answer["stored"]), bool(answer["accepted"]), answer.get("reason"),
                    bool(answer.get("duplicate")))

    def wait_ready(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                self.state()
                return True
            except TableUnavailable:
                time.sleep(0.05)
        return False

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _request(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        try:
            if self._conn is None:
                self._conn = http.client.HTTPConnection(self.host, self.port,
                                                        timeout=self.timeout_s)
            self._conn.request(method, path, body=data, headers=headers)
            response = self._conn.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException) as error:
            self.close()
            raise TableUnavailable(f"the table's API does not answer: {error}") from error
        if response.status == 503:
            raise TableUnavailable(json.loads(payload).get("reason") or "the table cannot store")
        answer: dict[str, Any] = json.loads(payload)
        if response.status == 422:  # refused by the rules: nothing stored
            return answer
        if response.status != 200:
            raise ValueError(f"{method} {path}: {answer.get('error', answer)}")
        return answer
