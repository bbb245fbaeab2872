"""The simulated table's two ways in, put back in the order the devices used.

The virtual shoe's frames reach the daemon over the pty and the virtual
dealer's bets and decisions over a pipe (`tablectl.sim_devices`); either can
overtake the other on the way. The devices' process announces on the pipe
each frame the shoe makes, in the order it makes them among the dealer's
events, before the frame's bytes leave. `DevicesOrder` submits to the table
in exactly that order: a dealer's event as soon as everything announced before
it is submitted, a frame once it has come over the pty too. So the daemon
applies the same sequence of events as the dealer's own table did.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

from tablectl.service import Submission


class DevicesOrder:
    """`event()` and `frame_announced()` from the pipe's reader, `frame_arrived()`
    from the shoe's reader (`ShoeFeed.route`)."""

    def __init__(self, submit: Callable[[Submission], None]) -> None:
        """`submit`: the table service's `submit`."""
        self.submit = submit
        self._lock = threading.Lock()
        # What the devices did, in order: a submission, or the ordinal of a frame.
        self._sequence: deque[Submission | int] = deque()
        self._arrived: dict[int, Submission] = {}
        self.submitted = 0

    def event(self, submission: Submission) -> None:
        with self._lock:
            self._sequence.append(submission)
            self._submit_what_is_due()

    def frame_announced(self, ordinal: int) -> None:
        with self._lock:
            self._sequence.append(ordinal)
            self._submit_what_is_due()

    def frame_arrived(self, ordinal: int, submission: Submission) -> None:
        with self._lock:
            self._arrived[ordinal] = submission
            self._submit_what_is_due()

    @property
    def frames_waiting(self) -> int:
        """Frames come over the pty whose turn has not come (not announced yet, or
        behind a frame still on its way)."""
        return len(self._arrived)

    def _submit_what_is_due(self) -> None:
        sequence, arrived = self._sequence, self._arrived
        while sequence:
            head = sequence[0]
            if isinstance(head, int):
                submission = arrived.pop(head, None)
                if submission is None:
                    return  # the frame is still on its way over the pty
            else:
                submission = head
            sequence.popleft()
            self.submit(submission)
            self.submitted += 1
