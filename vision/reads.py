"""Reads of index corners, and how they become cards.

A read is one index corner the recognizer accepted (or found but could not
read surely). Several blob pairs may read one corner, and a card shows two
corners: `merge_reads` keeps one read per card; `unknown_reads` one per
unsure corner not on a card already read; `boxes_of` places each card in the
table layout by its estimated centre.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from vision.layout import Layout


@dataclass(frozen=True)
class _Read:
    card: str
    x: float
    y: float
    confidence: float
    scale: float
    down: tuple[float, float]
    # The card's centre where both its corners were read (their midpoint), else None.
    centre: tuple[float, float] | None = None


# Where a card's centre lies from its index (the rank-suit midpoint), in index scales
# (rank-to-suit distances) along the card's right and down directions. An index is
# about 0.1 card widths from the card's side and 0.2 from its top, the centre 0.5 and
# 0.7, and a card is 5-6 index scales wide: the estimate stays well inside the card.
CENTRE_RIGHT = 2.0
CENTRE_DOWN = 2.5


def card_centre(read: _Read) -> tuple[float, float]:
    """The centre of the read's card: its two corners' midpoint, else estimated from one."""
    if read.centre is not None:
        return read.centre
    down_x, down_y = read.down
    right_x, right_y = down_y, -down_x  # the card's right, as the crops are cut
    return (read.x + read.scale * (CENTRE_RIGHT * right_x + CENTRE_DOWN * down_x),
            read.y + read.scale * (CENTRE_RIGHT * right_y + CENTRE_DOWN * down_y))


# A card centre less than this many index scales inside its area is "on the line".
FIRM_DEPTH = 1.5
# Neighbouring cards of one fanned hand have centres within this many index scales.
HAND_LINK = 3.5


def boxes_of(reads: list[_Read], layout: Layout) -> list[str | None]:
    """The area each read's card lies in, decided by the card, not by its index corner.

    A hand's last index corner may lie over the line to the next box while the
    card is still in its own. The card's centre decides where it lies firmly
    inside an area (1.5 index scales or more). A card whose centre is near a line
    goes with its hand: the area of the nearest neighbouring card (centres within
    3.5 index scales) already decided, step by step along the hand from the cards
    that lie firmly in an area. A card with no such neighbour goes by its centre,
    or by its index where the centre is outside every area; either point may be
    up to three index scales outside an area (a hand laid over a box line).
    """
    centres = [card_centre(r) for r in reads]
    boxes: list[str | None] = []
    decided: list[bool] = []
    for read, (cx, cy) in zip(reads, centres, strict=True):
        reach = 3.0 * read.scale
        area, depth = layout.placed(cx, cy, reach)
        if area is None:
            area, depth = layout.placed(read.x, read.y, reach)
        boxes.append(area)
        decided.append(area is not None and depth >= FIRM_DEPTH * read.scale)
    changed = True
    while changed:
        changed = False
        for k, read in enumerate(reads):
            if decided[k]:
                continue
            nearest, best = -1, HAND_LINK * read.scale
            for j in range(len(reads)):
                if decided[j] and boxes[j] is not None:
                    distance = math.dist(centres[k], centres[j])
                    if distance < best:
                        nearest, best = j, distance
            if nearest >= 0:
                boxes[k] = boxes[nearest]
                decided[k] = changed = True
    return boxes


# Two reads facing opposite ways whose cards' estimated centres are this close (in
# index scales) are the two corners of one card.
SAME_CARD = 1.5
# Two reads of one card code facing opposite ways this close (in index scales) are
# its two corners. Printed, the corners lie 5 to 9.5 index scales apart, depending on
# the design; a "10" or a blurred index measures up to a fifth smaller.
OPPOSITE_CORNERS = 12.0


def merge_reads(reads: list[_Read]) -> list[_Read]:
    """One read per index (best first), then one per card (its two corners merged)."""
    ordered = sorted(reads, key=lambda r: -r.confidence)
    kept: list[_Read] = []
    for read in ordered:
        duplicate = False
        for k, other in enumerate(kept):
            distance = float(np.hypot(read.x - other.x, read.y - other.y))
            if distance < 0.8 * max(read.scale, other.scale):
                duplicate = True  # the same index read from another blob pair
            elif (read.card == other.card
                  and distance < OPPOSITE_CORNERS * max(read.scale, other.scale)
                  and read.down[0] * other.down[0] + read.down[1] * other.down[1] < -0.7):
                duplicate = True  # the opposite corner of the same card
                kept[k] = replace(other, centre=((read.x + other.x) / 2,
                                                 (read.y + other.y) / 2))

            if duplicate:
                break
        if not duplicate:
            kept.append(read)
    # A card whose two corners were read as different cards of one suit (a corner half
    # hidden by the next card: a "6" read as "5") keeps its better read. Corners merged
    # with their partner above are left alone (a hand's last card facing the others).
    alone = [r for r in kept if r.centre is None]
    return [r for r in kept
            if r.centre is not None
            or not any(other is not r and other.confidence >= r.confidence
                       and other.card[1] == r.card[1]
                       and r.down[0] * other.down[0] + r.down[1] * other.down[1] < -0.7
                       and math.dist(card_centre(r), card_centre(other))
                       < SAME_CARD * max(r.scale, other.scale)
                       for other in alone)]


def unknown_reads(unsure: list[_Read], reads: list[_Read]) -> list[_Read]:
    """One unsure read per index corner, leaving out corners of cards that were read."""
    kept: list[_Read] = []
    for read in sorted(unsure, key=lambda r: -r.confidence):
        same_index = any(math.dist((read.x, read.y), (o.x, o.y)) < 0.8 * max(read.scale, o.scale)
                         for o in [*reads, *kept])
        read_card = any(math.dist(card_centre(read), card_centre(o))
                        < SAME_CARD * max(read.scale, o.scale) for o in reads)
        if not same_index and not read_card:
            kept.append(read)
    return kept
