"""The table resumes by itself once the journal can store again (a full disk).

When a commit fails the service halts: nothing more is applied or
acknowledged, and what was applied but not stored is dropped (it was never
acknowledged: the shoe still holds its frames, a terminal retries its call).
`JournalRetry.poll()` runs on the table's loop while the journal is faulted.
Once the journal has room again it rebuilds the table from what the journal
stored (the state is a function of the stored events), asks each recovery
hook to get ready (the shoe reader goes back to the newest stored frame, so
the frames the shoe re-sends are read again) and, when every hook is done,
clears the fault: the table plays on from exactly what was stored.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from table.machine import Table
from tablectl.service import TableService

log = logging.getLogger(__name__)

# At most this often the journal is looked at for room again.
RETRY_EVERY_S = 1.0
# Free space the journal's folder needs before the table resumes.
MIN_FREE_BYTES = 256 * 1024


class JournalRetry:
    """Attach with `attach(service, rebuild)`; `rebuild()` replays the journal."""

    def __init__(self, service: TableService, rebuild: Callable[[], Table], *,
                 every_s: float = RETRY_EVERY_S, min_free_bytes: int = MIN_FREE_BYTES,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.service = service
        self.rebuild = rebuild
        self.every_s = every_s
        self.min_free_bytes = min_free_bytes
        self.clock = clock
        self._next_try = 0.0
        self._hooks_pending = 0
        self.recoveries = 0

    def poll(self) -> None:
        """On the loop thread, while the journal is faulted."""
        now = self.clock()
        if self._hooks_pending or now < self._next_try:
            return
        self._next_try = now + self.every_s
        service = self.service
        if not service.journal.has_room(self.min_free_bytes):
            return
        try:
            table = self.rebuild()
        except Exception as error:  # the journal cannot be read: stay halted, say so
            log.error("the table cannot be rebuilt from the journal: %s", error)
            return
        service.restart_from_journal(table)
        hooks = list(service.recovery_hooks)
        self._hooks_pending = len(hooks)
        if not hooks:
            self._resume(service)
            return
        for hook in hooks:
            hook(self._hook_done)

    def _hook_done(self) -> None:
        """A hook is ready (any thread): the last one resumes the table, on the loop
        after everything submitted before it."""
        self.service.call(self._one_hook_done)

    def _one_hook_done(self, service: TableService) -> None:
        self._hooks_pending -= 1
        if self._hooks_pending == 0:
            self._resume(service)

    def _resume(self, service: TableService) -> None:
        self.recoveries += 1
        service.clear_journal_fault()
