"""The simulated devices' two ways in (pty and pipe) put back in their order."""

from __future__ import annotations

import threading

from firmware_bridge.shoelink.events import LinkState, ShoeCard, ShoeEvent
from tablectl.service import Submission
from tablectl.sim_order import DevicesOrder


def frame(seq: int) -> ShoeCard:
    return ShoeCard(seq, seq, 7, 0)


def event(ref: str) -> Submission:
    return Submission({"do": {"box": 1, "action": "stand"}}, "sim", ref)


class Daemon:
    """What reaches the daemon: the shoe feed's events and the dealer's, in order."""

    def __init__(self) -> None:
        self.order = DevicesOrder(self.submit)
        self.reader = self.order.reader_delivers_to(self.deliver)
        self.seen: list[str] = []

    def submit(self, submission: Submission) -> None:
        self.seen.append(str(submission.source_ref))

    def deliver(self, shoe_event: ShoeEvent) -> None:
        if isinstance(shoe_event, ShoeCard):
            self.seen.append(f"frame {shoe_event.seq}")
        elif isinstance(shoe_event, LinkState):
            self.seen.append(f"online {shoe_event.online}")


def test_a_frame_that_overtakes_the_dealers_event_waits_behind_it() -> None:
    daemon = Daemon()
    order = daemon.order
    order.frame_announced(1)
    daemon.reader(frame(1))
    order.event(event("stand"))
    order.frame_announced(2)
    # Frames 2 and 3 come over the pty before the dealer's next event is read ...
    daemon.reader(frame(2))
    daemon.reader(frame(3))
    assert daemon.seen == ["frame 1", "stand", "frame 2"]
    assert order.frames_waiting == 1
    # ... which came before frame 3: frame 3 goes in after it.
    order.event(event("double"))
    order.frame_announced(3)
    assert daemon.seen == ["frame 1", "stand", "frame 2", "double", "frame 3"]
    assert order.frames_waiting == 0
    assert order.frames_passed == 3 and order.submitted == 2


def test_an_event_waits_behind_a_frame_still_on_the_line() -> None:
    daemon = Daemon()
    order = daemon.order
    order.frame_announced(1)
    order.event(event("bet"))  # made after frame 1, which is not in yet
    assert daemon.seen == []
    daemon.reader(frame(1))
    assert daemon.seen == ["frame 1", "bet"]


def test_the_links_state_keeps_its_place_among_the_frames() -> None:
    """A link state the reader delivered after a frame held back reaches the
    daemon after that frame, as the reader delivered them."""
    daemon = Daemon()
    daemon.reader(LinkState(True, "hello"))
    daemon.reader(frame(1))  # not announced yet
    daemon.reader(LinkState(False, "silent"))
    assert daemon.seen == ["online True"]
    daemon.order.frame_announced(1)
    assert daemon.seen == ["online True", "frame 1", "online False"]


def test_a_wait_for_the_frames_passed_on_ends_when_the_last_one_is() -> None:
    daemon = Daemon()
    order = daemon.order
    assert not order.wait_frames_passed(1, 0.0)
    waited: list[bool] = []
    waiter = threading.Thread(target=lambda: waited.append(order.wait_frames_passed(2, 10.0)))
    waiter.start()
    for seq in (1, 2):
        order.frame_announced(seq)
        daemon.reader(frame(seq))
    waiter.join(10.0)
    assert waited == [True]
