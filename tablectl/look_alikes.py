"""Cards the table has seen its camera misread as other cards of the house deck.

Beside a shoe, the daemon names a corner by elimination when it is the one stray
corner of a box and the shoe's card there is the one not read
(`tablectl.house_deck_learning`). Where that stray was read as a card, the camera
has shown, on this deck, under this light, that it takes the shoe's card for the
card it read: a "9" of one design read as a "6". More often every card the shoe
put in the box is read already and the stray is another view of one of them (its
other corner) misread: that card is the one of the box that shares the stray's
rank or suit, where exactly one does (`misread_views`; a misread seldom changes
both). Once a misread of one card as another has been seen `MIN_SIGHTINGS` times,
each in another hand (a card's two corners, or a card switched in, are one
sighting), the witness's doubt
(`tablectl.witness_doubt`) takes the same misread, where the shoe put that card,
as an unknown corner instead of halting the round. The price: that one card
switched for the look-alike it is misread as passes unflagged on this table
(docs/fusion.md, "Look-alikes learnt from play").
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from typing import Any

from foundation.cards import ALL_CARDS

# Two sightings: one elimination may name a corner wrongly (a card switched in, a
# corner of the next card), the same misread twice is the deck.
MIN_SIGHTINGS = 2
MAX_PAIRS = 200  # misreads remembered at most (a deck's look-alikes are a handful)
HANDS_KEPT = 8  # the hands each misread was last seen in, not to count one hand twice

Pair = tuple[str, str]  # (the card, what the camera read it as)


class LookAlikeError(ValueError):
    """A stored list of look-alikes that is not one."""


class LookAlikes:
    """Misreads seen on this table: (card, read as) -> sightings. Thread-safe."""

    def __init__(self, seen: Iterable[tuple[str, str, int]] = ()) -> None:
        self._lock = threading.Lock()
        self._seen: Counter[Pair] = Counter()
        self._hands: dict[Pair, list[Hashable]] = {}
        for card, read_as, count in seen:
            self._seen[(card, read_as)] += count

    def record(self, card: str, read_as: str, hand: Hashable = None) -> bool:
        """One more sighting of `card` read as `read_as` in `hand` (anything naming the
        hand: a hand counts once; None: a hand of its own); True when that makes the
        pair a look-alike (its `MIN_SIGHTINGS`th sighting)."""
        if card == read_as or card not in ALL_CARDS or read_as not in ALL_CARDS:
            return False
        pair = (card, read_as)
        with self._lock:
            if pair not in self._seen and len(self._seen) >= MAX_PAIRS:
                return False
            hands = self._hands.setdefault(pair, [])
            if hand is not None:
                if hand in hands:
                    return False
                hands[:] = [*hands[-(HANDS_KEPT - 1):], hand]
            self._seen[pair] += 1
            return self._seen[pair] == MIN_SIGHTINGS

    def pairs(self) -> frozenset[Pair]:
        """The (card, read as) misreads seen at least `MIN_SIGHTINGS` times."""
        with self._lock:
            return frozenset(pair for pair, n in self._seen.items() if n >= MIN_SIGHTINGS)

    def described(self) -> list[str]:
        """The look-alikes as the pit reads them: "9D read as 6D", most seen first."""
        with self._lock:
            ordered = sorted(self._seen.items(), key=lambda item: (-item[1], item[0]))
        return [f"{card} read as {read_as}" for (card, read_as), n in ordered
                if n >= MIN_SIGHTINGS]

    def to_json(self) -> list[list[Any]]:
        """Every sighting, as stored with the learnt deck: [[card, read as, count], ...]."""
        with self._lock:
            return [[card, read_as, n] for (card, read_as), n in sorted(self._seen.items())]

    @classmethod
    def from_json(cls, value: Any) -> LookAlikes:
        """What `to_json` wrote; LookAlikeError when it is not that."""
        if not isinstance(value, list):
            raise LookAlikeError(f"look-alikes: a list expected, got {type(value).__name__}")
        seen = []
        for item in value:
            if (not isinstance(item, list) or len(item) != 3 or item[0] not in ALL_CARDS
                    or item[1] not in ALL_CARDS or isinstance(item[2], bool)
                    or not isinstance(item[2], int) or item[2] < 1):
                raise LookAlikeError(f"look-alikes: {item!r} is not [card, card, count]")
            seen.append((item[0], item[1], item[2]))
        return cls(seen)


def misread_views(places: Mapping[str, tuple[Collection[str], Sequence[str]]],
                  corners: Sequence[tuple[str, float, float, str | None]]
                  ) -> list[tuple[str, str, float, float]]:
    """(card, read as, x, y): reads that are another view of a card already read, misread.

    `places` maps a place to the cards the shoe dealt there and those of them the camera
    has not read there; `corners` are the frame's index corners (card or "??", x, y,
    place). In a place whose cards are all read, where the one stray (a corner that is
    no card the shoe dealt this round) is a read, and exactly one card of the place
    shares its rank or its suit, the stray is taken for a view of that card."""
    views = []
    anywhere = {card for dealt, _ in places.values() for card in dealt}
    for place, (dealt, unread) in places.items():
        if unread:
            continue
        strays = [(card, x, y) for card, x, y, area in corners
                  if area == place and card not in anywhere]
        if len(strays) != 1 or strays[0][0] not in ALL_CARDS:
            continue
        read_as, x, y = strays[0]
        kin = {card for card in dealt if card[0] == read_as[0] or card[1] == read_as[1]}
        if len(kin) == 1:
            views.append((kin.pop(), read_as, x, y))
    return views
