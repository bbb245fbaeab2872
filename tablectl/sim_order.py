"""The simulated table's two ways in, put back in the order the devices used.

The virtual shoe's frames reach the daemon over the pty and the virtual
dealer's bets and decisions over a pipe (`tablectl.sim_devices`); either can
overtake the other on the way. The devices' process announces on the pipe
each frame the shoe makes, in the order it makes them among the dealer's
events, before the frame's bytes leave. `DevicesOrder` sits between the
shoe's reader and the daemon's shoe feed (it is the reader's `deliver`) and
passes on, in exactly the devices' order, a frame once it has come over the
pty too and a dealer's event as soon as everything announced before it is
passed on. So the daemon applies the same sequence of events as the dealer's
own table did, and knows nothing of the simulator.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

from firmware_bridge.shoelink.events import LinkState, ShoeEvent, ShoeHello
from tablectl.submission import Submission

Deliver = Callable[[ShoeEvent], None]


class DevicesOrder:
    """`event()` and `frame_announced()` from the pipe's reader; `reader_event()`
    from the shoe's reader (its `deliver`, given by `reader_delivers_to`)."""

    def __init__(self, submit: Callable[[Submission], None]) -> None:
        """`submit`: where a dealer's event goes (the table service's `submit`)."""
        self.submit = submit
        self._deliver: Deliver | None = None
        self._lock = threading.Lock()
        self._released = threading.Condition(self._lock)
        # What the devices did, in order: a dealer's event, or the ordinal of a frame.
        self._sequence: deque[Submission | int] = deque()
        # What the reader delivered, in its order: (ordinal, frame), or (None, a link
        # state or hello), which keeps its place among the frames.
        self._from_reader: deque[tuple[int | None, ShoeEvent]] = deque()
        self._frames_read = 0
        self.frames_passed = 0
        self.submitted = 0

    def reader_delivers_to(self, deliver: Deliver) -> Deliver:
        """The `deliver` to open the shoe's reader with: its events go to `deliver`
        (the daemon's shoe feed) in the devices' order."""
        self._deliver = deliver
        return self.reader_event

    def event(self, submission: Submission) -> None:
        with self._lock:
            self._sequence.append(submission)
            self._pass_what_is_due()

    def frame_announced(self, ordinal: int) -> None:
        with self._lock:
            self._sequence.append(ordinal)
            self._pass_what_is_due()

    def reader_event(self, event: ShoeEvent) -> None:
        with self._lock:
            if isinstance(event, LinkState | ShoeHello):
                self._from_reader.append((None, event))
            else:
                self._frames_read += 1
                self._from_reader.append((self._frames_read, event))
            self._pass_what_is_due()

    @property
    def frames_waiting(self) -> int:
        """Frames come over the pty whose turn has not come (not announced yet, or
        behind a frame still on its way)."""
        with self._lock:
            return sum(1 for ordinal, _ in self._from_reader if ordinal is not None)

    def wait_frames_passed(self, count: int, timeout_s: float) -> bool:
        """True once `count` frames have been passed on to the daemon."""
        with self._released:
            return self._released.wait_for(lambda: self.frames_passed >= count, timeout_s)

    def _pass_what_is_due(self) -> None:
        sequence, from_reader = self._sequence, self._from_reader
        passed = self.frames_passed
        while True:
            if from_reader and from_reader[0][0] is None:
                self._pass(from_reader.popleft()[1])
                continue
            if not sequence:
                break
            head = sequence[0]
            if isinstance(head, int):
                if not from_reader or from_reader[0][0] != head:
                    break  # the frame is still on its way over the pty
                sequence.popleft()
                self._pass(from_reader.popleft()[1])
                self.frames_passed += 1
            else:
                sequence.popleft()
                self.submit(head)
                self.submitted += 1
        if self.frames_passed != passed:
            self._released.notify_all()

    def _pass(self, event: ShoeEvent) -> None:
        assert self._deliver is not None, "open the shoe's reader with reader_delivers_to"
        self._deliver(event)
