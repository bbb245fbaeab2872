"""Fusion of the camera's card sightings with the table (and the shoe's cards).

`CardFusion(mode)` turns the tracker's events (`CardPlaced`, `Cleared`) into
table events. It runs on the table service's loop thread only, as the `derive`
of a camera submission, so it reads the table as the shoe's cards left it:

    service.submit(Submission(None, "camera",
                              derive=lambda table: fusion.observe(event, table)))

- `"camera"` mode: the camera is the card source. Every card placed in a box
  or the dealer area becomes `{"card": "7S", "box": 3}` (or `"box": "dealer"`);
  the table itself judges the place (`CARD_OUT_OF_ORDER`, `CARD_TO_EMPTY_BOX`,
  `EXTRA_CARD` ...).
- `"shoe+camera"` mode: the shoe is the card source and the camera its
  witness. Every card seen must be a card the shoe reported for that place;
  otherwise the fusion reports a flag (`SHOE_CAMERA_MISMATCH`,
  `CARD_NOT_FROM_SHOE`, `CARD_OUT_OF_ORDER`, `CARD_TO_EMPTY_BOX`), which halts
  the round.

The rules are in docs/fusion.md. Cards are judged once the camera frame that
showed them is complete (`frame(table)`, called after each camera frame while
`waiting` is true): the events of one frame arrive one by one, and a card must
not be judged before the others of its frame have been matched. A card the
shoe has not reported yet gets `grace_frames` frames before it is flagged.

This module imports neither OpenCV nor numpy (a daemon without a camera never
loads them); `vision.tracker` is plain Python.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from table.machine import Table
from vision.tracker import CardPlaced, Cleared, TrackerEvent

log = logging.getLogger(__name__)

Mode = Literal["shoe+camera", "camera"]
MODES: tuple[str, ...] = ("shoe+camera", "camera")
DEALER = "dealer"
BURNED = "burned"  # not a place: the cards burned after a misdeal
MAX_BOX = 7

Place = int | str  # a box number or "dealer"

CARD_NOT_FROM_SHOE = "CARD_NOT_FROM_SHOE"
SHOE_CAMERA_MISMATCH = "SHOE_CAMERA_MISMATCH"
CARD_OUT_OF_ORDER = "CARD_OUT_OF_ORDER"
CARD_TO_EMPTY_BOX = "CARD_TO_EMPTY_BOX"

# Table phases in which a reported flag cannot be raised (the table refuses it).
_NO_FLAG_PHASES = ("halted", "void")


def place_of_area(area: str | None) -> Place | None:
    """The table place of a layout area: "box3" -> 3, "dealer" -> "dealer", else None."""
    if area is None:
        return None
    if area == DEALER:
        return DEALER
    if area.startswith("box") and area[3:].isdigit():
        number = int(area[3:])
        if 1 <= number <= MAX_BOX:
            return number
    return None


@dataclass
class _Sighting:
    card: str
    place: Place
    x: float
    y: float
    seen_at: int  # the fusion's frame clock when it was seen
    # waiting (not judged yet), held (camera mode, during a halt), sent (camera mode),
    # matched, burned, partner (of a reported swap), flagged, ignored
    status: str = "waiting"
    # The shoe's card it was matched with: its place, another place, "burned", or None.
    belongs: Place | None = None
    code: str | None = None


@dataclass
class _Swap:
    """A card seen in the place of another: the other card is expected where the first
    one belonged, and is then part of the same reported swap (no second flag)."""

    at: Place
    cards: Counter[str]
    belongs: Place


@dataclass
class FusionStats:
    sightings: int = 0
    matched: int = 0
    ignored: int = 0
    cards_sent: int = 0
    held: int = 0
    flags: dict[str, int] = field(default_factory=dict)


class CardFusion:
    """Camera sightings -> table events; call only on the table service's loop thread."""

    def __init__(self, mode: Mode | str = "shoe+camera", *, grace_frames: int = 10,
                 same_card_px: float = 12.0) -> None:
        if mode not in MODES:
            raise ValueError(f"fusion mode must be one of {', '.join(MODES)}, got {mode!r}")
        if grace_frames < 1:
            raise ValueError("grace_frames must be at least 1")
        self.mode: str = mode
        self.grace_frames = grace_frames
        self.same_card_px = same_card_px
        self.stats = FusionStats()
        self._clock = 0
        self._round: int | None = None
        self._sightings: list[_Sighting] = []
        self._held: list[_Sighting] = []  # camera mode: cards seen while the table is halted
        self._swaps: list[_Swap] = []
        # Written on the loop thread, read by the camera thread (a plain attribute).
        self.waiting = False
        # Told (card, x, y) of every card the camera read where the shoe put it: the
        # corners a house deck is learnt from (`tablectl.house_deck_learning`).
        self.on_match: Callable[[str, float, float], None] | None = None
        # (round, ((place, card), ...)): the cards of the round the camera has read where
        # the shoe put them; replaced whole, for the camera thread.
        self.matched: tuple[int | None, tuple[tuple[Place, str], ...]] = (None, ())

    # -- the public API ---------------------------------------------------------------

    def observe(self, event: TrackerEvent, table: Table) -> list[dict[str, Any]]:
        """One tracker event; returns the table events to apply (maybe none)."""
        self._follow_round(table)
        if isinstance(event, Cleared):
            out = self._on_cleared(table)
        elif isinstance(event, CardPlaced):
            out = self._on_placed(event, table)
        else:
            log.warning("camera: unknown tracker event %r ignored", event)
            out = []
        self._update_waiting()
        return out

    def frame(self, table: Table) -> list[dict[str, Any]]:
        """A camera frame is complete: judge the cards seen so far whose turn has come."""
        self._clock += 1
        self._follow_round(table)
        out = self._release_held(table) if self.mode == "camera" else self._judge(table)
        self._update_waiting()
        return out

    def reset(self) -> None:
        """Forget the round's sightings (the felt was swept, or a new round began)."""
        self._sightings.clear()
        self._held.clear()
        self._swaps.clear()
        self._update_waiting()

    # -- bookkeeping ------------------------------------------------------------------

    def _update_waiting(self) -> None:
        self.waiting = bool(self._held) or any(s.status == "waiting" for s in self._sightings)
        self.matched = (self._round, tuple((s.place, s.card) for s in self._sightings
                                           if s.status == "matched"))

    def _follow_round(self, table: Table) -> None:
        number = table.view().round
        if self._round != number:
            if self._sightings or self._held:
                log.info("camera: round %s began; forgetting %d card(s) seen before it",
                         number, len(self._sightings) + len(self._held))
            self._round = number
            self.reset()

    def _duplicate(self, event: CardPlaced, place: Place) -> bool:
        """The same card reported again where it already lies (not a second deck's copy)."""
        for seen in self._sightings:
            if (seen.card == event.card and seen.place == place
                    and math.hypot(seen.x - event.x, seen.y - event.y) <= self.same_card_px):
                return True
        return False

    def _on_cleared(self, table: Table) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self.mode == "shoe+camera":
            # The felt is swept: whatever still waits has had all the time it needs.
            out = self._judge(table, final=True)
        elif self._held:
            log.warning("camera: the felt was swept while the table was halted; %d card(s) "
                        "seen during the halt are dropped", len(self._held))
        self.reset()
        return out

    def _on_placed(self, event: CardPlaced, table: Table) -> list[dict[str, Any]]:
        place = place_of_area(event.box)
        if place is None:
            self.stats.ignored += 1
            log.info("camera: %s seen outside every box and the dealer area (%s at %.0f,%.0f); "
                     "ignored", event.card, event.box, event.x, event.y)
            return []
        if self._duplicate(event, place):
            self.stats.ignored += 1
            log.debug("camera: %s at %s reported again; ignored", event.card, place)
            return []
        self.stats.sightings += 1
        sighting = _Sighting(event.card, place, event.x, event.y, self._clock)
        self._sightings.append(sighting)
        if self.mode == "camera":
            if table.state == "halted":
                return self._hold(sighting)
            return self._release_held(table) + [self._card_event(sighting)]
        # A card lying where the shoe put it is settled at once; any other waits until its
        # frame is complete (the other cards of the frame may explain it).
        unseen = self._unseen(table)
        if unseen.get(place, Counter())[sighting.card] > 0:
            self._matched(unseen, sighting)
        return self._judge(table)

    # -- camera mode -------------------------------------------------------------------

    def _card_event(self, sighting: _Sighting) -> dict[str, Any]:
        sighting.status = "sent"
        self.stats.cards_sent += 1
        return {"card": sighting.card, "box": sighting.place}

    def _hold(self, sighting: _Sighting) -> list[dict[str, Any]]:
        self.stats.held += 1
        sighting.status = "held"
        self._held.append(sighting)
        log.info("camera: %s at %s seen while the round is halted; it is dealt once the "
                 "misdeal is resolved", sighting.card, _name(sighting.place))
        return []

    def _release_held(self, table: Table) -> list[dict[str, Any]]:
        if not self._held or table.state == "halted":
            return []
        held, self._held = self._held, []
        if table.state == "void":
            log.info("camera: the round was voided; %d card(s) seen during the halt dropped",
                     len(held))
            for sighting in held:
                sighting.status = "ignored"
            return []
        return [self._card_event(sighting) for sighting in held]

    # -- shoe+camera mode ------------------------------------------------------------

    def _judge(self, table: Table, final: bool = False) -> list[dict[str, Any]]:
        """Match the waiting sightings whose frame is complete against the shoe's cards.

        At most one flag is returned: it halts the round, and the cards after it are
        judged once the pit has resolved the halt (a card never raises two flags)."""
        if table.state == "void":
            return []
        can_flag = table.state not in _NO_FLAG_PHASES and table.view().round > 0
        unseen = self._unseen(table)
        ready = [s for s in self._sightings if s.status == "waiting"
                 and (final or s.seen_at < self._clock)]
        # Cards lying where the shoe put them first, so that a frame's order does not matter.
        for sighting in ready:
            if unseen.get(sighting.place, Counter())[sighting.card] > 0:
                self._matched(unseen, sighting)
        for sighting in ready:
            if sighting.status != "waiting":
                continue
            kind, belongs = self._verdict(sighting, unseen, table, final)
            if kind is None:
                continue  # the shoe's report may still be on its way
            if kind == "partner":
                swap = self._swap_with(sighting, belongs)
                assert swap is not None
                swap.cards[sighting.card] -= 1
                self._settle(unseen, sighting, kind, belongs)
                log.info("camera: %s at %s is the other card of the swap already reported",
                         sighting.card, _name(sighting.place))
                continue
            if kind == "burned":
                self._settle(unseen, sighting, kind, belongs)
                log.info("camera: %s at %s is a card burned after a misdeal", sighting.card,
                         _name(sighting.place))
                continue
            if not can_flag:
                if final:
                    log.warning("camera: %s at %s (%s) swept while the round was halted; "
                                "not reported", sighting.card, _name(sighting.place), kind)
                continue  # halted already: judged again once the pit resolved the halt
            if kind == SHOE_CAMERA_MISMATCH:
                assert belongs is not None
                expected_here = unseen.get(sighting.place, Counter())
                self._swaps.append(_Swap(belongs, Counter(expected_here), sighting.place))
            self._settle(unseen, sighting, "flagged", belongs)
            sighting.code = kind
            self.stats.flags[kind] = self.stats.flags.get(kind, 0) + 1
            log.warning("camera: %s seen at %s: %s", sighting.card, _name(sighting.place), kind)
            return [{"flag": kind}]
        return []

    def _verdict(self, sighting: _Sighting, unseen: dict[Place, Counter[str]], table: Table,
                 final: bool) -> tuple[str | None, Place | None]:
        """What a card not lying where the shoe put it is (changes nothing):
        (flag code, or "partner" / "burned", or None to wait; the shoe slot it takes)."""
        card, place = sighting.card, sighting.place
        elsewhere = next((p for p, cards in unseen.items()
                          if p not in (place, BURNED) and cards[card] > 0), None)
        if elsewhere is not None:
            if self._swap_with(sighting, elsewhere) is not None:
                return "partner", elsewhere
            if sum(unseen.get(place, Counter()).values()) > 0:
                # The shoe's card for this place is not here, another one is: a swap.
                return SHOE_CAMERA_MISMATCH, elsewhere
            if isinstance(place, int) and not _has_main_bet(table, place):
                return CARD_TO_EMPTY_BOX, elsewhere
            return CARD_OUT_OF_ORDER, elsewhere
        if unseen.get(BURNED, Counter())[card] > 0:
            return "burned", BURNED
        if final or self._clock - sighting.seen_at > self.grace_frames:
            return CARD_NOT_FROM_SHOE, None
        return None, None

    def _swap_with(self, sighting: _Sighting, belongs: Place | None) -> _Swap | None:
        """The reported swap this card is the other half of: it lies where the flagged
        card belonged, and belongs where the flagged card lay."""
        for swap in self._swaps:
            if (swap.at == sighting.place and swap.belongs == belongs
                    and swap.cards[sighting.card] > 0):
                return swap
        return None

    def _matched(self, unseen: dict[Place, Counter[str]], sighting: _Sighting) -> None:
        """The camera read the shoe's card where the shoe put it."""
        self._settle(unseen, sighting, "matched", sighting.place)
        self.stats.matched += 1
        if self.on_match is not None:
            try:
                self.on_match(sighting.card, sighting.x, sighting.y)
            except Exception:  # learning must never stop the table
                log.exception("camera: passing a matched card on failed")

    def _settle(self, unseen: dict[Place, Counter[str]], sighting: _Sighting, status: str,
                belongs: Place | None) -> None:
        sighting.status, sighting.belongs = status, belongs
        if belongs is not None:
            self._consume(unseen, belongs, sighting.card)

    def _unseen(self, table: Table) -> dict[Place, Counter[str]]:
        """The shoe's cards of this round per place, less those the camera already matched;
        `BURNED` holds the cards burned after a misdeal (they belong to no place)."""
        view = table.view()
        unseen: dict[Place, Counter[str]] = {}
        for box in view.boxes:
            unseen[box.number] = Counter(card for hand in box.hands for card in hand.cards)
        unseen[DEALER] = Counter(view.dealer)
        result = table.current_result()
        unseen[BURNED] = Counter(result["burned"] if result is not None else ())
        for sighting in self._sightings:
            if sighting.belongs is not None:
                self._consume(unseen, sighting.belongs, sighting.card)
        return unseen

    @staticmethod
    def _consume(unseen: dict[Place, Counter[str]], place: Place, card: str) -> None:
        cards = unseen.setdefault(place, Counter())
        if cards[card] > 0:
            cards[card] -= 1


def _has_main_bet(table: Table, number: int) -> bool:
    for box in table.view().boxes:
        if box.number == number:
            return any(spot == "main" for _, spot, _ in box.bets)
    return False


def _name(place: Place) -> str:
    return f"box {place}" if isinstance(place, int) else str(place)
