"""The simulated table's live view: the table drawn on the terminal as it plays.

Every change of phase, of the box that is up, of the dealer's hand or
instruction and of the flags is kept as a frame of its own and drawn for
FRAME_S, so each step of a round is seen; a table flat out shows its newest
state.
"""

from __future__ import annotations

import collections
import threading
from typing import Any, TextIO

from table.views import Outcome
from tablectl.display import dealer_instruction, render_table
from tablectl.lamps import lamp_picture
from tablectl.service import TableService

# Each change of the table is shown this long (the dealer's DRAW, then STAND or
# BUST, are each seen); behind by more frames than FRAMES_BEHIND (a table flat
# out) the view jumps to the newest.
FRAME_S = 0.08
FRAMES_BEHIND = 64


class LiveView:
    """`event_applied` on the table's loop (`TableService.on_event`); a drawing
    thread of its own between `start()` and `stop()`."""

    def __init__(self, service: TableService, out: TextIO) -> None:
        self.service = service
        self.out = out
        self._frames: collections.deque[str] = collections.deque()
        self._frames_ready = threading.Condition()
        self._last_key: tuple[Any, ...] = ()
        self._stop = threading.Event()
        self._drawer = threading.Thread(target=self._draw_frames, name="sim-view",
                                        daemon=True)

    def start(self) -> None:
        self._drawer.start()

    def stop(self) -> None:
        """The table as it ended stays on the screen."""
        with self._frames_ready:
            self._stop.set()
            self._frames_ready.notify_all()
        if self._drawer.is_alive():
            self._drawer.join(2.0)

    def event_applied(self, event: dict[str, Any], outcome: Outcome) -> None:
        """On the table's loop after each event: the table as it now stands, kept for
        the drawing thread as a frame of its own when the phase, the box that is up,
        the dealer's hand or instruction, or the flags changed; else it updates the
        newest frame not yet drawn."""
        service = self.service
        table = service.table
        view, due = table.view(), table.due()
        picture = lamp_picture(view, due, shoe_online=service.status.shoe_online,
                               journal_fault=service.journal_fault is not None)
        net = None
        if view.phase in ("settled", "void"):
            result = table.current_result()
            net = result.get("net", {}) if result is not None else None
        inventory = table.inventory
        shoe = {"online": service.status.shoe_online, "size": inventory.size,
                "dealt": inventory.dealt, "cut_card_out": table.new_shoe_due}
        stats = {"rounds": table.rounds_played, "events": service.events_applied}
        text = render_table(view, due, picture, stats, net=net, shoe=shoe, legend=True)
        key = (view.round, view.phase, due.box, due.hand, dealer_instruction(view, picture),
               len(view.dealer) if view.phase == "dealer" else 0, view.halted, view.flags)
        with self._frames_ready:
            if key == self._last_key and self._frames:
                self._frames[-1] = text
            else:
                self._frames.append(text)
            self._last_key = key
            self._frames_ready.notify()

    def _draw_frames(self) -> None:
        """Draws each kept frame for FRAME_S, so every phase of a round is seen."""
        while not self._stop.is_set():
            with self._frames_ready:
                while not self._frames and not self._stop.is_set():
                    self._frames_ready.wait()
                if self._stop.is_set():  # the table as it ended stays on the screen
                    if self._frames:
                        self.out.write("\x1b[H\x1b[J" + self._frames[-1] + "\n")
                        self.out.flush()
                    return
                if len(self._frames) > FRAMES_BEHIND:  # flat out: the newest only
                    newest = self._frames[-1]
                    self._frames.clear()
                    self._frames.append(newest)
                text = self._frames.popleft()
            self.out.write("\x1b[H\x1b[J" + text + "\n")
            self.out.flush()
            self._stop.wait(FRAME_S)
