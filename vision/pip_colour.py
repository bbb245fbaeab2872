"""The colour of a candidate's suit pip, measured, to overrule a read of the wrong colour.

Hearts and diamonds are printed red, spades and clubs black, on every French-suited
deck the recognizer reads. The networks see colour but can still read a pip the
wrong way up or a blurred glyph as a suit of the other colour; the pip's ink
itself says which colour it is, and a read that contradicts it is not sure.

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

# Where the suit pip lies in an upright crop (`vision.features`): the crop spans
# 2.5 rank-to-suit distances down and 2 across, the pip's centre half a distance
# below the middle. The window reaches 0.6 distances from it, beyond any pip.
PIP_CENTRE = (CROP_H * 0.7, CROP_W * 0.5)  # row, column
PIP_ROWS = slice(round(CROP_H * 0.46), round(CROP_H * 0.94))
PIP_COLS = slice(round(CROP_W * 0.2), round(CROP_W * 0.8))
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
# The model setting `pip_colour`: "check" the reads against their pips, or "off".
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
    """RED, BLACK or NOT_KNOWN for one upright colour crop (CROP_H, CROP_W, 3) BGR.

    The pip is the print nearest the pip's place; print reaching the window's
    edge is not a pip alone (felt, a card's edge, the next card's print) and
    tells nothing.
    """
    window = crop[PIP_ROWS, PIP_COLS].astype(np.float32) * (255.0 / paper_colour(crop))
    blue, green, red = window[..., 0], window[..., 1], window[..., 2]
    darkest = np.minimum(np.minimum(blue, green), red)
    brightest = np.maximum(np.maximum(blue, green), red)
    pip = _pip_pixels((darkest < PRINT_DARKEST).astype(np.uint8))
    if pip is None:
        return NOT_KNOWN
    red_print = int((pip & (red - np.maximum(green, blue) > RED_EXCESS)).sum())
    black_print = int((pip & (brightest - darkest < BLACK_SPREAD)
                       & (brightest < BLACK_BRIGHTEST)).sum())
    if red_print + black_print < MIN_PRINT_PIXELS:
        return NOT_KNOWN
    return RED if red_print / (red_print + black_print) >= RED_SHARE else BLACK


def _pip_pixels(print_mask: np.ndarray) -> np.ndarray | None:
    """The connected print nearest the pip's centre in the window (bool mask), or None
    where there is none or it reaches the window's edge."""
    count, labels = cv2.connectedComponents(print_mask, connectivity=8)
    if count < 2:
        return None
    rows, cols = np.nonzero(labels)
    centre_row = PIP_CENTRE[0] - PIP_ROWS.start
    centre_col = PIP_CENTRE[1] - PIP_COLS.start
    nearest = int(np.argmin((rows - centre_row) ** 2 + (cols - centre_col) ** 2))
    pip: np.ndarray = labels == labels[rows[nearest], cols[nearest]]
    if pip[0].any() or pip[-1].any() or pip[:, 0].any() or pip[:, -1].any():
        return None
    return pip


def contradicted(crops: np.ndarray, suits: list[str]) -> np.ndarray:
    """Which reads' suits (letters S, H, D, C) are of the other colour than their pip's ink."""
    verdict = np.zeros(len(suits), bool)
    for k, suit in enumerate(suits):
        colour = pip_colour(crops[k])
        if colour != NOT_KNOWN:
            verdict[k] = (colour == RED) != (suit in RED_SUITS)
    return verdict
