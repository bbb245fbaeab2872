"""An aiohttp application served from an event loop on a thread of its own.

`AppThread(app, host, port)` binds at once (an `OSError` if it cannot, with
nothing left open), `start()` serves on the thread, `stop()` runs the
application's own shutdown, then the runner's cleanup, and ends the thread.
The table's API with its pit display and the floor's web page are each one.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import threading
from collections.abc import Awaitable, Callable

from aiohttp import web

log = logging.getLogger(__name__)

STOP_TIMEOUT_S = 5.0


async def _nothing() -> None:
    pass


class AppThread:
    def __init__(self, app: web.Application, host: str, port: int, *, name: str,
                 ssl_context: ssl.SSLContext | None = None, backlog: int = 128,
                 before_cleanup: Callable[[], Awaitable[None]] = _nothing) -> None:
        """`port` 0 picks a free port; `before_cleanup` runs on the loop first at the stop
        (streams to end, clients to close)."""
        self.name = name
        self.loop = asyncio.new_event_loop()
        self._before_cleanup = before_cleanup
        self._thread: threading.Thread | None = None
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False,
                                     shutdown_timeout=1.0)
        self.loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, host, port, backlog=backlog, ssl_context=ssl_context,
                           reuse_address=True)
        try:
            self.loop.run_until_complete(site.start())
        except BaseException:
            self.loop.run_until_complete(self._runner.cleanup())
            self.loop.close()
            raise
        bound = self._runner.addresses[0]
        self.address: tuple[str, int] = (str(bound[0]), int(bound[1]))

    def start(self) -> None:
        self._thread = threading.Thread(target=self.loop.run_forever, name=self.name,
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._thread is None:  # never started: shut down on this thread
            self.loop.run_until_complete(self._shutdown())
            self.loop.close()
            return
        done = asyncio.run_coroutine_threadsafe(self._shutdown(), self.loop)
        try:
            done.result(STOP_TIMEOUT_S)
        except Exception:  # stopping must go on
            log.exception("%s did not stop cleanly", self.name)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(STOP_TIMEOUT_S)
        if not self.loop.is_running():
            self.loop.close()

    async def _shutdown(self) -> None:
        await self._before_cleanup()
        await self._runner.cleanup()
