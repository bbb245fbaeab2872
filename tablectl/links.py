"""The virtual dealer's ways to the table: in-process through the service, or over
the local API from another process (hardware-in-the-loop runs, crash tests)."""

from __future__ import annotations

import http.client
import json
import threading
import time
from dataclasses import fields
from typing import Any
from urllib.parse import urlsplit

from hwsim.dealer.protocols import DealerError, Sent, TableUnavailable

from table.views import BoxView, Due, Outcome, TableView, due_from_json, view_from_json
from tablectl.service import Receipt, Submission, TableService

# How often `HttpTableLink.wait_ready` asks a table's API that does not answer yet.
READY_RETRY_S = 0.05


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
    """Makes a shadow dealer's events (`hwsim.dealer.shadow.ShadowLink`) into
    submissions that check the table's answer against the dealer's own table's:
    a difference (the two tables no longer the same) or an event not stored is
    kept in `error`, and the next event made raises it. Whoever submits them
    keeps them in order with the shoe's frames (`tablectl.sim_order`)."""

    def __init__(self, source: str = "sim") -> None:
        self.source = source
        self.forwarded = 0
        self.answered = 0
        self.error: str | None = None
        self._answers = threading.Condition()

    def submission(self, event: dict[str, Any], ref: str, expected: Outcome) -> Submission:
        """The event as a submission; raises the error kept from an earlier one."""
        if self.error is not None:
            raise DealerError(self.error)

        def answered(receipt: Receipt) -> None:
            with self._answers:
                if self.error is None:
                    self.error = self._difference(event, ref, receipt, expected)
                self.answered += 1
                self._answers.notify_all()

        self.forwarded += 1
        return Submission(event, self.source, ref, reply=answered)

    @staticmethod
    def _difference(event: dict[str, Any], ref: str, receipt: Receipt,
                    expected: Outcome) -> str | None:
        if not receipt.stored and not receipt.malformed:
            return f"the table did not store {event} (ref {ref}): {receipt.reason}"
        if (receipt.malformed or receipt.accepted != expected.accepted
                or receipt.flags != expected.flags):
            return (f"the table answered {event} (ref {ref}) with accepted="
                    f"{receipt.accepted} {receipt.reason or ''} {receipt.flags}, the "
                    f"dealer's own table with accepted={expected.accepted} "
                    f"{expected.reason or ''} {expected.flags}: they differ")
        return None

    def wait_answered(self, timeout_s: float) -> bool:
        """True once the table has answered every event made (each stored or not)."""
        with self._answers:
            return self._answers.wait_for(lambda: self.answered >= self.forwarded,
                                          timeout_s)


def views_difference(daemons: TableView, dealers: TableView) -> str | None:
    """In one short line, how the daemon's table and the dealer's own differ; None if
    alike. Events made by neither dealer (one posted through the API) can leave every
    answer alike and still part the two tables; the end of a run looks at both."""
    parts = []
    for name in (field.name for field in fields(daemons)):
        ours, his = getattr(daemons, name), getattr(dealers, name)
        if ours == his:
            continue
        if name == "boxes":
            parts.extend(_boxes_difference(ours, his))
        else:
            parts.append(f"{name} {_short(ours)} against {_short(his)}")
    if not parts:
        return None
    return "the table and the dealer's own table differ at the end: " + "; ".join(parts)


def _boxes_difference(ours: tuple[BoxView, ...], his: tuple[BoxView, ...]) -> list[str]:
    """Each box that differs, by its hands (cards and status) on either table."""
    def cards(boxes: tuple[BoxView, ...]) -> dict[int, str]:
        return {box.number: (" / ".join(" ".join((*hand.cards, hand.status))
                                        for hand in box.hands) or "no hand")
                + (", its turn" if box.active else "") for box in boxes}

    our_boxes, his_boxes = {b.number: b for b in ours}, {b.number: b for b in his}
    our_cards, his_cards = cards(ours), cards(his)
    return [f"box {number} ({our_cards.get(number, 'absent')}) against "
            f"({his_cards.get(number, 'absent')})"
            for number in sorted(set(our_boxes) | set(his_boxes))
            if our_boxes.get(number) != his_boxes.get(number)]


def _short(value: object) -> str:
    """A view's field as a short text: tuples of codes joined by spaces."""
    if isinstance(value, tuple):
        return "(" + " ".join(str(item) for item in value) + ")"
    return repr(value)


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
        """True once the table's API answers, False after `timeout_s`. The API is
        another process's port: nothing tells this one when it opens, so it is asked
        again every `READY_RETRY_S` (an external poll, bounded by `timeout_s`)."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                self.state()
                return True
            except TableUnavailable:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                time.sleep(min(READY_RETRY_S, left))

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
