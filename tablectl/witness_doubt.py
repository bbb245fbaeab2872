"""A witness camera's doubt: a read that may be a card the shoe put there is not a card.

Beside a shoe the camera is a witness: a card it reads where the shoe put none
halts the round (docs/fusion.md). On a deck the networks were never trained on
most such halts are misreads: a "9" read as a "6", a court letter as a "10". The
networks seldom give the real card no probability at all, so a read is doubted
when the card read is not one the shoe put in that place and one of the cards
the shoe did put there keeps at least `threshold` of the networks' probability
(`Detection.alternatives`). A doubted read becomes an unknown corner at its place
(reason `SHOE_CARD_POSSIBLE`): it raises no flag, and the shoe's card stays unseen
by the camera, as with any corner it cannot read. The price: a card switched for
one the networks cannot tell from it on this design passes unflagged (measured
in docs/vision-measurements.md, "The witness's doubt").

Where the daemon learns its house deck, the misreads it has seen on this table
(`tablectl.look_alikes`) are doubted too, however sure the networks are: a read
of the card the shoe's card there has been seen misread as.

The other way round, with a house deck (learnt or enrolled) a corner the networks
read surely can be stopped by the deck (reason "deck disagrees" or "deck
unsure"): two readers disagreeing is no read. Beside a shoe that would let a card
switched in pass unseen whenever the deck does not know its view. So a stopped
corner is read as the networks read it when neither their card nor the deck's is
one the shoe put in that place and the doubt above would not doubt it: nothing
ties it to the shoe's cards there (`reclaim_stopped`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace

from tablectl.config import DEFAULT_WITNESS_DOUBT
from vision.detection import Detection
from vision.reads import STOPPED_BY_DECK
from vision.reads import UNKNOWN_CARD as UNKNOWN

log = logging.getLogger(__name__)

SHOE_CARD_POSSIBLE = "shoe's card possible"

# Per layout area ("box3", "dealer"): (the shoe's cards there, those the camera has not
# read there yet), as `tablectl.house_deck_learning.shoe_places` gives them.
Places = Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]]


# (card, what the camera has been seen to read it as) on this table's deck.
LookAlikePairs = Collection[tuple[str, str]]


def doubt_reads(reads: Sequence[Detection], places: Places, threshold: float,
                look_alikes: LookAlikePairs = frozenset()
                ) -> tuple[list[Detection], list[Detection]]:
    """(the reads kept, the reads doubted, now unknown corners) of one frame."""
    kept: list[Detection] = []
    doubted: list[Detection] = []
    for read in reads:
        dealt = places.get(read.box or "", ((), ()))[0]
        if read.card in dealt or not (_possible(read, dealt, threshold)
                                      or _look_alike(read, dealt, look_alikes)):
            kept.append(read)
        else:
            doubted.append(replace(read, card=UNKNOWN, reason=SHOE_CARD_POSSIBLE))
    return kept, doubted


def reclaim_stopped(corners: Sequence[Detection], places: Places, threshold: float,
                    look_alikes: LookAlikePairs = frozenset()
                    ) -> tuple[list[Detection], list[Detection]]:
    """(the reads reclaimed, the corners left unknown) of one frame's unknown corners.

    A corner whose networks' sure read the house deck stopped is read as the networks'
    card where neither that card nor the deck's nearest is a card the shoe put in its
    place, no card the shoe put there has `threshold` of the networks' probability and
    none has been seen misread as it (`look_alikes`)."""
    reclaimed: list[Detection] = []
    left: list[Detection] = []
    for corner in corners:
        if corner.reason not in STOPPED_BY_DECK or not corner.alternatives:
            left.append(corner)
            continue
        (card, p), *others = corner.alternatives
        read = replace(corner, card=card, confidence=p, reason=None,
                       alternatives=tuple(others), deck_card=None)
        dealt = places.get(corner.box or "", ((), ()))[0]
        if (card in dealt or corner.deck_card in dealt or _possible(read, dealt, threshold)
                or _look_alike(read, dealt, look_alikes)):
            left.append(corner)
        else:
            reclaimed.append(read)
    return reclaimed, left


def _possible(read: Detection, dealt: Sequence[str], threshold: float) -> bool:
    """Whether the networks give a card of `dealt` at least `threshold` at this corner."""
    return any(card in dealt and p >= threshold for card, p in read.alternatives)


def _look_alike(read: Detection, dealt: Sequence[str], look_alikes: LookAlikePairs) -> bool:
    """Whether a card of `dealt` has been seen misread as the card read."""
    return bool(look_alikes) and any((card, read.card) in look_alikes for card in dealt)


class WitnessDoubt:
    """`doubt_reads` with the table's places now (`places()`, read on the camera thread),
    counting the reads doubted."""

    def __init__(self, places: Callable[[], Places],
                 threshold: float = DEFAULT_WITNESS_DOUBT,
                 look_alikes: Callable[[], LookAlikePairs] | None = None) -> None:
        """`look_alikes`: the misreads seen on this table now (`LookAlikes.pairs`)."""
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"the doubt threshold must be between 0 and 1, got {threshold}")
        self.places = places
        self.threshold = threshold
        self.look_alikes = look_alikes
        self.doubted = 0  # reads doubted so far (read by other threads: a plain int)
        self.reclaimed = 0  # corners a house deck stopped, read all the same
        self.reclaim = True  # False: such corners stay unknown (to measure what it does)
        self.failures = 0  # frames whose places could not be read

    def __call__(self, reads: Sequence[Detection]
                 ) -> tuple[list[Detection], list[Detection]]:
        """(the reads kept, the reads doubted, now unknown corners)."""
        return self.judge(reads, ())

    def judge(self, reads: Sequence[Detection], unknown: Sequence[Detection]
              ) -> tuple[list[Detection], list[Detection]]:
        """(the reads kept, every unknown corner): the reads doubted join the unknown
        corners, and the corners a house deck stopped that nothing ties to the shoe's
        cards there (`reclaim_stopped`) join the reads, doubted like them."""
        pairs = self.look_alikes() if self.look_alikes is not None else frozenset()
        stopped = self.reclaim and any(c.reason in STOPPED_BY_DECK for c in unknown)
        if not pairs and not stopped and not any(read.alternatives for read in reads):
            return list(reads), list(unknown)
        try:
            places = self.places()
        except Exception:  # the reads then stand: a frame is never lost to the doubt
            self.failures += 1
            if self.failures & (self.failures - 1) == 0:  # the 1st, 2nd, 4th, 8th...
                log.exception("camera: the table's places could not be read (%d times); "
                              "no read doubted", self.failures)
            return list(reads), list(unknown)
        reclaimed, left = (reclaim_stopped(unknown, places, self.threshold, pairs)
                           if self.reclaim else ([], list(unknown)))
        self.reclaimed += len(reclaimed)
        kept, doubted = doubt_reads([*reads, *reclaimed], places, self.threshold, pairs)
        self.doubted += len(doubted)
        return kept, [*left, *doubted]
