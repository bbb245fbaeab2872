"""The local API for betting terminals, devices and the pit display: HTTP + JSON.

    GET  /state    what is due, the table view, the journal, shoe and camera status
    GET  /health   200 while the table can play (a witness camera degraded says so);
                   503 while the journal cannot store, or the camera that is the
                   only card source delivers no usable frames
    POST /events   {"event": {...}, "id": "terminal-7:1042"} with a bearer token or a
                   login session; answered only once the event is on disk (or cannot be)
    POST /camera/house-deck/relearn
                   the pit (or an admin) sets the learnt house deck aside and the camera
                   learns the deck on the felt afresh ([camera] learn_house_deck)
    POST /login    {"user": ..., "password": ...}: a session cookie for the display
    POST /logout, GET /me
    GET  /         the pit display (`tablectl/web.py`)

Every write needs a bearer token or a session (with its CSRF header): without one
the call is answered 401 before its body is read. What each role may send is in
`tablectl/auth.py`; only the pit resolves a misdeal. `id` makes a call idempotent:
the same id with the same event is answered as the first time, with another
event 409. A call the rules refuse is answered 422 and nothing of it is stored.
The server is aiohttp on one event loop in its own thread (`docs/daemon.md`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any

from aiohttp import web

from table.events import ScenarioError, parse_event
from table.views import to_json
from tablectl.app_thread import AppThread
from tablectl.auth import Authenticator, Principal
from tablectl.limits import (
    DEFAULT_MAX_AMOUNT,
    MAX_BODY,
    AmountLimits,
    BadInput,
    RefusalLog,
    parse_call,
)
from tablectl.service import Receipt, Submission, TableService

log = logging.getLogger(__name__)

ANSWER_TIMEOUT_S = 10.0
BACKLOG = 1024  # 200 terminals connecting at once must never be reset
SESSION_COOKIE = "tablectl_session"
CSRF_HEADER = "X-CSRF-Token"
# The caller of a request, found before its body is read (None: anonymous).
PRINCIPAL: web.RequestKey[Principal | None] = web.RequestKey("principal")

# The camera's status for /state and /health: None without a camera, else a dict
# with "role" ("witness" beside a shoe, "source" without one), "state" ("ok" or
# "degraded") and "reason".
CameraStatus = Callable[[], "dict[str, Any] | None"]
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
# Starts learning the house deck afresh and returns its status, or None while the camera
# is not started yet (nothing done). The server's `relearn` None: the table does not learn
# its deck.
Relearn = Callable[[], "dict[str, Any] | None"]
RELEARN_ROLES = ("pit", "admin")


def _no_camera() -> dict[str, Any] | None:
    return None


class ApiServer:
    """Serves the API and the display on an event loop of its own thread; `port` 0
    picks a free port. Binds in the constructor (an `OSError` if it cannot)."""

    def __init__(self, service: TableService, host: str = "127.0.0.1", port: int = 8765,
                 camera: CameraStatus = _no_camera, *, auth: Authenticator | None = None,
                 amounts: AmountLimits | None = None, ssl_context: ssl.SSLContext | None = None,
                 journal_path: str | None = None, relearn: Relearn | None = None) -> None:
        self.service = service
        self.camera = camera
        self.relearn = relearn
        self.auth = auth if auth is not None else Authenticator(None)
        rules = service.table.rules
        self.amounts = amounts or AmountLimits(
            rules.min_bet, rules.max_box_total or DEFAULT_MAX_AMOUNT)
        self.refusals = RefusalLog()
        self.secure = ssl_context is not None
        app = web.Application(middlewares=[self._errors, self._authenticate],
                              client_max_size=MAX_BODY)
        app.router.add_get("/state", self._state)
        app.router.add_get("/health", self._health)
        app.router.add_post("/events", self._events)
        app.router.add_post("/camera/house-deck/relearn", self._relearn)
        app.router.add_post("/login", self._login)
        app.router.add_post("/logout", self._logout)
        app.router.add_get("/me", self._me)
        from tablectl.web import Display

        self.display = Display(self, journal_path)
        self.display.add_routes(app)
        self._served = AppThread(app, host, port, name="api", ssl_context=ssl_context,
                                 backlog=BACKLOG, before_cleanup=self._close_display)

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._served.loop

    @property
    def address(self) -> tuple[str, int]:
        return self._served.address

    @property
    def url(self) -> str:
        host, port = self.address
        return f"{'https' if self.secure else 'http'}://{host}:{port}"

    def start(self) -> None:
        self._served.start()
        self.display.start()

    def stop(self) -> None:
        self._served.stop()

    async def _close_display(self) -> None:
        self.display.stop()
        await self.display.close_floor()

    # -- middleware ---------------------------------------------------------------------

    @web.middleware
    async def _errors(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Every error is a JSON answer with its status; no traceback reaches a caller."""
        try:
            return await handler(request)
        except BadInput as error:
            self.refusals.note(error.status, _who(request), error.message)
            return error_answer(error.status, error.message)
        except web.HTTPException as error:
            if error.status < 400:
                raise
            message = {404: f"no such resource {request.path!r}: GET /state, GET /health, "
                            "POST /events, POST /camera/house-deck/relearn, GET / (the "
                            "pit display); see docs/daemon.md",
                       405: f"{request.method} is not allowed on {request.path}",
                       413: f"the body is larger than {MAX_BODY} bytes"}.get(
                error.status, error.reason)
            self.refusals.note(error.status, _who(request), message)
            return error_answer(error.status, message)
        except (asyncio.CancelledError, ConnectionError):  # the caller hung up: not a fault
            raise
        except Exception:
            log.exception("the API failed on %s %s", request.method, request.path)
            return error_answer(500, "the table's API failed on this call; it is logged")

    @web.middleware
    async def _authenticate(self, request: web.Request, handler: Handler
                            ) -> web.StreamResponse:
        """Find the caller (bearer token or session) before any body is read; a
        write without a valid one is 401."""
        principal = self.principal(request)
        request[PRINCIPAL] = principal
        if request.method == "POST" and request.path not in ("/login", "/logout"):
            if principal is None:
                raise BadInput(401, "log in (POST /login) or send Authorization: Bearer "
                               "TOKEN; tokens are made with `tablectl users add`")
            if principal.via == "session" and not _csrf_ok(request, principal):
                raise BadInput(403, f"a session's writes carry its {CSRF_HEADER} header "
                               "(GET /me gives it)")
        return await handler(request)

    def principal(self, request: web.Request) -> Principal | None:
        header = request.headers.get("Authorization", "")
        if header:
            scheme, _, token = header.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                return None
            return self.auth.by_token(token.strip())
        cookie = request.cookies.get(SESSION_COOKIE)
        return self.auth.by_session(cookie) if cookie else None

    # -- handlers -----------------------------------------------------------------------

    async def _state(self, request: web.Request) -> web.Response:
        return web.json_response(state_json(self.service, self.camera), dumps=_dumps)

    async def _health(self, request: web.Request) -> web.Response:
        status, answer = health_json(self.service, self.camera)
        return web.json_response(answer, status=status, dumps=_dumps)

    async def _events(self, request: web.Request) -> web.Response:
        principal = request[PRINCIPAL]
        assert principal is not None  # writes are checked in _authenticate
        if request.content_length is not None and request.content_length > MAX_BODY:
            raise BadInput(413, f"the body is larger than {MAX_BODY} bytes")
        event, ref = parse_call(await request.read())
        self.amounts.check(event)
        try:
            kind = type(parse_event(event, "event")).__name__.lower()
        except ScenarioError as error:
            raise BadInput(400, f"not a table event: {error}") from None
        kind = {"shoestatus": "shoe"}.get(kind, kind)
        if not principal.may_send(kind):
            who = "the pit" if kind == "resolve" else "another role"
            raise BadInput(403, f"a {principal.role} may not send {kind!r} events: that is "
                           f"for {who}")
        receipt = await self.submit(event, principal.source, ref)
        answer = {"stored": receipt.stored, "accepted": receipt.accepted,
                  "reason": receipt.reason, "seq": receipt.journal_seq,
                  "duplicate": receipt.duplicate, "flags": list(receipt.flags)}
        if receipt.malformed:
            raise BadInput(400, f"not a table event: {receipt.reason}")
        if receipt.conflict:
            raise BadInput(409, receipt.reason or "the id is already used")
        if receipt.refused:
            self.refusals.note(422, principal.source, f"refused {event}: {receipt.reason}")
            return web.json_response({**answer, "error": receipt.reason}, status=422,
                                     dumps=_dumps)
        if not receipt.stored:
            return web.json_response({**answer, "error": receipt.reason}, status=503,
                                     dumps=_dumps)
        return web.json_response(answer, dumps=_dumps)

    async def submit(self, event: dict[str, Any], source: str, ref: str | None) -> Receipt:
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[Receipt] = loop.create_future()

        def reply(receipt: Receipt) -> None:
            loop.call_soon_threadsafe(_settle, answered, receipt)

        self.service.submit(Submission(event, source, ref, reply=reply, keep_refused=False))
        try:
            return await asyncio.wait_for(asyncio.shield(answered), ANSWER_TIMEOUT_S)
        except TimeoutError:
            return Receipt(False, False, "the table did not answer in time; try again")

    async def _relearn(self, request: web.Request) -> web.Response:
        principal = request[PRINCIPAL]
        assert principal is not None  # writes are checked in _authenticate
        if principal.role not in RELEARN_ROLES:
            raise BadInput(403, f"a {principal.role} may not restart the learning of the "
                           "house deck: that is for the pit")
        if self.relearn is None:
            raise BadInput(409, "this table does not learn its house deck: set [camera] "
                           "learn_house_deck = true beside a shoe (docs/vision.md)")
        status = self.relearn()
        if status is None:
            raise BadInput(503, "the camera is starting: nothing was restarted; try again "
                           "in a moment")
        log.info("%s restarted the learning of the house deck", principal.source)
        return web.json_response({"house_deck": status}, dumps=_dumps)

    async def _login(self, request: web.Request) -> web.Response:
        body = await request.read()
        try:
            doc = json.loads(body) if len(body) <= 4096 else None
        except ValueError:
            doc = None
        if not isinstance(doc, dict) or not isinstance(doc.get("user"), str) or not isinstance(
                doc.get("password"), str):
            raise BadInput(400, 'send {"user": NAME, "password": PASSWORD}')
        name, password = doc["user"][:64], doc["password"][:1024]
        keys = (f"user:{name}", f"address:{request.remote}")
        wait = self.auth.login_blocked(keys)
        if wait > 0:
            log.warning("login for %r from %s refused: too many failures", name,
                        request.remote)
            answer = error_answer(429, f"too many failed logins; try again in {wait:.0f} s")
            answer.headers["Retry-After"] = str(int(wait) + 1)
            return answer
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(None, self.auth.login, name, password, keys)
        if result is None:
            log.warning("failed login for %r from %s", name, request.remote)
            raise BadInput(401, "wrong user or password")
        cookie, principal = result
        log.info("%s logged in from %s", principal.source, request.remote)
        answer = web.json_response(_me_json(principal), dumps=_dumps)
        answer.set_cookie(SESSION_COOKIE, cookie, httponly=True, samesite="Strict",
                          secure=self.secure, path="/")
        return answer

    async def _logout(self, request: web.Request) -> web.Response:
        cookie = request.cookies.get(SESSION_COOKIE)
        if cookie:
            self.auth.logout(cookie)
        answer = web.json_response({"logged_out": True})
        answer.del_cookie(SESSION_COOKIE, path="/")
        return answer

    async def _me(self, request: web.Request) -> web.Response:
        principal = request[PRINCIPAL]
        if principal is None:
            raise BadInput(401, "not logged in")
        return web.json_response(_me_json(principal), dumps=_dumps)


def _me_json(principal: Principal) -> dict[str, Any]:
    return {"user": principal.name, "role": principal.role, "csrf": principal.csrf,
            "may_resolve": principal.may_send("resolve")}


def _settle(future: asyncio.Future[Receipt], receipt: Receipt) -> None:
    if not future.done():
        future.set_result(receipt)


def _csrf_ok(request: web.Request, principal: Principal) -> bool:
    import hmac

    sent = request.headers.get(CSRF_HEADER, "")
    return principal.csrf is not None and hmac.compare_digest(sent, principal.csrf)


def _who(request: web.Request) -> str:
    principal = request.get(PRINCIPAL)
    name = principal.source if principal is not None else "anonymous"
    return f"{name}@{request.remote}"


def _dumps(payload: Any) -> str:
    return json.dumps(payload, sort_keys=True)


def error_answer(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status, dumps=_dumps)


def state_json(service: TableService,
               camera: CameraStatus = _no_camera) -> dict[str, Any]:
    snapshot = service.snapshot
    return {
        "due": to_json(snapshot.due),
        "view": to_json(snapshot.view),
        # The live fault, not the snapshot's: the snapshot is renewed after the loop's next
        # batch, and a client told "the journal cannot store" must find it here at once.
        "journal_fault": service.journal_fault,
        "shoe_online": snapshot.shoe_online,
        "journal_seq": snapshot.journal_seq,
        "camera": camera(),
    }


def health_json(service: TableService,
                camera: CameraStatus = _no_camera) -> tuple[HTTPStatus, dict[str, Any]]:
    """The answer to GET /health: can the table play, and what is wrong if not quite."""
    fault = service.journal_fault  # live, as in `state_json`
    cam = camera()
    answer: dict[str, Any] = {"ok": True, "status": "ok", "journal_fault": fault,
                              "camera": cam}
    if fault is not None:
        answer.update(ok=False, status="failed", reason=f"the journal cannot store: {fault}")
        return HTTPStatus.SERVICE_UNAVAILABLE, answer
    if not service.snapshot.shoe_online:
        answer.update(ok=False, status="degraded", reason=(
            f"the shoe is offline ({service.snapshot.shoe_note or 'no frame from it'}): no "
            "card can be read until it speaks again; check its cable and power"))
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
