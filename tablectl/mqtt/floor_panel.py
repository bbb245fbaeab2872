"""The floor on a table's pit display: what the floor process shows on its web page.

The floor's figures (each table's status, round, shift net, flags) live in the floor
process and its store (`tablectl floor --http`); the table's display asks it for
`floor.json` and shows that beside the table, one request a second however many
browsers watch. Nothing here needs paho, and a floor that does not answer only
shows as such on the display: the table goes on.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiohttp

from tablectl.mqtt.settings import floor_json_url

EVERY_S = 1.0  # the floor's page redraws every second; asking more often shows nothing new
TIMEOUT_S = 2.0


class FloorPanel:
    """`await panel.get()`: the floor as the display shows it, asked at most every
    `every_s`. Used on the display server's event loop only."""

    def __init__(self, url: str, table: str | None = None, *, every_s: float = EVERY_S,
                 timeout_s: float = TIMEOUT_S) -> None:
        self.url = floor_json_url(url)
        self.table = table  # this table's id, marked on the display
        self.every_s = every_s
        self.timeout_s = timeout_s
        self._session: aiohttp.ClientSession | None = None
        self._answer: dict[str, Any] | None = None
        self._asked_at = 0.0
        self._asking: asyncio.Task[dict[str, Any]] | None = None

    async def get(self) -> dict[str, Any]:
        now = time.monotonic()
        if self._answer is not None and now - self._asked_at < self.every_s:
            return self._answer
        if self._asking is None or self._asking.done():  # one request for every browser
            self._asking = asyncio.ensure_future(self._ask())
        answer = await asyncio.shield(self._asking)
        self._answer, self._asked_at = answer, time.monotonic()
        return answer

    async def _ask(self) -> dict[str, Any]:
        base = {"source": self.url, "table": self.table, "at": time.time()}
        if self._session is None:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self.timeout_s))
        try:
            async with self._session.get(self.url) as response:
                if response.status != 200:
                    raise ValueError(f"it answered HTTP {response.status}")
                doc = await response.json(content_type=None)
        except (aiohttp.ClientError, TimeoutError, ValueError) as error:
            reason = str(error) or type(error).__name__
            return {**base, "floor": None,
                    "error": f"the floor at {self.url} does not answer ({reason})"}
        if not (isinstance(doc, dict) and isinstance(doc.get("tables"), list)
                and all(isinstance(row, dict) and isinstance(row.get("table"), str)
                        for row in doc["tables"])):
            return {**base, "floor": None,
                    "error": f"{self.url} is not a floor's page (tablectl floor --http)"}
        return {**base, "floor": doc, "error": None}

    async def close(self) -> None:
        if self._asking is not None and not self._asking.done():
            self._asking.cancel()
        if self._session is not None:
            await self._session.close()
            self._session = None
