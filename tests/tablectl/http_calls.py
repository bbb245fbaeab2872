"""The tests' HTTP calls to the table's API, its pit display and the floor's page."""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any  # the JSON answer ({} for an empty body)
    headers: http.client.HTTPMessage

    @property
    def cookie(self) -> str | None:
        """The `name=value` of the cookie the answer sets, if it sets one."""
        cookie = self.headers.get("Set-Cookie")
        return cookie.split(";")[0] if cookie else None


def call(address: tuple[str, int], method: str, path: str, body: Any = None,
         headers: dict[str, str] | None = None, timeout_s: float = 15.0) -> Answer:
    """One call on a connection of its own; `body` bytes as they are, anything else
    but None as JSON."""
    host, port = address
    headers = dict(headers or {})
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    if data is not None and not isinstance(body, bytes):
        headers.setdefault("Content-Type", "application/json")
    conn = http.client.HTTPConnection(host, port, timeout=timeout_s)
    try:
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        return Answer(response.status, json.loads(response.read() or b"{}"), response.headers)
    finally:
        conn.close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def login_cookie(address: tuple[str, int], user: str, password: str) -> str:
    answer = call(address, "POST", "/login", {"user": user, "password": password})
    assert answer.status == 200 and answer.cookie is not None, answer
    return answer.cookie
