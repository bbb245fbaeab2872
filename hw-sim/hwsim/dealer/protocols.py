"""How the virtual dealer reaches a table and a shoe: two small protocols.

The same dealer runs in-process against a `table.machine.Table` or against the
daemon's local API in another process; only these two objects change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from table.views import Due, TableView


class TableUnavailable(Exception):
    """The table cannot be reached now (the daemon may be restarting): wait, then retry."""


class DealerError(RuntimeError):
    """The dealer cannot go on: the message says which round and why."""


@dataclass(frozen=True)
class Sent:
    """The table's answer to one submitted event."""

    stored: bool
    accepted: bool
    reason: str | None = None
    # The same ref was stored before: this answer repeats it, nothing was applied twice.
    duplicate: bool = False


class TableLink(Protocol):
    """What the dealer asks of the table."""

    def due(self) -> Due:
        """What the table expects now."""
        ...

    def view(self) -> TableView:
        """A snapshot of the table."""
        ...

    def send(self, event: dict[str, Any], ref: str) -> Sent:
        """Submit one scenario event; return once the table has durably stored it.

        `ref` is an idempotency key: the same ref sent twice is stored once.
        Raises `TableUnavailable` when the table cannot be reached.
        """
        ...


class CardShoe(Protocol):
    """The dealing shoe as the dealer handles it. Cards reach the table on their own."""

    def draw(self) -> None:
        """Pull the next card out of the shoe."""
        ...

    def wait_delivered(self, timeout_s: float) -> bool:
        """True once everything the shoe sent (cards drawn, `loaded`) is stored by the table."""
        ...

    def cards_left(self) -> int:
        ...

    def load(self, cards: Sequence[str]) -> None:
        """A freshly shuffled shoe goes in (between rounds); the table hears `loaded`."""
        ...
