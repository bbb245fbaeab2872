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
# Share of red among a glyph's print pixels that splits the two colours. On the
# training decks' scenes red pips measure 0.5 or more and black ones 0.12 or less.
RED_SHARE = 0.3

RED, BLACK, NOT_KNOWN = 1, 0, -1
# The model setting `pip_colour`: "check" the reads against their glyphs' ink, or "off".
PIP_COLOUR_RULES = ("check", "off")
RED_SUITS = frozenset("HD")


def paper_colours(crops: np.ndarray) -> np.ndarray:
    """The card stock's B, G, R in each crop (n, CROP_H, CROP_W, 3): the median of its
    bright, colourless pixels (n, 3) float32."""
    n = crops.shape[0]
    pixels = crops.reshape(n, -1, 3).astype(np.float32)
    # Channel by channel: numpy reduces over an axis of three slowly.
    blue, green, red = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    darkest = np.minimum(np.minimum(blue, green), red)
    brightest = np.maximum(np.maximum(blue, green), red)
    level = np.percentile(darkest, 90, axis=1)
    stock = (darkest >= 0.9 * level[:, None]) & (brightest - darkest < 0.25 * brightest)
    count = stock.sum(axis=1)
    # The median of each crop's stock pixels, channel by channel: the others sorted last.
    ordered = np.sort(np.where(stock[..., None], pixels, np.inf), axis=1)
    rows = np.arange(n)
    low = ordered[rows, np.maximum(count - 1, 0) // 2]
    high = ordered[rows, np.minimum(count // 2, pixels.shape[1] - 1)]
    median = np.where((count >= 6)[:, None], (low + high) / 2, level[:, None])
    return np.maximum(median, 1.0).astype(np.float32)


def pip_colour(crop: np.ndarray) -> int:
    """RED, BLACK or NOT_KNOWN: the suit pip's print in one upright colour crop
    (CROP_H, CROP_W, 3) BGR."""
    crops = crop[None]
    return int(glyph_colours(crops, paper_colours(crops), PIP_ROWS, PIP_COLS, PIP_CENTRE)[0])


def rank_colour(crop: np.ndarray) -> int:
    """RED, BLACK or NOT_KNOWN: the rank glyph's print in one upright colour crop."""
    crops = crop[None]
    return int(glyph_colours(crops, paper_colours(crops), RANK_ROWS, RANK_COLS,
                             RANK_CENTRE)[0])


def glyph_colours(crops: np.ndarray, papers: np.ndarray, rows: slice, cols: slice,
                  centre: tuple[float, float]) -> np.ndarray:
    """RED, BLACK or NOT_KNOWN (n,) for the print nearest `centre` (row, column of the
    crop) in the window `rows`, `cols` of each crop, on stock of colour `papers` (n, 3).

    Print reaching the window's edge is not a glyph alone (felt, a card's edge,
    the next card's print) and tells nothing.
    """
    windows = crops[:, rows, cols].astype(np.float32) * (255.0 / papers[:, None, None, :])
    blue, green, red = windows[..., 0], windows[..., 1], windows[..., 2]
    darkest = np.minimum(np.minimum(blue, green), red)
    brightest = np.maximum(np.maximum(blue, green), red)
    labels, count = _components(darkest < PRINT_DARKEST)
    glyph = _nearest_labels(labels, (centre[0] - rows.start, centre[1] - cols.start))
    flat = labels.ravel()
    red_print = np.bincount(flat, (red - np.maximum(green, blue) > RED_EXCESS).ravel(), count)
    black_print = np.bincount(flat, ((brightest - darkest < BLACK_SPREAD)
                                     & (brightest < BLACK_BRIGHTEST)).ravel(), count)
    reds, blacks = red_print[glyph], black_print[glyph]
    known = (glyph > 0) & ~_edge_labels(labels, count)[glyph] & (reds + blacks >= MIN_PRINT_PIXELS)
    colour = np.where(reds >= RED_SHARE * np.maximum(reds + blacks, 1), RED, BLACK)
    result: np.ndarray = np.where(known, colour, NOT_KNOWN)
    return result


def _components(mask: np.ndarray) -> tuple[np.ndarray, int]:
    """Labels (n, h, w) of the 8-connected components of each window's mask, numbered
    across all windows (0 = none), and how many labels there are with 0."""
    n, h, w = mask.shape
    # One image for all: a blank row after each window keeps their components apart.
    tall = np.zeros((n, h + 1, w), np.uint8)
    tall[:, :h] = mask
    count, labels = cv2.connectedComponents(tall.reshape(n * (h + 1), w), connectivity=8)
    return labels.reshape(n, h + 1, w)[:, :h], int(count)


def _nearest_labels(labels: np.ndarray, centre: tuple[float, float]) -> np.ndarray:
    """Per window, the label of the labelled pixel nearest `centre` (the first in row
    order among equals), 0 where the window has none."""
    n, h, w = labels.shape
    row, col = np.mgrid[0:h, 0:w]
    distance = (row - centre[0]) ** 2 + (col - centre[1]) ** 2
    flat = labels.reshape(n, -1)
    nearest = np.where(flat > 0, distance.ravel()[None, :], np.inf).argmin(axis=1)
    chosen: np.ndarray = flat[np.arange(n), nearest]
    return chosen


def _edge_labels(labels: np.ndarray, count: int) -> np.ndarray:
    """Which labels (bool by label) reach the edge of their window."""
    edge = np.zeros(count, bool)
    for border in (labels[:, 0], labels[:, -1], labels[:, :, 0], labels[:, :, -1]):
        edge[border.ravel()] = True
    return edge


def contradicted(crops: np.ndarray, suits: list[str]) -> np.ndarray:
    """Which reads' suits (letters S, H, D, C) are of the other colour than the ink of
    their pip or of their rank glyph."""
    if not suits:
        return np.zeros(0, bool)
    papers = paper_colours(crops)
    expected = np.array([RED if suit in RED_SUITS else BLACK for suit in suits])
    verdict = np.zeros(len(suits), bool)
    for rows, cols, centre in ((PIP_ROWS, PIP_COLS, PIP_CENTRE),
                               (RANK_ROWS, RANK_COLS, RANK_CENTRE)):
        colour = glyph_colours(crops, papers, rows, cols, centre)
        verdict |= (colour != NOT_KNOWN) & (colour != expected)
    return verdict
