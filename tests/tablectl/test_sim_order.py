"""The simulated devices' two ways in (pty and pipe) put back in their order."""

from __future__ import annotations

from tablectl.service import Submission
from tablectl.sim_order import DevicesOrder


def frame(n: int) -> Submission:
    return Submission({"card": "7S"}, "shoe", f"1:{n}")


def event(ref: str) -> Submission:
    return Submission({"do": {"box": 1, "action": "stand"}}, "sim", ref)


def test_a_frame_that_overtakes_the_dealers_event_waits_behind_it() -> None:
    submitted: list[str | None] = []
    order = DevicesOrder(lambda s: submitted.append(s.source_ref))
    order.frame_announced(1)
    order.frame_arrived(1, frame(1))
    order.event(event("stand"))
    order.frame_announced(2)
    # Frames 2 and 3 come over the pty before the dealer's next event is read ...
    order.frame_arrived(2, frame(2))
    order.frame_arrived(3, frame(3))
    assert submitted == ["1:1", "stand", "1:2"]
    assert order.frames_waiting == 1
    # ... which came before frame 3: frame 3 goes in after it.
    order.event(event("double"))
    order.frame_announced(3)
    assert submitted == ["1:1", "stand", "1:2", "double", "1:3"]
    assert order.frames_waiting == 0


def test_an_event_waits_behind_a_frame_still_on_the_line() -> None:
    submitted: list[str | None] = []
    order = DevicesOrder(lambda s: submitted.append(s.source_ref))
    order.frame_announced(1)
    order.event(event("bet"))  # made after frame 1, which is not in yet
    assert submitted == []
    order.frame_arrived(1, frame(1))
    assert submitted == ["1:1", "bet"]
    assert order.submitted == 2
