"""The colour of a candidate's glyphs, measured, to overrule a read of the wrong colour.

Hearts and diamonds are printed red, spades and clubs black, rank and pip alike,
on every French-suited deck the recognizer reads. The networks see colour but
can still read a pip the wrong way up, a blurred glyph as a suit of the other
colour, or a pair of glyphs from two cards as one index; the ink itself says
which colour each glyph is, and a read that either glyph contradicts is not
sure.

The ink is judged against the card stock around it (its colour taken as white),
so a warm or cold light does not make black ink red. Only pixels that are
clearly red print or clearly black print count; felt, chips and coloured
artwork in the crop are neither. Where too few pixels are either (a pale,
blurred pip), the colour is not known and overrules nothing.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.features import CROP_H, CROP_W

# Where the glyphs lie in an upright crop (`vision.features`): the crop spans 2.5
# rank-to-suit distances down and 2 across, the rank glyph's centre half a
# distance above the middle, the pip's half a distance below. Each window
# reaches 0.6 distances from its glyph's centre, beyond any pip.
_ROW_OF_DISTANCE = CROP_H / 2.5
_MIDDLE_ROW, _MIDDLE_COL = (CROP_H - 1) / 2, (CROP_W - 1) / 2
PIP_CENTRE = (_MIDDLE_ROW + 0.5 * _ROW_OF_DISTANCE, _MIDDLE_COL)  # row, column
RANK_CENTRE = (_MIDDLE_ROW - 0.5 * _ROW_OF_DISTANCE, _MIDDLE_COL)
_REACH = 0.6 * _ROW_OF_DISTANCE


def _window(centre: tuple[float, float]) -> tuple[slice, slice]:
    reach_cols = 0.6 * CROP_W / 2
    return (slice(max(0, round(centre[0] - _REACH)), min(CROP_H, round(centre[0] + _REACH))),
            slice(round(centre[1] - reach_cols), round(centre[1] + reach_cols) + 1))


PIP_ROWS, PIP_COLS = _window(PIP_CENTRE)
RANK_ROWS, RANK_COLS = _window(RANK_CENTRE)
# In units of the card stock's level (255): print is darker than this in its
# darkest channel; red print is this much redder than its green and blue, black
# print this dark and this grey.
PRINT_DARKEST = 150.0
RED_EXCESS = 70.0
BLACK_BRIGHTEST = 130.0
BLACK_SPREAD = 50.0
MIN_PRINT_PIXELS = 4
# Share of red among the pip's print pixels that splits the two colours. On the
# training decks' scenes red pips measure 0.5 or more and black ones 0.12 or less.
RED_SHARE = 0.3

RED, BLACK, NOT_KNOWN = 1, 0, -1
# The model setting `pip_colour`: "check" the reads against their glyphs' ink, or "off".
PIP_COLOUR_RULES = ("check", "off")
RED_SUITS = frozenset("HD")


def paper_colour(crop: np.ndarray) -> np.ndarray:
    """The card stock's B, G, R in a crop: the median of its bright, colourless pixels."""
    pixels = crop.reshape(-1, 3).astype(np.float32)
    darkest = pixels.min(axis=1)
    brightest = pixels.max(axis=1)
    level = float(np.percentile(darkest, 90))
    stock = (darkest >= 0.9 * level) & (brightest - darkest < 0.25 * brightest)
    if int(stock.sum()) < 6:
        return np.full(3, max(level, 1.0), np.float32)
    return np.maximum(np.median(pixels[stock], axis=0), 1.0).astype(np.float32)


def pip_colour(crop: np.ndarray) -> int:
    """RED, BLACK or NOT_KNOWN: the suit pip's print in one upright colour crop
    (CROP_H, CROP_W, 3) BGR."""
    return glyph_colour(crop, PIP_ROWS, PIP_COLS, PIP_CENTRE)


def rank_colour(crop: np.ndarray) -> int:
    """RED, BLACK or NOT_KNOWN: the rank glyph's print in one upright colour crop."""
    return glyph_colour(crop, RANK_ROWS, RANK_COLS, RANK_CENTRE)


def glyph_colour(crop: np.ndarray, rows: slice, cols: slice,
                 centre: tuple[float, float]) -> int:
    """RED, BLACK or NOT_KNOWN for the print nearest `centre` in the window `rows`, `cols`.

    Print reaching the window's edge is not a glyph alone (felt, a card's edge,
    the next card's print) and tells nothing.
    """
    window = crop[rows, cols].astype(np.float32) * (255.0 / paper_colour(crop))
    blue, green, red = window[..., 0], window[..., 1], window[..., 2]
    darkest = np.minimum(np.minimum(blue, green), red)
    brightest = np.maximum(np.maximum(blue, green), red)
    glyph = _glyph_pixels((darkest < PRINT_DARKEST).astype(np.uint8),
                          (centre[0] - rows.start, centre[1] - cols.start))
    if glyph is None:
        return NOT_KNOWN
    red_print = int((glyph & (red - np.maximum(green, blue) > RED_EXCESS)).sum())
    black_print = int((glyph & (brightest - darkest < BLACK_SPREAD)
                       & (brightest < BLACK_BRIGHTEST)).sum())
    if red_print + black_print < MIN_PRINT_PIXELS:
        return NOT_KNOWN
    return RED if red_print / (red_print + black_print) >= RED_SHARE else BLACK


def _glyph_pixels(print_mask: np.ndarray, centre: tuple[float, float]) -> np.ndarray | None:
    """The connected print nearest `centre` (row, column) in a window (bool mask), or
    None where there is none or it reaches the window's edge."""
    count, labels = cv2.connectedComponents(print_mask, connectivity=8)
    if count < 2:
        return None
    rows, cols = np.nonzero(labels)
    nearest = int(np.argmin((rows - centre[0]) ** 2 + (cols - centre[1]) ** 2))
    glyph: np.ndarray = labels == labels[rows[nearest], cols[nearest]]
    if glyph[0].any() or glyph[-1].any() or glyph[:, 0].any() or glyph[:, -1].any():
        return None
    return glyph


def contradicted(crops: np.ndarray, suits: list[str]) -> np.ndarray:
    """Which reads' suits (letters S, H, D, C) are of the other colour than the ink of
    their pip or of their rank glyph."""
    verdict = np.zeros(len(suits), bool)
    for k, suit in enumerate(suits):
        expected = RED if suit in RED_SUITS else BLACK
        verdict[k] = (pip_colour(crops[k]) not in (NOT_KNOWN, expected)
                      or rank_colour(crops[k]) not in (NOT_KNOWN, expected))
    return verdict
