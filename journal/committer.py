"""Group commit: one transaction for many events, by count or by age."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from journal.writer import Journal


class GroupCommitter:
    """Commits a journal when the batch reaches `max_events` or `max_age_ms`.

    The caller gives the time (seconds, monotonic) to `append` and `poll`,
    and calls `poll` regularly (e.g. whenever its queue is idle).
    `on_commit(seqs)` is called with the seqs just stored.
    """

    def __init__(
        self,
        journal: Journal,
        *,
        max_events: int = 256,
        max_age_ms: float = 2.0,
        on_commit: Callable[[list[int]], None] | None = None,
    ) -> None:
        if max_events < 1 or max_age_ms < 0:
            raise ValueError("max_events must be 1 or more and max_age_ms 0 or more")
        self.journal = journal
        self.max_events = max_events
        self.max_age_s = max_age_ms / 1000
        self.on_commit = on_commit
        self._batch: list[int] = []
        self._oldest: float | None = None

    def append(
        self,
        event: Mapping[str, Any],
        source: str,
        source_ref: str | int | None = None,
        *,
        now: float,
    ) -> int:
        seq = self.journal.append(event, source, source_ref)
        self._batch.append(seq)
        if self._oldest is None:
            self._oldest = now
        if len(self._batch) >= self.max_events:
            self.flush()
        return seq

    def poll(self, now: float) -> list[int]:
        """Commit if the oldest pending event has waited `max_age_ms`; returns seqs stored."""
        # The tolerance keeps float rounding from holding a batch one poll too long.
        if self._oldest is not None and now - self._oldest >= self.max_age_s - 1e-9:
            return self.flush()
        return []

    def flush(self) -> list[int]:
        """Commit now. Raises `JournalError` (the batch stays pending) on failure."""
        if not self._batch:
            return []
        self.journal.commit()
        stored, self._batch, self._oldest = self._batch, [], None
        if self.on_commit is not None:
            self.on_commit(stored)
        return stored

    @property
    def waiting(self) -> int:
        return len(self._batch)
