"""Glyph stamps for font-drawn decks: rank and suit signs as 8-bit coverage masks.

A stamp is a uint8 array cropped to its ink (255 = fully covered). Fonts are
rendered with Pillow's basic FreeType layout (no shaping library, so the same
FreeType and font files give the same pixels); a suit sign is a font's glyph
(U+2660-2667) or the simulator's polygon pip (`hwsim.camera.pips`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from hwsim.camera.pips import draw_pip

Box = tuple[int, int, int, int]
RANK_TEXT = {"T": "10"}
SOLID_SUITS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
OUTLINE_SUITS = {"S": "\u2664", "H": "\u2661", "D": "\u2662", "C": "\u2667"}
CAP_REFERENCE = "K"  # rank glyphs are sized so that this letter's ink is the rank height


@lru_cache(maxsize=256)
def font(path: Path, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.BASIC)


def crop_to_ink(mask: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(mask > 0)
    if len(ys) == 0:
        raise ValueError("the glyph has no ink")
    return mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def text_mask(path: Path, text: str, size: int, stroke: int = 0) -> np.ndarray:
    """`text` in the font at `path`, `size` px, cropped to its ink."""
    face = font(path, size)
    left, top, right, bottom = (int(v) for v in face.getbbox(text, stroke_width=stroke))
    image = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(image).text((2 - left, 2 - top), text, font=face, fill=255,
                               stroke_width=stroke, stroke_fill=255)
    return crop_to_ink(np.asarray(image))


def scaled(mask: np.ndarray, height: float, x_scale: float = 1.0) -> np.ndarray:
    """The stamp resized to `height` px tall, its width times `x_scale` as well."""
    factor = height / mask.shape[0]
    width = max(1, round(mask.shape[1] * factor * x_scale))
    out = cv2.resize(mask, (width, max(1, round(height))), interpolation=cv2.INTER_AREA)
    return crop_to_ink(out)


@lru_cache(maxsize=128)
def cap_size(path: Path, cap_px: int) -> int:
    """The font size whose reference capital is `cap_px` tall."""
    probe = 200
    height = text_mask(path, CAP_REFERENCE, probe).shape[0]
    return max(4, round(probe * cap_px / height))


def rank_stamp(path: Path, rank: str, cap_px: int, stroke: int = 0, x_scale: float = 1.0,
               ten_scale: float = 1.0, ten_gap: float = 0.08) -> np.ndarray:
    """The rank's glyph(s); a "10" is its two digits `ten_gap` rank heights apart.

    Digits drawn noticeably shorter or taller than the capitals (old-style
    figures) are scaled to the rank height, as card indices print them.
    """
    size = cap_size(path, cap_px)

    def glyph(char: str) -> np.ndarray:
        mask = text_mask(path, char, size, stroke)
        if char.isdigit() and abs(mask.shape[0] - cap_px) > 0.12 * cap_px:
            mask = scaled(mask, cap_px)
        return mask

    text = RANK_TEXT.get(rank, rank)
    if len(text) == 1:
        stamp = glyph(text)
        return scaled(stamp, stamp.shape[0], x_scale) if x_scale != 1.0 else stamp
    one, zero = glyph(text[0]), glyph(text[1])
    height = max(one.shape[0], zero.shape[0])
    gap = max(2, round(ten_gap * cap_px))
    joined = np.zeros((height, one.shape[1] + gap + zero.shape[1]), np.uint8)
    joined[height - one.shape[0]:, :one.shape[1]] = one
    joined[height - zero.shape[0]:, one.shape[1] + gap:] = zero
    return scaled(joined, height, x_scale * ten_scale)


def suit_stamp(path: Path | None, suit: str, height_px: float, outline: bool = False
               ) -> np.ndarray:
    """Suit `suit` `height_px` tall: the font's sign, or the polygon pip when `path` is None."""
    if path is None:
        size = max(8, round(height_px * 2))
        canvas = np.zeros((size, size), np.uint8)
        draw_pip(canvas, suit, size / 2, size / 2, height_px, (255, 255, 255))
        return crop_to_ink(canvas)
    signs = OUTLINE_SUITS if outline else SOLID_SUITS
    mask = text_mask(path, signs[suit], max(8, round(height_px * 1.6)))
    return scaled(mask, height_px)


def paint(image: np.ndarray, stamp: np.ndarray, x: float, y: float,
          colour: tuple[int, int, int]) -> Box:
    """Blend `colour` through the stamp onto a BGR image with its top-left at (x, y).

    Returns the box (x0, y0, x1, y1) of the stamp's pixels at least half covered."""
    x0, y0 = round(x), round(y)
    h, w = stamp.shape
    if x0 < 0 or y0 < 0 or x0 + w > image.shape[1] or y0 + h > image.shape[0]:
        raise ValueError("a glyph does not fit on the card")
    alpha = stamp.astype(np.float32)[:, :, None] / 255.0
    region = image[y0:y0 + h, x0:x0 + w].astype(np.float32)
    image[y0:y0 + h, x0:x0 + w] = np.round(
        region * (1 - alpha) + np.array(colour, np.float32) * alpha).astype(np.uint8)
    ys, xs = np.nonzero(stamp >= 128)
    return (x0 + int(xs.min()), y0 + int(ys.min()), x0 + int(xs.max()) + 1,
            y0 + int(ys.max()) + 1)
