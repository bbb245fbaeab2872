"""The shoe's reliable frames from their numbering until the host acknowledges
them, and the resend clock (docs/protocol.md, Delivery)."""

from __future__ import annotations

from collections import deque

from firmware_bridge.shoelink.frames import Frame, encode_frame, next_seq
from hwsim.shoe.shoe_records import ShoeCounters


class ResendBuffer:
    """Not thread-safe: the shoe calls it holding its lock."""

    def __init__(self, counters: ShoeCounters) -> None:
        self._counters = counters
        self._frames: deque[tuple[int, bytes]] = deque()
        self.next_seq = 1
        self.acked_seq = 0
        # When the acknowledged seq last advanced (or the frames were all sent again).
        self.last_progress = 0.0

    def __len__(self) -> int:
        return len(self._frames)

    def forget(self) -> None:
        """A power cycle: unacknowledged frames are lost and numbering starts at 1."""
        self._frames.clear()
        self.next_seq = 1
        self.acked_seq = 0

    def add(self, frame: Frame, now: float) -> bytes:
        """Keep `frame` (numbered `next_seq`) until acknowledged; its bytes to send."""
        self.next_seq = next_seq(self.next_seq)
        data = encode_frame(frame)
        if not self._frames:
            self.last_progress = now  # the resend clock starts with the first frame
        self._frames.append((frame.seq, data))
        return data

    def acknowledge(self, seq: int, now: float) -> None:
        """The host stored every frame up to `seq` (cumulative)."""
        if all(kept != seq for kept, _ in self._frames):
            self._counters.acks_ignored += 1  # never sent by us, or already forgotten
            return
        while self._frames:
            kept, _ = self._frames.popleft()
            if kept == seq:
                break
        self.acked_seq = seq
        self.last_progress = now

    def resend_at(self, interval_s: float) -> float | None:
        """When the frames go out again if no ACK advances (None: nothing kept)."""
        return self.last_progress + interval_s if self._frames else None

    def resend(self, now: float) -> list[bytes]:
        """Every unacknowledged frame, oldest first; the resend clock starts again."""
        self.last_progress = now
        if not self._frames:
            return []
        self._counters.resend_rounds += 1
        self._counters.frames_resent += len(self._frames)
        return [data for _, data in self._frames]
