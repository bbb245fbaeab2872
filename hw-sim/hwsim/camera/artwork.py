"""Cards of real deck artwork, rendered from a deck corpus folder.

A corpus folder (written by `tools/render_deck_corpus.py`) holds one folder
per deck with `<CARD>.png` for each of the 52 cards (`AS`, `TD`, ...) and
optionally `back.png`, all upright and cropped to the card. An `ArtworkDeck`
draws those cards at any width, as the Hershey `CardDesign` of
`hwsim.camera.cards` draws its own, so scenes can be rendered from real decks.

Where each card's index lies is found on the artwork itself: the index is the
glyph nearest the top-left corner (the rank, two glyphs side by side for a
"10") and the glyph below it (the suit pip). Cards are stretched to the
63 x 88 mm proportion of the simulator (real decks differ from it by a few
percent).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from foundation.cards import RANKS, SUITS
from hwsim.camera.cards import card_height, parse_card

__all__ = ["ArtworkDeck", "IndexGlyphBoxes", "corpus_folder", "font_decks_folder",
           "deck_index_boxes",
           "artwork_card", "artwork_back", "artwork_glyph_boxes"]

# Decks of the corpus the recognizer is trained on, and decks kept out of training and
# tuning entirely (the real-deck benchmark's). Decks drawn from one design family (the
# same index glyphs, e.g. Nicu's white and ornamental decks: DESIGN_FAMILIES) are on one
# side together.
TRAINING_DECKS: tuple[str, ...] = (
    "aisleriot-anglo", "aisleriot-anglo_modern", "aisleriot-anglo_poker", "aisleriot-atlasnye",
    "aisleriot-dondorf", "aisleriot-plastic", "aisleriot-tango", "kde-jolly-royal",
    "kde-penguins", "kde-standard",
)
# Kept in the corpus but not trained on, as their corners are not a rank over a suit:
# the oxygen decks print the rank alone at the top right, tango_nuevo puts rank and suit
# side by side.
NOT_TRAINED_DECKS: tuple[str, ...] = (
    "aisleriot-tango_nuevo", "kde-oxygen", "kde-oxygen-air", "kde-oxygen-white",
)
HELD_OUT_DECKS: tuple[str, ...] = (
    "aisleriot-neoclassical", "aisleriot-orell", "aisleriot-simplistic", "aisleriot-tigullio",
    "kde-ancient-egyptians", "kde-nicu-ornamental", "kde-nicu-white",
    "kde-tigullio-international", "cc0-kennard",
)
# Deck files drawn from one source or with one artist's index glyphs, whatever their names
# say, left-out decks included. No family has decks both in TRAINING_DECKS and in
# HELD_OUT_DECKS. The German and Italian decks are built on the SVG source of
# aisleriot-orell (the root element's id, svg16481, and the ids of its first elements are
# orell's) and print orell's numerals, so even their number cards may not be trained on
# while orell is held out.
DESIGN_FAMILIES: dict[str, tuple[str, ...]] = {
    "orell": ("aisleriot-orell", "aisleriot-neoclassical", "aisleriot-neoclassical_4_color",
              "aisleriot-berlin", "aisleriot-lattmann", "aisleriot-rheinland",
              "aisleriot-tarocco"),
    "atlasnye": ("aisleriot-atlasnye", "aisleriot-atlasnye_skat", "aisleriot-Атласные"),
    "anglo": ("aisleriot-anglo", "aisleriot-anglo_bitmap", "aisleriot-gnomangelo",
              "aisleriot-gnomangelo_bitmap"),
    "anglo_modern": ("aisleriot-anglo_modern", "aisleriot-anglo_modern_4_color"),
    "tango": ("aisleriot-tango", "aisleriot-tango_nuevo"),
    "dondorf": ("aisleriot-dondorf", "kde-dondorf"),
    "nicu": ("kde-nicu-white", "kde-nicu-ornamental", "aisleriot-ornamental"),
    "tigullio": ("aisleriot-tigullio", "kde-tigullio-international"),
    "oxygen": ("kde-oxygen", "kde-oxygen-air", "kde-oxygen-white"),
    "kennard": ("cc0-kennard",),
}

# Decks whose back shows card faces (Nicu's backs show four aces, index corners and all):
# a face-down card of theirs would be read as aces that the truth does not know of, and
# no casino deals such a back, so their face-down cards get the simulator's plain back.
BACKS_SHOWING_FACES: frozenset[str] = frozenset({"kde-nicu-white", "kde-nicu-ornamental"})

CORPUS_ENV = "TABLECTL_DECK_CORPUS"
DEFAULT_CORPUS = Path("var/deck-corpus")
# Synthetic decks drawn with fonts (tools/render_font_decks.py) are a corpus of their own,
# for training only; their names start with one of FONT_DECK_PREFIXES ("fontval-": the
# decks of the faces kept out of training, for validation).
FONT_DECKS_ENV = "TABLECTL_FONT_DECKS"
DEFAULT_FONT_DECKS = Path("var/font-decks")
FONT_DECK_PREFIX = "font-"  # the training decks
FONT_VALIDATION_PREFIX = "fontval-"  # the decks of the faces kept out of training
FONT_DECK_PREFIXES = (FONT_DECK_PREFIX, FONT_VALIDATION_PREFIX)

Box = tuple[float, float, float, float]


def corpus_folder() -> Path:
    """The deck corpus: `$TABLECTL_DECK_CORPUS`, else `var/deck-corpus`."""
    return Path(os.environ.get(CORPUS_ENV) or DEFAULT_CORPUS)


def font_decks_folder() -> Path:
    """The font-drawn decks: `$TABLECTL_FONT_DECKS`, else `var/font-decks`."""
    return Path(os.environ.get(FONT_DECKS_ENV) or DEFAULT_FONT_DECKS)


@dataclass(frozen=True)
class ArtworkDeck:
    """A deck of real card artwork: `folder` holds `<CARD>.png` for all 52 cards."""

    name: str
    folder: Path

    @classmethod
    def named(cls, name: str, corpus: Path | None = None) -> ArtworkDeck:
        """Deck `name` of `corpus` (default: the real deck corpus, or the font decks'
        folder for a name starting with "font-" or "fontval-")."""
        drawn = name.startswith(FONT_DECK_PREFIXES)
        root = corpus if corpus is not None else (font_decks_folder() if drawn
                                                   else corpus_folder())
        folder = root / name
        if not (folder / "AS.png").is_file():
            tool = "render_font_decks.py" if drawn else "render_deck_corpus.py"
            if name.startswith(FONT_VALIDATION_PREFIX):
                tool += " --validation"
            raise ValueError(f"deck {name!r} is not in the corpus {root}: render it with "
                             f"python tools/{tool} --out {root} --decks {name}")
        return cls(name, folder)


@dataclass(frozen=True)
class IndexGlyphBoxes:
    """The top-left index's rank glyph and suit pip, as fractions of the card's size."""

    rank: Box
    suit: Box
    found: bool  # False: the deck's typical index stands in for one not found on this card


@lru_cache(maxsize=128)
def _full_card(folder: Path, card: str) -> np.ndarray:
    path = folder / f"{card}.png"
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise ValueError(f"cannot read card image {path}")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGRA)
    elif image.shape[2] == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    image.setflags(write=False)
    return image


def _ink_mask(card: np.ndarray) -> np.ndarray:
    """Print on the card: dark, or strongly coloured, against the card stock."""
    alpha = card[:, :, 3:4].astype(np.float32) / 255.0
    bgr = card[:, :, :3].astype(np.float32) * alpha + 255.0 * (1 - alpha)
    b, g, r = bgr[:, :, 0], bgr[:, :, 1], bgr[:, :, 2]
    dark = bgr.max(axis=2) < 150
    coloured = (bgr.max(axis=2) - bgr.min(axis=2)) > 90
    red = (r - np.maximum(g, b)) > 60
    # Away from the card's edge: an outline drawn there would join glyphs printed near it.
    margin = max(3, round(0.015 * card.shape[0]))
    inside = cv2.erode((card[:, :, 3] > 200).astype(np.uint8), np.ones((3, 3), np.uint8),
                       iterations=margin)
    return ((dark | coloured | red) & (inside > 0)).astype(np.uint8)


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return max(0.0, min(a1, b1) - max(a0, b0))


def _corner_glyphs(mask: np.ndarray, grow: int) -> list[Box]:
    """Glyph-sized ink components wholly inside the card's top-left corner (pixels)."""
    h, w = mask.shape
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    region_w, region_h = 0.32 * w, 0.48 * h
    glyphs: list[Box] = []
    for k in range(1, count):
        x, y, bw, bh, area = (int(v) for v in stats[k])
        x, y, bw, bh = x - grow, y - grow, bw + 2 * grow, bh + 2 * grow
        if x + bw > region_w or y + bh > region_h:
            continue  # reaches beyond the corner: a frame, artwork or the card's outline
        if bh < 0.03 * h or area < 12 or bw > 0.25 * w or bh > 0.2 * h:
            continue
        glyphs.append((float(x), float(y), float(x + bw), float(y + bh)))
    return glyphs


def _find_index(card: np.ndarray) -> tuple[Box, Box] | None:
    """Rank and suit boxes (pixels) of the top-left index of a full-size card, or None.

    Where a glyph touches a border line, the ink thinned by a couple of pixels
    (which a thin line does not survive) is tried too.
    """
    mask = _ink_mask(card)
    found = _index_of(_corner_glyphs(mask, 0))
    if found is None:
        grow = max(1, round(0.006 * card.shape[0]))
        thinned = cv2.erode(mask, np.ones((3, 3), np.uint8), iterations=grow)
        found = _index_of(_corner_glyphs(thinned, grow))
    return found


def _index_of(glyphs: list[Box]) -> tuple[Box, Box] | None:
    """The rank (nearest the corner; both glyphs of a "10") and the suit pip below it."""
    if len(glyphs) < 2:
        return None
    first = min(glyphs, key=lambda g: g[1] + 0.5 * g[0])
    rank = first
    for g in glyphs:  # the other half of a "10", or a rank drawn in two pieces
        if g is first:
            continue
        height = first[3] - first[1]
        side_by_side = (_overlap(first[1], first[3], g[1], g[3]) > 0.6 * height
                        and min(abs(g[0] - rank[2]), abs(rank[0] - g[2])) < 0.45 * height)
        if side_by_side:
            rank = (min(rank[0], g[0]), min(rank[1], g[1]), max(rank[2], g[2]),
                    max(rank[3], g[3]))
    rank_h = rank[3] - rank[1]
    below = [g for g in glyphs
             if g[1] >= rank[3] - 0.15 * rank_h and g[1] - rank[3] < 1.2 * rank_h
             and _overlap(rank[0], rank[2], g[0], g[2]) > 0
             and 0.3 * rank_h <= g[3] - g[1] <= 2.2 * rank_h]
    if not below:
        return None
    suit = min(below, key=lambda g: g[1])
    return rank, suit


@lru_cache(maxsize=64)
def deck_index_boxes(folder: Path) -> dict[str, IndexGlyphBoxes]:
    """Each card's index glyph boxes (fractions of the card), found on the artwork.

    A card whose index cannot be found gets the median of the deck's other cards.
    """
    found: dict[str, tuple[Box, Box]] = {}
    sizes: dict[str, tuple[int, int]] = {}
    for rank in RANKS:
        for suit in SUITS:
            card = rank + suit
            image = _full_card(folder, card)
            sizes[card] = (image.shape[1], image.shape[0])
            boxes = _find_index(image)
            if boxes is not None:
                w, h = sizes[card]
                found[card] = tuple(  # type: ignore[assignment]
                    (b[0] / w, b[1] / h, b[2] / w, b[3] / h) for b in boxes)
    if not found:
        drawn = _drawn_index_boxes(folder)
        if drawn is None:
            raise ValueError(f"no index corner found on any card of {folder}")
        return drawn
    median_rank = tuple(float(v) for v in np.median([b[0] for b in found.values()], axis=0))
    median_suit = tuple(float(v) for v in np.median([b[1] for b in found.values()], axis=0))
    out: dict[str, IndexGlyphBoxes] = {}
    for card in sizes:
        if card in found:
            out[card] = IndexGlyphBoxes(found[card][0], found[card][1], True)
        else:
            out[card] = IndexGlyphBoxes(median_rank, median_suit, False)  # type: ignore[arg-type]
    return out


def _four(values: list[float]) -> Box:
    x0, y0, x1, y1 = (float(v) for v in values)
    return x0, y0, x1, y1


def _drawn_index_boxes(folder: Path) -> dict[str, IndexGlyphBoxes] | None:
    """The index boxes a font-drawn deck's `deck.json` records as drawn, or None.

    Taken only where the finder sees no index on any card: a thin, light outline
    suit sign (the white signs of some font decks) can be too faint for its ink mask.
    """
    try:
        record = json.loads((folder / "deck.json").read_text(encoding="utf-8"))["index_boxes"]
        boxes = {card: IndexGlyphBoxes(_four(b["rank"]), _four(b["suit"]), True)
                 for card, b in record.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return boxes if set(boxes) == {r + s for r in RANKS for s in SUITS} else None


def artwork_card(card: str, deck: ArtworkDeck, width_px: int) -> np.ndarray:
    """Card `card` of `deck`, `width_px` wide (63 x 88 proportion), BGRA."""
    parse_card(card)
    if width_px < 20:
        raise ValueError(f"card width {width_px} px is too small to draw; use 20 px or more")
    return _scaled_card(deck.folder, card, width_px).copy()


@lru_cache(maxsize=1024)
def _scaled_card(folder: Path, card: str, width_px: int) -> np.ndarray:
    full = _full_card(folder, card)
    # Premultiplied, so the transparent surround does not bleed dark into the edge.
    alpha = full[:, :, 3:4].astype(np.float32) / 255.0
    premultiplied = np.dstack([full[:, :, :3].astype(np.float32) * alpha, alpha[:, :, 0] * 255])
    small = cv2.resize(premultiplied, (width_px, card_height(width_px)),
                       interpolation=cv2.INTER_AREA)
    a = small[:, :, 3:4] / 255.0
    colour = small[:, :, :3] / np.maximum(a, 1e-3)
    out = np.clip(np.dstack([colour, small[:, :, 3]]), 0, 255).astype(np.uint8)
    out.setflags(write=False)
    return out


def artwork_back(deck: ArtworkDeck, width_px: int) -> np.ndarray | None:
    """The deck's back at `width_px`, or None where the corpus has none for it (or one
    showing card faces)."""
    if deck.name in BACKS_SHOWING_FACES or not (deck.folder / "back.png").is_file():
        return None
    return _scaled_card(deck.folder, "back", width_px).copy()


def artwork_glyph_boxes(deck: ArtworkDeck, width_px: int, card: str
                        ) -> tuple[tuple[Box, Box], tuple[Box, Box]]:
    """(rank, suit) boxes of the card's top-left and bottom-right index, card pixels."""
    boxes = deck_index_boxes(deck.folder)[card]
    w, h = width_px, card_height(width_px)

    def scaled(b: Box) -> Box:
        return (b[0] * w, b[1] * h, b[2] * w, b[3] * h)

    def turned(b: Box) -> Box:
        return (w - b[2], h - b[3], w - b[0], h - b[1])

    rank, suit = scaled(boxes.rank), scaled(boxes.suit)
    return (rank, suit), (turned(rank), turned(suit))
