"""What a card looks like, for either kind of design the simulator knows.

A design is a drawn `CardDesign` (Hershey fonts, `hwsim.camera.designs`) or an
`ArtworkDeck` of real deck artwork (`hwsim.camera.artwork`). The scene
renderer asks this module for faces, backs and index boxes and does not care
which kind it has.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from foundation.cards import RANKS, SUITS
from hwsim.camera import artwork, cards
from hwsim.camera.artwork import ArtworkDeck
from hwsim.camera.cards import CardGeometry, card_height
from hwsim.camera.designs import DESIGNS, CardDesign

Design = CardDesign | ArtworkDeck
Box = tuple[float, float, float, float]
PLAIN_BACK_DESIGN = "classic_duplex"  # the back for decks whose corpus has none


def design_named(name: str) -> Design:
    """A drawn design by name, else a deck of the corpus (`hwsim.camera.artwork`)."""
    if name in DESIGNS:
        return DESIGNS[name]
    try:
        return ArtworkDeck.named(name)
    except ValueError as error:
        known = ", ".join(sorted(DESIGNS))
        raise ValueError(f"unknown card design {name!r}: neither a drawn design ({known}) "
                       f"nor a deck of the corpus ({error})") from None


def render_card(card: str, design: Design, width_px: int) -> np.ndarray:
    """The face of `card`, `width_px` wide, BGRA."""
    if isinstance(design, ArtworkDeck):
        return artwork.artwork_card(card, design, width_px)
    return cards.render_card(card, design, width_px)


def render_back(design: Design, width_px: int) -> np.ndarray:
    """A card's back, BGRA."""
    if isinstance(design, ArtworkDeck):
        back = artwork.artwork_back(design, width_px)
        if back is not None:
            return back
        return cards.render_back(DESIGNS[PLAIN_BACK_DESIGN], width_px)
    return cards.render_back(design, width_px)


def glyph_boxes(design: Design, width_px: int, card: str) -> tuple[tuple[Box, Box],
                                                                   tuple[Box, Box]]:
    """(rank glyph, suit pip) boxes of the card's top-left and bottom-right index."""
    if isinstance(design, ArtworkDeck):
        return artwork.artwork_glyph_boxes(design, width_px, card)
    return cards.glyph_boxes(design, width_px, card[0])


def _union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def index_boxes(design: Design, width_px: int, card: str) -> tuple[Box, Box]:
    """The top-left and bottom-right index boxes (rank and pip together) of a card."""
    top_left, bottom_right = glyph_boxes(design, width_px, card)
    return _union(*top_left), _union(*bottom_right)


@lru_cache(maxsize=256)
def card_geometry(design: Design, width_px: int) -> CardGeometry:
    """The index corner boxes of a design at a card width, large enough for every card."""
    if not isinstance(design, ArtworkDeck):
        return cards.card_geometry(design, width_px)
    boxes = [index_boxes(design, width_px, rank + suit)[0]
             for rank in RANKS for suit in SUITS]
    top_left = (min(b[0] for b in boxes), min(b[1] for b in boxes),
                max(b[2] for b in boxes), max(b[3] for b in boxes))
    height = card_height(width_px)
    bottom_right = (width_px - top_left[2], height - top_left[3], width_px - top_left[0],
                    height - top_left[1])
    return CardGeometry(width_px, height, top_left, bottom_right)
