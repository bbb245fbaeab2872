"""What the publisher has handed to paho and the broker has not acknowledged yet, and
how far the acknowledgements reach without a gap (the mark).

Each message is kept under paho's message id with what it carries: ("e", seq) an
event, ("r", n) a round, anything else (a resend, the state) counts for nothing.
The broker acknowledges out of order; the mark moves on only over numbers all
acknowledged, so it never claims one that was not."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from tablectl.mqtt.outbox import Mark

COUNTED = ("e", "r")


@dataclass
class InFlight:
    messages: dict[int, tuple[str, int]] = field(default_factory=dict)
    # (mid, ok) from paho's thread; taken on the publisher's thread.
    acks: deque[tuple[int, bool]] = field(default_factory=deque)
    _acked: dict[str, set[int]] = field(default_factory=lambda: {k: set() for k in COUNTED})

    def __len__(self) -> int:
        return len(self.messages)

    def add(self, mid: int, kind: str, number: int) -> None:
        self.messages[mid] = (kind, number)

    def acknowledged(self, mid: int, ok: bool) -> None:
        """paho's thread: hand over and return."""
        self.acks.append((mid, ok))

    def take(self, mark: Mark) -> list[tuple[str, int]]:
        """Apply the acknowledgements to `mark`; the (kind, number) the broker refused."""
        refused = []
        while self.acks:
            mid, ok = self.acks.popleft()
            item = self.messages.pop(mid, None)
            if item is None or item[0] not in COUNTED:
                continue
            if ok:
                self._acked[item[0]].add(item[1])
            else:
                refused.append(item)
        for kind, attr in (("e", "events"), ("r", "rounds")):
            acked = self._acked[kind]
            value = getattr(mark, attr)
            while value + 1 in acked:
                value += 1
                acked.discard(value)
            setattr(mark, attr, value)
        return refused
