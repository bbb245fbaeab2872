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

from foundation.cards import RANKS, SUITS
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
    # Why an unknown corner is not read (one of the reasons below); "" for a read.
    reason: str = ""
    # The other cards the networks give some probability (`likely_cards`), likeliest first.
    alternatives: tuple[tuple[str, float], ...] = ()
    # With a house deck, where it stopped the networks' sure read: the deck's nearest card.
    deck_card: str = ""


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


# `likely_cards`: other cards given at least this probability, at most this many.
ALTERNATIVE_FLOOR = 0.001
MAX_ALTERNATIVES = 5


def likely_cards(rank_p: np.ndarray, suit_p: np.ndarray, read: str
                 ) -> tuple[tuple[str, float], ...]:
    """The cards other than `read` that one pair's rank (13 ranks, then "not an index")
    and suit probabilities give at least `ALTERNATIVE_FLOOR`, likeliest first."""
    card_p = np.outer(rank_p[:len(RANKS)], suit_p)
    order = np.argsort(card_p, axis=None)[::-1]
    found: list[tuple[str, float]] = []
    for flat in order[:MAX_ALTERNATIVES + 1]:
        rank, suit = divmod(int(flat), len(SUITS))
        p = float(card_p[rank, suit])
        if p < ALTERNATIVE_FLOOR:
            break
        card = RANKS[rank] + SUITS[suit]
        if card != read:
            found.append((card, p))
    return tuple(found[:MAX_ALTERNATIVES])


UNKNOWN_CARD = "??"  # an index corner seen but not read surely enough
# Why a corner is unknown: the networks' confidence under the threshold; the two
# networks naming different cards (`agreement`); its card's two corners read as
# different cards (`conflicts`); the read suit of the other colour than the ink; with
# a house deck, the networks' sure read stopped by the deck: the deck surely names
# another card, or names none surely and the networks' card is not its nearest.
UNSURE = "unsure"
NETWORKS_DISAGREE = "networks disagree"
DECK_DISAGREES = "deck disagrees"
DECK_UNSURE = "deck unsure"
STOPPED_BY_DECK = (DECK_DISAGREES, DECK_UNSURE)
CORNERS_DISAGREE = "corners disagree"
FACE_DISAGREES = "face disagrees"  # vision.face_pips: the pips on the card's face
INK_COLOUR = "ink colour"

# Two reads facing opposite ways whose cards' estimated centres are this close (in
# index scales) are the two corners of one card.
SAME_CARD = 1.5
# Two such reads both this sure are two cards, not one card's corners misread: a card
# turned round in a fan puts its corner where its neighbour's other corner would lie
# (docs/vision-measurements.md, "Two sure reads where one card's corners would lie").
SURE_PAIR = 0.99
# Two reads of one card code facing opposite ways this close (in index scales) are
# its two corners. Printed, the corners lie 5 to 9.5 index scales apart, depending on
# the design; a "10" or a blurred index measures up to a fifth smaller.
OPPOSITE_CORNERS = 12.0


def merge_reads(reads: list[_Read], conflicts: str = "better") -> list[_Read]:
    """One read per index (best first), then one per card (its two corners merged).

    Of two reads of one rank glyph facing opposite ways the weaker goes
    (`drop_turned_twins`). Corners of one card read as different cards are settled
    by `settle_conflicts` (`conflicts`); the reads it turns into unknowns are left
    out here.
    """
    return settle_conflicts(merge_corners(drop_turned_twins(reads)), conflicts)[0]


# Two reads whose rank glyphs lie this close (in index scales) read the same glyph.
SAME_GLYPH = 0.3


def rank_point(read: _Read) -> tuple[float, float]:
    """Where the read's rank glyph lies: half an index scale above the index's middle."""
    return (read.x - 0.5 * read.scale * read.down[0], read.y - 0.5 * read.scale * read.down[1])


def drop_turned_twins(reads: list[_Read]) -> list[_Read]:
    """The reads left when, of two reads of one rank glyph facing opposite ways, the
    weaker goes.

    A glyph is the rank of one index, with its pip below it. Paired with a pip of
    something else lying above it (the next card's, a centre pip), it reads upside
    down: a "6" as a "9", a "7" as an "L"-like "2", with the other pip's suit. Both
    orders cannot be indices; the networks read the glyph's own index more surely.
    """
    ordered = sorted(reads, key=lambda r: -r.confidence)
    kept: list[_Read] = []
    for read in ordered:
        point = rank_point(read)
        if not any(facing_apart(read, other)
                   and math.dist(point, rank_point(other)) < SAME_GLYPH * max(read.scale,
                                                                             other.scale)
                   for other in kept):
            kept.append(read)
    return kept


def merge_corners(reads: list[_Read]) -> list[_Read]:
    """One read per index (the best), and a card's two corners read alike as one read."""
    ordered = sorted(reads, key=lambda r: -r.confidence)
    kept: list[_Read] = []
    # Corners merged into their card's other corner: a weaker read of the same index
    # (another blob pair, another card) goes as it would beside a kept read.
    absorbed: list[_Read] = []
    for read in ordered:
        if any(_same_index(read, other) for other in absorbed):
            continue
        duplicate = False
        for k, other in enumerate(kept):
            if _same_index(read, other):
                duplicate = True  # the same index read from another blob pair
            elif (read.card == other.card
                  and math.dist((read.x, read.y), (other.x, other.y))
                  < OPPOSITE_CORNERS * max(read.scale, other.scale)
                  and facing_apart(read, other)):
                duplicate = True  # the opposite corner of the same card
                kept[k] = replace(other, centre=((read.x + other.x) / 2,
                                                 (read.y + other.y) / 2))
                absorbed.append(read)

            if duplicate:
                break
        if not duplicate:
            kept.append(read)
    return kept


# How two corners of one card read as different cards are settled (`settle_conflicts`).
CONFLICT_RULES = ("better", "unknown")


def settle_conflicts(reads: list[_Read], rule: str = "better"
                     ) -> tuple[list[_Read], list[_Read]]:
    """Reads that stay, and reads that become one unknown corner each.

    Two reads facing opposite ways, neither merged with a partner, whose cards'
    estimated centres lie within `SAME_CARD` index scales are one card's two
    corners read as two cards (a corner half hidden by the next card: a "6" read
    as "5"), unless both are read `SURE_PAIR` or surer: then they are two cards
    (a card turned round in a fan). "better": where the two share a suit, the
    better read stays and the other goes. "unknown": whatever the two read, the
    card is not known; the better one's place is reported as an unknown corner
    and neither read stays. Corners merged with their partner are left alone (a
    hand's last card facing the others).
    """
    if rule not in CONFLICT_RULES:
        raise ValueError(f"conflict rule {rule!r}: expected one of {CONFLICT_RULES}")
    alone = [r for r in reads if r.centre is None]
    kept: list[_Read] = []
    unknown: list[_Read] = []
    position_of = {id(r): k for k, r in enumerate(reads)}
    for position, read in enumerate(reads):
        rivals = [] if read.centre is not None else [
            other for other in alone
            if other is not read and facing_apart(read, other)
            and min(read.confidence, other.confidence) < SURE_PAIR
            and (rule == "unknown" or other.card[1] == read.card[1])
            and math.dist(card_centre(read), card_centre(other))
            < SAME_CARD * max(read.scale, other.scale)]
        if not rivals:
            kept.append(read)
        elif rule == "unknown":
            # One unknown for the two: the read the better (merge_corners lists best first).
            if all(position_of[id(other)] > position for other in rivals):
                unknown.append(replace(read, card=UNKNOWN_CARD, reason=CORNERS_DISAGREE))
        elif not any(other.confidence >= read.confidence for other in rivals):
            kept.append(read)
    return kept, unknown


def _same_index(a: _Read, b: _Read) -> bool:
    """Whether two reads lie on one index corner (under 0.8 index scales apart)."""
    return math.dist((a.x, a.y), (b.x, b.y)) < 0.8 * max(a.scale, b.scale)


def facing_apart(a: _Read, b: _Read) -> bool:
    """Whether two reads face (nearly) opposite ways, as a card's two corners do."""
    return a.down[0] * b.down[0] + a.down[1] * b.down[1] < -0.7


def unknown_reads(unsure: list[_Read], reads: list[_Read]) -> list[_Read]:
    """One unsure read per index corner, leaving out corners of cards that were read."""
    kept: list[_Read] = []
    for read in sorted(unsure, key=lambda r: -r.confidence):
        same_index = any(_same_index(read, o) for o in [*reads, *kept])
        read_card = any(math.dist(card_centre(read), card_centre(o))
                        < SAME_CARD * max(read.scale, o.scale) for o in reads)
        if not same_index and not read_card:
            kept.append(read)
    return kept
