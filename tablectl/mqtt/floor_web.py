"""The floor on a web page: `tablectl floor --http HOST:PORT` (read only).

`GET /` is a page that redraws the floor every second from `GET /floor.json`:
`{"broker", "shift", "error", "house", "tables": [row, ...]}`, a row as
`floor_view.rows` makes it.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Sequence
from typing import Any

from aiohttp import web

from tablectl.app_thread import AppThread
from tablectl.mqtt.floor import Floor
from tablectl.mqtt.floor_store import FloorStore
from tablectl.mqtt.floor_view import rows, shift_start

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tablectl floor</title>
<style>
body { font: 15px system-ui, sans-serif; margin: 1.5em; background: #10151a; color: #e8e8e8; }
table { border-collapse: collapse; } th, td { padding: .3em .8em; text-align: left; }
th { border-bottom: 1px solid #567; } td.n { text-align: right; }
.offline { color: #f88; } .online { color: #8f8; } .problem { color: #fc6; }
</style></head><body>
<h1>Floor</h1><p id="head"></p>
<table><thead><tr><th>table</th><th>status</th><th>profile</th><th>round</th><th>phase</th>
<th>shift net</th><th>rounds</th><th>last event</th><th>flags</th><th>notes</th></tr></thead>
<tbody id="rows"></tbody><tfoot><tr><td colspan="5">house, all tables</td>
<td class="n" id="house"></td></tr></tfoot></table>
<script>
function cell(tr, text, cls) {
  const td = document.createElement("td"); td.textContent = text;
  if (cls) td.className = cls; tr.appendChild(td);
}
function signed(n) { return (n > 0 ? "+" : "") + n; }
async function draw() {
  try {
    const floor = await (await fetch("floor.json")).json();
    document.getElementById("head").textContent = "broker " + floor.broker + ", shift since "
      + floor.shift + (floor.error ? " (" + floor.error + ")" : "");
    const body = document.getElementById("rows"); body.replaceChildren();
    for (const row of floor.tables) {
      const tr = document.createElement("tr");
      cell(tr, row.table); cell(tr, row.status, row.status);
      cell(tr, row.profile ?? "-"); cell(tr, row.round ?? "-", "n"); cell(tr, row.phase ?? "-");
      cell(tr, signed(row.shift_net), "n"); cell(tr, row.shift_rounds, "n");
      cell(tr, row.last_event_s === null ? "-" : row.last_event_s + " s", "n");
      cell(tr, row.open_flags.join(", ") || "-");
      const notes = [];
      if (row.missing > 0) notes.push(row.missing + " event(s) missing, asked again");
      if (row.problem) notes.push(row.problem);
      cell(tr, notes.join("; "), "problem");
      body.appendChild(tr);
    }
    document.getElementById("house").textContent = signed(floor.house);
  } catch (error) {
    document.getElementById("head").textContent = "the floor does not answer";
  }
}
draw(); setInterval(draw, 1000);
</script></body></html>
"""


def floor_json(floor: Floor, reader: FloorStore, shifts: Sequence[dt.time],
               now: float | None = None) -> dict[str, Any]:
    moment = time.time() if now is None else now
    shift = shift_start(moment, shifts)
    table_rows = rows(floor.snapshot(), reader.house_since(shift.timestamp()), now=moment)
    return {"broker": floor.broker.address, "shift": f"{shift:%Y-%m-%d %H:%M}",
            "error": floor.error, "house": sum(r["shift_net"] for r in table_rows),
            "tables": table_rows}


class FloorWeb:
    """The page and its JSON on `host:port` (0: any free port), on a thread of its own."""

    def __init__(self, snapshot: Callable[[], dict[str, Any]], host: str, port: int) -> None:
        self._snapshot = snapshot
        app = web.Application()
        app.router.add_get("/", self._page)
        app.router.add_get("/floor.json", self._json)
        self._served = AppThread(app, host, port, name="floor-web")
        host, port = self._served.address
        self.url = f"http://{host}:{port}/"
        self._served.start()

    async def _page(self, request: web.Request) -> web.Response:
        return web.Response(text=PAGE, content_type="text/html")

    async def _json(self, request: web.Request) -> web.Response:
        # The store is read on the web thread's own connection (see the command).
        return web.json_response(self._snapshot())

    def stop(self) -> None:
        self._served.stop()
