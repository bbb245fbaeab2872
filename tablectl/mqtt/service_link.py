"""The publisher of a running table: woken after every commit, its retained state from
the table's newest snapshot."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablectl.mqtt.publisher import Publisher, PublisherError
from tablectl.mqtt.settings import MqttConfig

if TYPE_CHECKING:
    from tablectl.service import TableService

__all__ = ["PublisherError", "start_publisher", "state_of"]


def state_of(service: TableService) -> dict[str, Any]:
    """What the retained state carries from the table's newest snapshot."""
    snapshot = service.snapshot
    due = snapshot.due
    return {"phase": due.phase, "round_in_play": due.round, "halted": due.halted,
            "open_flags": list(due.open_flags), "shoe_online": snapshot.shoe_online,
            "journal_fault": None if snapshot.journal_fault is None
            else str(snapshot.journal_fault)}


def start_publisher(config: MqttConfig, journal: str | Path,
                    service: TableService) -> Publisher:
    """The daemon's publisher: woken after every commit, the state from the service."""
    publisher = Publisher(config, journal, state=lambda: state_of(service))
    service.after_answers(publisher.wake)
    publisher.start()
    return publisher
