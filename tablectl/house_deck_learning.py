"""The daemon learning the house deck from play, where a shoe names every card.

In `shoe+camera` mode the fusion knows, for each card the camera saw, whether
it is the very card the shoe dealt to that place. Those corners are labelled
by two sources that agree; the camera thread learns from them:

- `confirm(card, x, y)` (the table's loop thread, from `CardFusion`): a card
  the camera read where the shoe put it.
- `after_frame(frame, detections)` (the camera thread, after each frame): the
  confirmed corners the networks still read as that card in this frame
  (`vision.deck_learning.agreeing_corners`) become exemplars of the card.
- Once every card of the deck has `MIN_EXEMPLARS`, the deck is written to
  `[camera] house_deck` (a temporary file renamed over it, so a crash or a full
  disk never leaves half a deck) and the recognizer reads by it from the next
  frame on. A deck that cannot be written is kept in use and written again
  later; the reason is on `/state`.
- `restart()` (the pit, e.g. for a new deck design): the deck in use is set
  aside, the recognizer reads with its networks alone, and learning begins
  again; the file is replaced once the new deck is complete.

`status()` is what `/state` shows under `camera.house_deck`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from vision.deck_learning import DeckLearner
    from vision.detection import Detection
    from vision.house_deck import HouseDeck
    from vision.recognizer import Recognizer

log = logging.getLogger(__name__)

# How near (pixels, in a 1280-wide frame) the networks' read must lie to the confirmed
# corner, and the candidate pairs to it; the tracker's place tolerance.
LEARN_RADIUS_PX = 12.0
REFERENCE_WIDTH = 1280
TRIES = 3  # frames a confirmed corner is looked for before it is let go
MAX_PENDING = 256  # confirmed corners waiting for a frame, at most
RETRY_SAVE_S = 60.0  # a deck that could not be written is tried again after this


@dataclass
class _Pending:
    card: str
    x: float
    y: float
    tries: int = TRIES


class HouseDeckLearning:
    """Learns the house deck on the camera thread from the corners the fusion confirms."""

    def __init__(self, recognizer: Recognizer, path: str | Path, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        from vision.deck_learning import DeckLearner
        from vision.house_deck import HouseDeckError, load_house_deck

        self.recognizer = recognizer
        self.path = Path(path)
        self.clock = clock
        self._lock = threading.Lock()
        self._pending: deque[_Pending] = deque(maxlen=MAX_PENDING)
        self._learner: DeckLearner = DeckLearner(recognizer, "house deck learnt from play")
        self._saved = False
        self._next_save_at = 0.0
        self._error: str | None = None
        self._origin: str | None = None  # where the deck in use came from
        self.recognizer.house_deck = None
        if self.path.exists():
            try:
                self.recognizer.house_deck = load_house_deck(self.path,
                                                             recognizer.verifier_id)
                self._origin = "file"
                log.info("camera: reading the house deck of %s", self.path)
            except (HouseDeckError, OSError) as error:
                self._error = f"the saved deck cannot be used ({error}); learning a new one"
                log.warning("camera: %s", self._error)

    # -- the loop thread -----------------------------------------------------------------

    def confirm(self, card: str, x: float, y: float) -> None:
        """The camera read `card` at (x, y) where the shoe dealt it."""
        if self.recognizer.house_deck is not None:
            return  # learnt already
        with self._lock:
            self._pending.append(_Pending(card, x, y))

    # -- the camera thread -------------------------------------------------------------

    def after_frame(self, frame: np.ndarray, detections: Sequence[Detection]) -> None:
        """Learn from this frame what the fusion confirmed since the last one."""
        with self._lock:
            if self.recognizer.house_deck is not None:
                self._pending.clear()
                self._save_if_due()
                return
            pending = list(self._pending)
            self._pending.clear()
        if not pending:
            return
        from vision.deck_learning import agreeing_corners

        radius = LEARN_RADIUS_PX * frame.shape[1] / REFERENCE_WIDTH
        reads = [(d.card, d.x, d.y) for d in detections]
        corners: list[tuple[str, float, float]] = []
        retry: list[_Pending] = []
        for item in pending:
            agreed = agreeing_corners([(item.card, item.x, item.y)], reads, radius)
            corners += agreed
            if not agreed and item.tries > 1:  # a hand over it now, maybe
                item.tries -= 1
                retry.append(item)
        with self._lock:
            learner = self._learner
        added = learner.add(frame, corners, radius) if corners else 0
        with self._lock:
            if learner is not self._learner:
                return  # the pit restarted learning meanwhile
            self._pending.extend(retry)
            if added and not learner.missing():
                self._complete(learner.house_deck())

    def _complete(self, deck: HouseDeck) -> None:
        """Every card learnt: read by the deck from now on, and write it."""
        self.recognizer.house_deck = deck
        self._origin = "learnt"
        self._saved = False
        self._next_save_at = 0.0
        log.info("camera: every card of the house deck is learnt (%d exemplars); the "
                 "camera reads by it from now on", len(deck.labels))
        self._save_if_due()

    def _save_if_due(self) -> None:
        deck = self.recognizer.house_deck
        if self._saved or self._origin != "learnt" or deck is None:
            return
        now = self.clock()
        if now < self._next_save_at:
            return
        try:
            deck.save(self.path)
        except OSError as error:
            self._error = (f"the learnt deck could not be written to {self.path} "
                           f"({error.strerror or error}); it is in use and written again "
                           f"in {RETRY_SAVE_S:.0f} s")
            self._next_save_at = now + RETRY_SAVE_S
            log.warning("camera: %s", self._error)
            try:  # what a full disk left of it
                self.path.with_name(self.path.name + ".part.npz").unlink(missing_ok=True)
            except OSError:
                pass
            return
        self._saved = True
        self._error = None
        log.info("camera: the learnt house deck is written to %s", self.path)

    # -- the pit ---------------------------------------------------------------------------

    def restart(self) -> None:
        """Set the deck in use aside and learn the deck on the felt afresh."""
        from vision.deck_learning import DeckLearner

        with self._lock:
            self._learner = DeckLearner(self.recognizer, "house deck learnt from play")
            self._pending.clear()
            self.recognizer.house_deck = None
            self._origin = None
            self._saved = False
            self._error = None
        log.info("camera: learning the house deck afresh; the networks read alone until "
                 "every card is learnt")

    def status(self) -> dict[str, Any]:
        with self._lock:
            in_use = self.recognizer.house_deck is not None
            counts = self._learner.counts()
            missing = [] if in_use else self._learner.missing()
            return {
                "state": "in use" if in_use else "learning",
                "from": self._origin,
                "cards_learnt": len(counts) - len(missing),
                "cards": len(counts),
                "exemplars": sum(counts.values()),
                "exemplars_per_card": {card: n for card, n in counts.items() if n},
                "missing": missing,
                "path": str(self.path),
                "saved": self._saved or self._origin == "file",
                "problem": self._error,
            }
