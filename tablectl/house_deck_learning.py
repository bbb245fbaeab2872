"""The daemon learning the house deck from play, where a shoe names every card.

In `shoe+camera` mode the fusion knows, for each card the camera saw, whether
it is the very card the shoe dealt to that place. Those corners are labelled
by two sources that agree; the camera thread learns from them:

- `confirm(card, x, y)` (the table's loop thread, from `CardFusion`): a card
  the camera read where the shoe put it.
- `after_frame(frame, reads, unknown)` (the camera thread, after each frame):
  the confirmed corners the networks still read as that card in this frame
  (`vision.deck_learning.agreeing_corners`) become exemplars of the card.
- By elimination (`places`, from the table's snapshot and the fusion's matches,
  `shoe_places`): where one card the shoe dealt to a place has not been read
  there and one corner alone in that place is a stray (unknown, or read as a
  card the shoe dealt nowhere this round) in `STEADY_FRAMES` frames in a row,
  that corner is learnt as that card once. This is how a card the networks
  always misread gets learnt; without it such a deck never completes. Where the
  stray was read as a card, that misread is a sighting of a look-alike
  (`tablectl.look_alikes`), which the witness's doubt then takes as unknown; so
  is a stray in a box whose cards are all read, held as long, that is a misread
  view of one of them (`tablectl.look_alikes.misread_views`).
- Once every card of the deck has `MIN_EXEMPLARS`, the deck is written to
  `[camera] house_deck` (a temporary file renamed over it, so a crash or a full
  disk never leaves half a deck) and the recognizer reads by it from the next
  frame on. A deck that cannot be written is kept in use and written again
  later; the reason is on `/state`.
- Learning goes on while the deck is in use (a deck read from the file too),
  until every card has `MAX_EXEMPLARS`: every `REFRESH_EVERY` new exemplars
  the deck in use is made again from all of them, and written at most once a
  `SAVE_EVERY_S`. The views of a card the deck still misreads are learnt by
  elimination.
- `restart()` (the pit, e.g. for a new deck design): the deck in use is set
  aside, the recognizer reads with its networks alone, and learning begins
  again; the file is replaced once the new deck is complete.

`status()` is what `/state` shows under `camera.house_deck`.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from table.views import TableView
    from vision.deck_learning import DeckLearner
    from vision.detection import Detection
    from vision.house_deck import HouseDeck
    from vision.recognizer import Recognizer

from tablectl.look_alikes import LookAlikeError, LookAlikes, misread_views

log = logging.getLogger(__name__)

# How near (pixels, in a 1280-wide frame) the networks' read must lie to the confirmed
# corner, and the candidate pairs to it; the tracker's place tolerance.
LEARN_RADIUS_PX = 12.0
REFERENCE_WIDTH = 1280
TRIES = 3  # frames a confirmed corner is looked for before it is let go
STEADY_FRAMES = 5  # frames in a row (half a second at 10 fps) a corner is named by elimination
DONE_KEPT = 512  # corners learnt by elimination remembered, not to learn them twice
VIEW_OF = ">"  # "3C>6C": a view of 3C misread as 6C, followed as corners named are

# A place ("box3", "dealer") -> (the cards the shoe dealt there, those of them the
# camera has not read there).
Places = Mapping[str, tuple[Collection[str], Sequence[str]]]
Corner = tuple[str, float, float]
MAX_PENDING = 256  # confirmed corners waiting for a frame, at most
RETRY_SAVE_S = 60.0  # a deck that could not be written is tried again after this
SAVE_EVERY_S = 60.0  # a deck refreshed in use is written at most this often
REFRESH_EVERY = 26  # new exemplars after which the deck in use is made again


def shoe_places(view: TableView, matched: tuple[int | None, Sequence[tuple[Any, str]]]
                ) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """The places of the round in `view` (a `TableView`): the shoe's cards of each, and
    those the camera has not read there (`matched`: `CardFusion.matched`). Nothing
    before the first round or in a voided one."""
    if view.round == 0 or view.phase == "void":
        return {}
    read = Counter(matched[1]) if matched[0] == view.round else Counter()
    dealt: dict[str, tuple[str, ...]] = {
        f"box{box.number}": tuple(card for hand in box.hands for card in hand.cards)
        for box in view.boxes}
    dealt["dealer"] = tuple(view.dealer)
    places = {}
    for area, cards in dealt.items():
        if not cards:
            continue
        place: Any = "dealer" if area == "dealer" else int(area[3:])
        left = Counter({card: read[(place, card)] for card in cards})
        unread = []
        for card in cards:
            if left[card] > 0:
                left[card] -= 1
            else:
                unread.append(card)
        places[area] = (cards, tuple(unread))
    return places


@dataclass
class _Steady:
    card: str
    x: float
    y: float
    frames: int = 1


@dataclass
class _Pending:
    card: str
    x: float
    y: float
    tries: int = TRIES


class HouseDeckLearning:
    """Learns the house deck on the camera thread from the corners the fusion confirms."""

    def __init__(self, recognizer: Recognizer, path: str | Path, *,
                 places: Callable[[], Places] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """`places`: the shoe's cards per place now (`shoe_places`); None: learn only
        from the corners confirmed."""
        from vision.deck_learning import DeckLearner
        from vision.house_deck import HouseDeckError, load_house_deck

        self.recognizer = recognizer
        self.path = Path(path)
        self.places = places
        self.clock = clock
        self._steady: list[_Steady] = []
        self._done: deque[Corner] = deque(maxlen=DONE_KEPT)
        self._lock = threading.Lock()
        self._pending: deque[_Pending] = deque(maxlen=MAX_PENDING)
        self._learner: DeckLearner = DeckLearner(recognizer, "house deck learnt from play")
        self._saved = False
        self._next_save_at = 0.0
        self._fresh = 0  # exemplars learnt since the deck in use was made
        self._error: str | None = None
        self._origin: str | None = None  # where the deck in use came from
        self.look_alikes = LookAlikes()
        self.recognizer.house_deck = None
        if self.path.exists():
            try:
                self.recognizer.house_deck = load_house_deck(self.path,
                                                             recognizer.verifier_id)
                self._origin = "file"
                self._learner.seed(self.recognizer.house_deck)
                log.info("camera: reading the house deck of %s", self.path)
            except (HouseDeckError, OSError) as error:
                self._error = f"the saved deck cannot be used ({error}); learning a new one"
                log.warning("camera: %s", self._error)
        if self.recognizer.house_deck is not None:
            try:
                self.look_alikes = LookAlikes.from_json(
                    self.recognizer.house_deck.extra.get("look_alikes", []))
            except LookAlikeError as error:  # the deck itself is sound: keep it
                log.warning("camera: %s: %s; they are learnt again", self.path, error)

    # -- the loop thread -----------------------------------------------------------------

    def confirm(self, card: str, x: float, y: float) -> None:
        """The camera read `card` at (x, y) where the shoe dealt it."""
        with self._lock:
            if not self._learner.full(card):
                self._pending.append(_Pending(card, x, y))

    # -- the camera thread -------------------------------------------------------------

    def after_frame(self, frame: np.ndarray, reads: Sequence[Detection],
                    unknown: Sequence[Detection] = ()) -> None:
        """Learn from this frame (`reads`, and the `unknown` corners of
        `Recognizer.detect_all`) what the fusion confirmed since the last frame, and the
        corners named by elimination that have held for `STEADY_FRAMES` frames."""
        with self._lock:
            pending = list(self._pending)
            self._pending.clear()
            learner = self._learner
        radius = LEARN_RADIUS_PX * frame.shape[1] / REFERENCE_WIDTH
        corners = self._confirmed(pending, reads, radius)
        if self.places is not None:
            corners += self._eliminated(reads, unknown, radius)
        corners = [corner for corner in corners if not learner.full(corner[0])]
        added = learner.add(frame, corners, radius) if corners else 0
        with self._lock:
            if learner is not self._learner:
                return  # the pit restarted learning meanwhile
            self._fresh += added
            if self.recognizer.house_deck is None:
                if added and not learner.missing():
                    self._complete(learner.house_deck())
            elif self._fresh >= REFRESH_EVERY:
                self._use(learner.house_deck())
            self._save_if_due()

    def _confirmed(self, pending: list[_Pending], reads: Sequence[Detection],
                   radius: float) -> list[Corner]:
        from vision.deck_learning import agreeing_corners

        seen = [(d.card, d.x, d.y) for d in reads]
        corners: list[Corner] = []
        retry: list[_Pending] = []
        for item in pending:
            agreed = agreeing_corners([(item.card, item.x, item.y)], seen, radius)
            corners += agreed
            if not agreed and item.tries > 1:  # a hand over it now, maybe
                item.tries -= 1
                retry.append(item)
        with self._lock:
            self._pending.extend(retry)
        return corners

    def _eliminated(self, reads: Sequence[Detection], unknown: Sequence[Detection],
                    radius: float) -> list[Corner]:
        """The corners named by elimination in this frame and the frames before it."""
        from vision.deck_learning import eliminated_corners

        assert self.places is not None
        found = [(d.card, d.x, d.y, d.box) for d in [*reads, *unknown]]
        places = self.places()
        named = eliminated_corners(places, found)
        # A misread view of a card read already: a sighting only, never an exemplar.
        views = [(f"{card}{VIEW_OF}{read_as}", x, y)
                 for card, read_as, x, y in misread_views(places, found)]
        with self._lock:  # restart() clears what was seen, from another thread
            ready = self._steady_for(named + views, radius)
            look_alikes = self.look_alikes
        corners = []
        for key, x, y in ready:
            if VIEW_OF in key:
                card, read_as = key.split(VIEW_OF)
            else:
                card = key
                corners.append((card, x, y))
                read_as = next((d.card for d in reads if d.x == x and d.y == y), "")
            if look_alikes.record(card, read_as, _hand_of(places, card)):
                log.info("camera: %s has been read as %s twice here; such a read where "
                         "the shoe put %s is taken as unknown from now on",
                         card, read_as, card)
                with self._lock:
                    self._saved = False  # the file keeps the look-alikes too
        return corners

    def _steady_for(self, named: list[Corner], radius: float) -> list[Corner]:
        """The corners of `named` seen in `STEADY_FRAMES` frames in a row, not learnt."""
        steady: list[_Steady] = []
        ready: list[Corner] = []
        for card, x, y in named:
            if any(_near(done, card, x, y, radius) for done in self._done):
                continue
            before = next((s for s in self._steady if _near((s.card, s.x, s.y), card, x, y,
                                                             radius)), None)
            item = _Steady(card, x, y, before.frames + 1 if before else 1)
            if item.frames >= STEADY_FRAMES:
                ready.append((card, x, y))
                self._done.append((card, x, y))
            else:
                steady.append(item)
        self._steady = steady
        return ready

    def _complete(self, deck: HouseDeck) -> None:
        """Every card learnt: read by the deck from now on, and write it."""
        self._use(deck)
        self._next_save_at = 0.0
        log.info("camera: every card of the house deck is learnt (%d exemplars); the "
                 "camera reads by it from now on", len(deck.labels))

    def _use(self, deck: HouseDeck) -> None:
        self.recognizer.house_deck = deck
        self._origin = "learnt"
        self._saved = False
        self._fresh = 0

    def _save_if_due(self) -> None:
        deck = self.recognizer.house_deck
        if self._saved or self._origin != "learnt" or deck is None:
            return
        now = self.clock()
        if now < self._next_save_at:
            return
        deck.extra["look_alikes"] = self.look_alikes.to_json()
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
        self._next_save_at = now + SAVE_EVERY_S
        log.info("camera: the learnt house deck is written to %s", self.path)

    # -- the pit ---------------------------------------------------------------------------

    def restart(self) -> None:
        """Set the deck in use aside and learn the deck on the felt afresh."""
        from vision.deck_learning import DeckLearner

        with self._lock:
            self._learner = DeckLearner(self.recognizer, "house deck learnt from play")
            self._pending.clear()
            self._steady.clear()
            self._done.clear()
            self.recognizer.house_deck = None
            self._origin = None
            self._saved = False
            self._fresh = 0
            self._next_save_at = 0.0
            self._error = None
            self.look_alikes = LookAlikes()
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
                "look_alikes": self.look_alikes.described(),
                "path": str(self.path),
                "saved": self._saved or self._origin == "file",
                "problem": self._error,
            }


def _hand_of(places: Places, card: str) -> tuple[str, str] | None:
    """The hand `card` was dealt to: its place and that place's first card (which tells
    the hands of one place in a shoe apart); None where the shoe put it nowhere now."""
    for place, (dealt, _) in places.items():
        if card in dealt:
            return place, next(iter(dealt))
    return None


def _near(corner: Corner, card: str, x: float, y: float, radius: float) -> bool:
    return corner[0] == card and math.hypot(corner[1] - x, corner[2] - y) <= radius
