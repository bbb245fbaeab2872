"""The pit display, served by the daemon beside its API: the page, its live stream
(Server-Sent Events) and the rounds with their audit trail.

    GET /                       the display (static files of tablectl/static/)
    GET /display/stream         text/event-stream: the table as it changes
    GET /display/rounds         the newest rounds, each with its net per box
    GET /display/rounds/{n}     round n's every event: who sent it, when, what
    GET /display/floor          the floor's tables, from the floor's web page
                                ([mqtt] floor_url; 404 when the table shows no floor)

The stream and the rounds need a login (or a token). The table's loop tells the
display after each batch it applied (a flag and one wake-up of the server's
event loop, never a wait); the stream then sends the table as it stands, so a
busy table is shown at its newest state rather than queued behind itself.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from journal import JournalError, JournalReader
from table.views import to_json
from tablectl.display import dealer_instruction
from tablectl.lamps import lamp_picture
from tablectl.limits import BadInput
from tablectl.service import TableService

if TYPE_CHECKING:
    from tablectl.api import ApiServer
    from tablectl.mqtt.floor_panel import FloorPanel

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
KEEPALIVE_S = 15.0
MIN_GAP_S = 0.01  # at most 100 pushes a second to one browser
RECENT_ROUNDS = 50

# What each flag means, and what the pit may do about it.
FLAG_MEANINGS = {
    "IMPOSSIBLE_CARD": "a card the shoe cannot hold (more of it than the decks have)",
    "CARD_TO_EMPTY_BOX": "a card dealt to a box without a bet",
    "CARD_OUT_OF_ORDER": "a card dealt to the wrong place, out of the dealing order",
    "EXTRA_CARD": "a card nobody was due",
    "DEALER_DREW_ON_STAND": "the dealer drew a card where the rules say stand",
    "DEALER_STOOD_ON_DRAW": "the dealer stood where the rules say draw",
    "UNREADABLE_CARD": "the shoe could not read a card",
    "SHOE_CAMERA_MISMATCH": "the camera saw a different card from the one the shoe read",
    "CARD_NOT_FROM_SHOE": "the camera saw a card on the felt that never left the shoe",
    "SHOE_OFFLINE": "the shoe went offline in the middle of a round",
    "SHOE_RELOADED": "a new shoe was loaded in the middle of a round",
    "INTERNAL_ERROR": "the table's software failed on an event; the round is held",
    "CUT_CARD": "the cut card came out: this round finishes, then a new shoe",
}
RESOLUTION_TEXT = {
    "void": "void the round: every bet of it is returned",
    "accept": "accept: the card is burned and the round goes on",
}


class Display:
    """The display's routes and live stream, attached to an `ApiServer`."""

    def __init__(self, server: ApiServer, journal_path: str | None) -> None:
        self.server = server
        self.service: TableService = server.service
        self.journal_path = journal_path or str(self.service.journal.path)
        self._reader: JournalReader | None = None
        self._reader_lock = threading.Lock()
        self._changed = asyncio.Event()
        self._wake_pending = False
        self._shoe: dict[str, Any] = self._shoe_now(self.service)
        self._net: dict[str, int] = {}  # the round's net per box once it is over
        self._version = 0
        # When the first change not yet pushed was applied, and that of the newest
        # version (what the stream reports as `changed_at`, for the latency benchmark).
        self._changed_at = 0.0
        self._version_changed_at = 0.0
        self._payload: tuple[int, bytes] | None = None
        self._closing = False
        self._streams: set[web.StreamResponse] = set()
        self.floor: FloorPanel | None = None  # the floor beside the table ([mqtt] floor_url)

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/", self._index)
        app.router.add_get("/display/stream", self._stream)
        app.router.add_get("/display/rounds", self._rounds)
        app.router.add_get("/display/rounds/{number}", self._audit)
        app.router.add_get("/display/floor", self._floor)
        app.router.add_static("/static", STATIC, show_index=False)

    def start(self) -> None:
        self.service.on_change(self._table_changed)

    def stop(self) -> None:
        self._closing = True
        self._changed.set()
        with self._reader_lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None

    async def close_floor(self) -> None:
        if self.floor is not None:
            await self.floor.close()

    # -- the table's loop thread -----------------------------------------------------------

    def _table_changed(self, service: TableService) -> None:
        self._shoe = self._shoe_now(service)
        table = service.table
        result = table.current_result() if table.state in ("settled", "void") else None
        self._net = net_per_box(result.get("net", {})) if result is not None else {}
        if not self._wake_pending:
            self._changed_at = time.time()
            self._wake_pending = True
            try:
                self.server.loop.call_soon_threadsafe(self._wake)
            except RuntimeError:  # the server's loop is closed: nobody is watching
                pass

    @staticmethod
    def _shoe_now(service: TableService) -> dict[str, Any]:
        table = service.table
        inventory = table.inventory
        size = inventory.size
        return {"online": service.status.shoe_online, "size": size,
                "dealt": inventory.dealt, "cards_left": inventory.remaining,
                "penetration": round(inventory.dealt / size, 4) if size else 0.0,
                "cut_card_out": table.new_shoe_due, "decks": inventory.decks}

    # -- the server's event loop -----------------------------------------------------------

    def _wake(self) -> None:
        self._wake_pending = False
        self._version_changed_at = self._changed_at
        self._version += 1
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def _require(self, request: web.Request) -> None:
        from tablectl.api import PRINCIPAL

        if request.get(PRINCIPAL) is None:
            raise BadInput(401, "log in (POST /login) to watch the table")

    async def _index(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html",
                                headers={"Cache-Control": "no-store"})

    def payload(self) -> bytes:
        version = self._version
        if self._payload is None or self._payload[0] != version:
            data = json.dumps(self.display_state(), separators=(",", ":"))
            self._payload = (version, f"data: {data}\n\n".encode())
        return self._payload[1]

    def display_state(self) -> dict[str, Any]:
        snapshot = self.service.snapshot
        view, due = snapshot.view, snapshot.due
        picture = lamp_picture(view, due, shoe_online=snapshot.shoe_online,
                               journal_fault=snapshot.journal_fault is not None)
        instruction = dealer_instruction(view, picture) or None
        lamps = {str(number): lamp.value for number, lamp in enumerate(picture.boxes, 1)}
        flags = [{"code": code, "meaning": FLAG_MEANINGS.get(code, code)}
                 for code in due.open_flags]
        return {
            "sent_at": time.time(), "changed_at": self._version_changed_at,
            "journal_seq": snapshot.journal_seq,
            "view": to_json(view), "due": to_json(due), "instruction": instruction,
            "lamps": lamps, "alarm": picture.alarm, "shoe": self._shoe, "net": self._net,
            "shoe_online": snapshot.shoe_online, "journal_fault": snapshot.journal_fault,
            "open_flags": flags,
            "pit_may": [{"resolve": r, "meaning": RESOLUTION_TEXT.get(r, r)}
                        for r in due.resolutions],
        }

    async def _stream(self, request: web.Request) -> web.StreamResponse:
        self._require(request)
        response = web.StreamResponse(headers={
            "Content-Type": "text/event-stream", "Cache-Control": "no-store",
            "X-Accel-Buffering": "no"})
        await response.prepare(request)
        self._streams.add(response)
        sent = -1
        try:
            while not self._closing:
                if sent != self._version:
                    sent = self._version
                    await response.write(self.payload())
                    await asyncio.sleep(MIN_GAP_S)
                    continue
                try:
                    await asyncio.wait_for(self._changed.wait(), KEEPALIVE_S)
                except TimeoutError:
                    await response.write(b": keepalive\n\n")
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self._streams.discard(response)
        return response

    async def _floor(self, request: web.Request) -> web.Response:
        self._require(request)
        if self.floor is None:
            raise BadInput(404, "this table shows no floor ([mqtt] floor_url, docs/floor.md)")
        return web.json_response(await self.floor.get())

    def _journal(self) -> JournalReader:
        with self._reader_lock:
            if self._reader is None:
                self._reader = JournalReader(self.journal_path)
            return self._reader

    async def _rounds(self, request: web.Request) -> web.Response:
        self._require(request)
        loop = asyncio.get_running_loop()
        rounds = await loop.run_in_executor(None, self._read_rounds)
        return web.json_response({"rounds": rounds, "live": self._live_round()})

    def _read_rounds(self) -> list[dict[str, Any]]:
        try:
            records = self._journal().rounds()[-RECENT_ROUNDS:]
        except JournalError as error:
            raise BadInput(503, f"the journal cannot be read: {error}") from None
        return [{"round": r.round_no, "status": r.status, "flags": list(r.flags),
                 "net": net_per_box(r.result.get("net", {})),
                 "dealer": r.result.get("dealer", []),
                 "events": r.end_seq - r.start_seq + 1} for r in reversed(records)]

    def _live_round(self) -> dict[str, Any]:
        view = self.service.snapshot.view
        return {"round": view.round, "phase": view.phase, "halted": view.halted,
                "flags": list(view.flags)}

    async def _audit(self, request: web.Request) -> web.Response:
        self._require(request)
        try:
            number = int(request.match_info["number"])
        except ValueError:
            raise BadInput(404, "a round is named by its number") from None
        loop = asyncio.get_running_loop()
        answer = await loop.run_in_executor(None, self._read_audit, number)
        return web.json_response(answer)

    def _read_audit(self, number: int) -> dict[str, Any]:
        journal = self._journal()
        try:
            recorded = {r.round_no: r for r in journal.rounds()}
            if number in recorded:
                record = recorded[number]
                events = journal.round_events(number)
                summary: dict[str, Any] = {"status": record.status, "flags": list(record.flags),
                                           "net": net_per_box(record.result.get("net", {})),
                                           "result": record.result}
            elif number == max(recorded, default=0) + 1:  # in play: after the last recorded
                after = recorded[number - 1].end_seq if number > 1 else 0
                events = list(journal.events(after_seq=after))
                summary = {"status": "in play", "flags": [], "net": {}, "result": None}
            else:
                raise BadInput(404, f"round {number} is not in the journal")
            times = (journal.event_times(events[0].seq, events[-1].seq) if events else {})
        except JournalError as error:
            raise BadInput(503, f"the journal cannot be read: {error}") from None
        return {"round": number, **summary, "events": [
            {"seq": e.seq, "source": e.source, "ref": e.source_ref, "event": e.event,
             "at": times.get(e.seq), "pit_action": "resolve" in e.event}
            for e in events]}


def net_per_box(net: dict[str, int]) -> dict[str, int]:
    """A round's net per bettor and spot ("box3/main", "anna/pair") summed per
    bettor: what each box (or player behind it) won or lost."""
    totals: dict[str, int] = {}
    for key, value in net.items():
        owner = key.split("/", 1)[0]
        totals[owner] = totals.get(owner, 0) + int(value)
    return dict(sorted(totals.items()))
