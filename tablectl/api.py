"""The local API for betting terminals: HTTP + JSON on localhost.

    GET  /state    what is due, the table view, the journal, shoe and camera status
    GET  /health   200 while the table can play (a witness camera degraded says so);
                   503 while the journal cannot store, or the camera that is the
                   only card source delivers no usable frames
    POST /events   {"event": {...}, "id": "terminal-7:1042"}
                   answered only once the event is on disk (or cannot be)

`id` makes a call idempotent: a terminal that lost its answer sends the same
call with the same id again and gets `"duplicate": true` instead of a second
bet. No authentication yet: the server listens on localhost only by default.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from table.views import to_json
from tablectl.service import TableService

log = logging.getLogger(__name__)

SOURCE = "api"
MAX_BODY = 64 * 1024
ANSWER_TIMEOUT_S = 10.0

# The camera's status for /state and /health: None without a camera, else a dict
# with "role" ("witness" beside a shoe, "source" without one), "state" ("ok" or
# "degraded") and "reason".
CameraStatus = Callable[[], "dict[str, Any] | None"]


def _no_camera() -> dict[str, Any] | None:
    return None


class ApiServer:
    """Serves the API on its own threads; `port` 0 picks a free port."""

    def __init__(self, service: TableService, host: str = "127.0.0.1", port: int = 8765,
                 camera: CameraStatus = _no_camera) -> None:
        self.service = service
        handler = type("Handler", (_Handler,), {"service": service,
                                                "camera": staticmethod(camera)})
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.httpd.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.address
        return f"http://{host}:{port}"

    def start(self) -> None:
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, name="api", kwargs={"poll_interval": 0.05},
            daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(2.0)


def state_json(service: TableService,
               camera: CameraStatus = _no_camera) -> dict[str, Any]:
    snapshot = service.snapshot
    return {
        "due": to_json(snapshot.due),
        "view": to_json(snapshot.view),
        "journal_fault": snapshot.journal_fault,
        "shoe_online": snapshot.shoe_online,
        "journal_seq": snapshot.journal_seq,
        "camera": camera(),
    }


def health_json(service: TableService,
                camera: CameraStatus = _no_camera) -> tuple[HTTPStatus, dict[str, Any]]:
    """The answer to GET /health: can the table play, and what is wrong if not quite."""
    fault = service.snapshot.journal_fault
    cam = camera()
    answer: dict[str, Any] = {"ok": True, "status": "ok", "journal_fault": fault,
                              "camera": cam}
    if fault is not None:
        answer.update(ok=False, status="failed", reason=f"the journal cannot store: {fault}")
        return HTTPStatus.SERVICE_UNAVAILABLE, answer
    if cam is not None and cam.get("state") == "degraded":
        if cam.get("role") == "source":
            answer.update(ok=False, status="degraded", reason=(
                f"the camera, the table's only card source, is degraded ({cam.get('reason')}): "
                "no card can be dealt until it delivers usable frames again"))
            return HTTPStatus.SERVICE_UNAVAILABLE, answer
        answer.update(status="degraded", reason=(
            f"the camera, the shoe's witness, is degraded ({cam.get('reason')}): the shoe "
            "deals and every card is stored, but cards are not checked on the felt until "
            "it delivers usable frames again"))
    return HTTPStatus.OK, answer


class _Handler(BaseHTTPRequestHandler):
    service: TableService
    camera: CameraStatus
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: without this, Nagle's algorithm and
    # the client's delayed ACK hold every answer back by about 40 ms.
    disable_nagle_algorithm = True
    # A client that announces more body than it sends must not hold a thread forever.
    timeout = 10.0

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (base signature)
        log.debug("api %s: " + format, self.address_string(), *args)

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if self.path == "/state":
            self._answer(HTTPStatus.OK, state_json(self.service, self.camera))
        elif self.path == "/health":
            self._answer(*health_json(self.service, self.camera))
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no such resource {self.path!r}: "
                        "GET /state, GET /health, POST /events")

    def do_POST(self) -> None:  # noqa: N802
        if self.path != "/events":
            self._error(HTTPStatus.NOT_FOUND, f"no such resource {self.path!r}: POST /events")
            return
        body = self._read_body()
        if body is None:
            return
        event, ref = body
        receipt = self.service.submit_and_wait(event, SOURCE, ref, timeout_s=ANSWER_TIMEOUT_S)
        if receipt.malformed:
            self._error(HTTPStatus.BAD_REQUEST, f"not a table event: {receipt.reason}")
            return
        answer = {
            "stored": receipt.stored, "accepted": receipt.accepted, "reason": receipt.reason,
            "seq": receipt.journal_seq, "duplicate": receipt.duplicate,
            "flags": list(receipt.flags),
        }
        self._answer(HTTPStatus.OK if receipt.stored else HTTPStatus.SERVICE_UNAVAILABLE, answer)

    def _read_body(self) -> tuple[dict[str, Any], str | None] | None:
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            length = -1
        if not 0 < length <= MAX_BODY:
            self._error(HTTPStatus.BAD_REQUEST,
                        f"send a JSON body of 1 to {MAX_BODY} bytes with its Content-Length")
            return None
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as error:
            self._error(HTTPStatus.BAD_REQUEST, f"the body is not JSON: {error}")
            return None
        if not isinstance(body, dict) or not isinstance(body.get("event"), dict):
            self._error(HTTPStatus.BAD_REQUEST,
                        'expected {"event": {...}, "id": "..."} with a scenario event, '
                        'e.g. {"event": {"bet": {"box": 1, "amount": 100}}}')
            return None
        ref = body.get("id")
        if ref is not None and (not isinstance(ref, str) or not ref or len(ref) > 200):
            self._error(HTTPStatus.BAD_REQUEST, "id must be a text of 1 to 200 characters")
            return None
        return body["event"], ref

    def _error(self, status: HTTPStatus, message: str) -> None:
        self._answer(status, {"error": message})

    def _answer(self, status: HTTPStatus, payload: dict[str, Any]) -> None:
        data = json.dumps(payload, sort_keys=True).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
