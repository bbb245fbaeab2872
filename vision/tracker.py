"""Turn each frame's detections into table events.

- `CardPlaced` once a card has been read at the same place (within
  `place_tolerance_px` of where it was first seen) in `stable_frames`
  frames, at the mean of those reads, missing at most `max_missed` frames in
  a row in between (a frame where the corner is unsure); a frame that reads
  another card at that place starts it over. A card seen in fewer frames (a
  glint, a card in the dealer's hand passing by) or still moving produces
  nothing.
- A placed card that disappears for a while (a hand over it) and comes back
  is not placed again; one that slides to a new place and settles there is the
  same card (no new event) as long as it is not also still seen at its old place.
- `Cleared` once no card at all has been read for `clear_frames` consecutive
  frames after at least one card was placed: the round's cards were swept.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from vision.detection import Detection


@dataclass(frozen=True)
class CardPlaced:
    card: str
    box: str | None
    x: float
    y: float


@dataclass(frozen=True)
class Cleared:
    cards: int  # how many placed cards were swept


TrackerEvent = CardPlaced | Cleared
_Item = TypeVar("_Item", "_Candidate", "_Placed")


@dataclass
class _Candidate:
    card: str
    x: float  # where it was first seen: the anchor it must stay near
    y: float
    box: str | None
    frames: int
    seen_now: bool = True
    sum_x: float = 0.0
    sum_y: float = 0.0
    missed: int = 0  # frames in a row it was not read in, since it was last read

    def mean(self) -> tuple[float, float]:
        return self.sum_x / self.frames, self.sum_y / self.frames


@dataclass
class _Placed:
    card: str
    x: float
    y: float
    box: str | None
    seen_now: bool = True


@dataclass
class CardTracker:
    stable_frames: int = 3
    clear_frames: int = 5
    place_tolerance_px: float = 12.0
    max_missed: int = 1
    _candidates: list[_Candidate] = field(default_factory=list)
    _placed: list[_Placed] = field(default_factory=list)
    _empty_frames: int = 0

    def __post_init__(self) -> None:
        if self.stable_frames < 2:
            raise ValueError("stable_frames must be at least 2: one frame is never stable")
        if self.clear_frames < 1:
            raise ValueError("clear_frames must be at least 1")
        if self.max_missed < 0:
            raise ValueError("max_missed must be 0 or more")
        if self.place_tolerance_px <= 0:
            raise ValueError("place_tolerance_px must be positive")

    @property
    def placed(self) -> list[CardPlaced]:
        """The cards on the felt now, as placed (or last settled)."""
        return [CardPlaced(p.card, p.box, p.x, p.y) for p in self._placed]

    def update(self, detections: Sequence[Detection]) -> list[TrackerEvent]:
        """Feed one frame's detections; returns the events this frame completes."""
        if not detections:
            return self._empty_frame()
        self._empty_frames = 0
        for placed in self._placed:
            placed.seen_now = False
        remaining: list[Detection] = []
        for det in detections:
            match = self._nearest(self._placed, det)
            if match is not None:
                match.seen_now = True
            else:
                remaining.append(det)
        return self._advance_candidates(remaining, detections)

    def _empty_frame(self) -> list[TrackerEvent]:
        self._candidates.clear()
        self._empty_frames += 1
        if self._placed and self._empty_frames >= self.clear_frames:
            swept = len(self._placed)
            self._placed.clear()
            return [Cleared(swept)]
        return []

    def _advance_candidates(self, detections: Sequence[Detection],
                            frame: Sequence[Detection]) -> list[TrackerEvent]:
        """`detections`: the frame's reads of no placed card; `frame`: all its reads."""
        for cand in self._candidates:
            cand.seen_now = False
        for det in detections:
            known = self._nearest(self._candidates, det)
            if known is None:
                self._candidates.append(_Candidate(det.card, det.x, det.y, det.box, 1,
                                                   sum_x=det.x, sum_y=det.y))
            elif not known.seen_now:
                known.frames += 1
                known.seen_now = True
                known.missed = 0
                known.sum_x += det.x
                known.sum_y += det.y
        # A candidate not read in more than `max_missed` frames in a row, read as another
        # card in a frame, or one that moved, starts over.
        for cand in self._candidates:
            if cand.seen_now:
                cand.missed = 0
            elif self._contested(cand, frame):
                cand.missed = self.max_missed + 1
            else:
                cand.missed += 1
        self._candidates = [c for c in self._candidates if c.missed <= self.max_missed]
        stable = [c for c in self._candidates
                  if c.seen_now and c.frames >= self.stable_frames]
        self._candidates = [c for c in self._candidates
                            if not (c.seen_now and c.frames >= self.stable_frames)]
        moves = self._pair_moves(stable)
        events: list[TrackerEvent] = []
        for cand in stable:
            x, y = cand.mean()
            moved = moves.get(id(cand))
            if moved is not None:
                moved.x, moved.y, moved.box, moved.seen_now = x, y, cand.box, True
                continue
            self._placed.append(_Placed(cand.card, x, y, cand.box))
            events.append(CardPlaced(cand.card, cand.box, x, y))
        return events

    def _contested(self, cand: _Candidate, frame: Sequence[Detection]) -> bool:
        """Whether another card is read where the candidate lies."""
        return any(det.card != cand.card
                   and math.hypot(cand.x - det.x, cand.y - det.y) <= self.place_tolerance_px
                   for det in frame)

    def _pair_moves(self, stable: Sequence[_Candidate]) -> dict[int, _Placed]:
        """Which settled candidates are placed cards that moved: a placed card not seen in
        this frame and a candidate of the same code, nearest pairs first, in the same area
        before another (a multi-deck shoe's second copy dealt elsewhere while the first is
        pushed a little is a new card, not the first one gone over there)."""
        pairs = []
        for cand in stable:
            x, y = cand.mean()
            for placed in self._placed:
                if placed.card == cand.card and not placed.seen_now:
                    pairs.append((placed.box != cand.box,
                                  math.hypot(placed.x - x, placed.y - y), cand, placed))
        pairs.sort(key=lambda pair: (pair[0], pair[1]))
        moves: dict[int, _Placed] = {}
        taken: set[int] = set()
        for _other_area, _distance, cand, placed in pairs:
            if id(cand) in moves or id(placed) in taken:
                continue
            moves[id(cand)] = placed
            taken.add(id(placed))
        return moves

    def _nearest(self, items: Sequence[_Item], det: Detection) -> _Item | None:
        best: _Item | None = None
        best_distance = self.place_tolerance_px
        for item in items:
            if item.card != det.card:
                continue
            distance = math.hypot(item.x - det.x, item.y - det.y)
            if distance <= best_distance:
                best, best_distance = item, distance
        return best
