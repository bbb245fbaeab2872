"""The journal as the table's outbox: store and forward without a second write.

Every event is stored once, in the journal's own transaction (`events`, `rounds`,
`event_times`); `journal.outbox.OutboxReader` reads them by sequence number on a
read-only connection of its own (through the WAL, so it sees each commit and never
holds the daemon's writes back), and this module keeps how far the broker has
acknowledged in a small mark file beside the journal (`<journal>.mqtt.json`). A
lost or old mark only publishes again what the floor already has, which the floor
ignores by (table, seq); the journal's origin (its id on the floor) comes from its
first event, so it is the same again.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)


@dataclass
class Mark:
    """How far the broker has acknowledged, and the journal's origin id."""

    origin: str
    events: int = 0
    rounds: int = 0


def mark_path(journal: str | Path) -> Path:
    return Path(f"{journal}.mqtt.json")


def load_mark(path: Path) -> Mark | None:
    """The mark beside a journal; None when there is none or it cannot be read (then
    everything is published again, which the floor ignores, under the origin the
    journal gives: `Outbox.origin`)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        origin = doc["origin"]
        if not isinstance(origin, str) or not origin:
            raise ValueError("no origin")
        events, rounds = int(doc.get("events", 0)), int(doc.get("rounds", 0))
        return Mark(origin, max(events, 0), max(rounds, 0))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save_mark(path: Path, mark: Mark) -> None:
    temp = path.with_name(path.name + ".tmp")
    data = json.dumps({"origin": mark.origin, "events": mark.events, "rounds": mark.rounds})
    with open(temp, "w", encoding="utf-8") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temp, path)


class MarkFile:
    """The mark file of one journal, written at most every `every_s` (or when forced)
    and only when the mark moved."""

    def __init__(self, path: Path, every_s: float = 0.5) -> None:
        self.path = path
        self.every_s = every_s
        self._saved: tuple[int, int] = (-1, -1)
        self._saved_at = 0.0

    def load(self) -> Mark | None:
        mark = load_mark(self.path)
        if mark is not None:
            self._saved = (mark.events, mark.rounds)
        return mark

    def save(self, mark: Mark, force: bool = False) -> None:
        now = time.monotonic()
        current = (mark.events, mark.rounds)
        if current == self._saved or (not force and now - self._saved_at < self.every_s):
            return
        try:
            save_mark(self.path, mark)
        except OSError as error:
            log.warning("the publish mark %s cannot be saved (%s): a restart sends some "
                        "events again, which the floor ignores", self.path, error)
            return
        self._saved, self._saved_at = current, now
