"""Single cards, face up and face down, drawn with OpenCV for one design.

Cards are drawn four times larger and shrunk with area averaging, which gives
the soft, anti-aliased edges a camera sees.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from foundation.cards import RANKS, SUITS, is_card_code, rank_label
from hwsim.camera.designs import CardDesign
from hwsim.camera.pips import draw_pip

CARD_ASPECT = 88 / 63  # height / width
SUPERSAMPLE = 4

Colour = tuple[int, int, int]
Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in card pixels


@dataclass(frozen=True)
class CardGeometry:
    """Where a design puts a card's two index corners, in pixels of a card `width` wide."""

    width: int
    height: int
    top_left: Box
    bottom_right: Box


def card_height(width_px: int) -> int:
    return round(width_px * CARD_ASPECT)


def parse_card(card: str) -> tuple[str, str]:
    """Split a card code such as 'QS' into rank and suit; a clear error otherwise."""
    if not is_card_code(card):
        raise ValueError(f"bad card code {card!r}: use a rank of {RANKS} and a suit of "
                         f"{SUITS}, e.g. 'QS' or 'TD'")
    return card[0], card[1]


@lru_cache(maxsize=64)
def _rank_glyph(label: str, font: int, height_px: int, stroke: float) -> np.ndarray:
    """The rank as an 8-bit coverage mask, cropped to its ink, `height_px` tall."""
    probe = 200
    thickness = max(1, round(stroke * probe))
    (tw, th), base = cv2.getTextSize(label, font, 1.0, thickness)
    scale = probe / th
    canvas = np.zeros((int(probe * 1.8), int(tw * scale * 1.4 + 3 * thickness)), np.uint8)
    cv2.putText(canvas, label, (thickness, int(probe * 1.3)), font, scale, 255, thickness,
                cv2.LINE_AA)
    ys, xs = np.nonzero(canvas)
    glyph = canvas[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    h, w = glyph.shape
    out_w = max(1, round(w * height_px / h))
    if label == "10":  # printed condensed, as real decks do
        out_w = min(out_w, round(height_px * 1.05))
    return cv2.resize(glyph, (out_w, height_px), interpolation=cv2.INTER_AREA)


def _index_layout(design: CardDesign, width: int) -> tuple[int, float, float, float, float]:
    """Rank height, suit size, left edge, rank top and suit centre y (card pixels)."""
    rank_h = max(4, round(design.rank_height * width))
    suit = design.suit_size * width
    x0 = design.index_x * width
    y0 = design.index_y * width
    suit_cy = y0 + rank_h + design.suit_gap * rank_h + suit / 2
    return rank_h, suit, x0, y0, suit_cy


def _index_glyph_width(design: CardDesign, rank_h: int, label: str) -> int:
    return int(_rank_glyph(label, design.font, rank_h, design.font_thickness).shape[1])


def _draw_index(img: np.ndarray, rank: str, suit: str, design: CardDesign, width: int,
                colour: Colour) -> tuple[Box, Box]:
    """Draw the top-left index on `img` (a card `width` pixels wide); return the boxes
    of its rank glyph and its suit pip."""
    rank_h, suit_size, x0, y0, suit_cy = _index_layout(design, width)
    glyph = _rank_glyph(rank_label(rank), design.font, rank_h, design.font_thickness)
    gh, gw = glyph.shape
    # Centre the rank and the pip on one column, the width of the widest rank.
    column = max(_index_glyph_width(design, rank_h, "Q"), suit_size)
    cx = x0 + column / 2
    # A rank wider than the column ("10") grows to the right, never over the card's edge
    # or border.
    gx = int(round(max(cx - gw / 2, x0)))
    gy = int(round(y0))
    region = img[gy:gy + gh, gx:gx + gw]
    alpha = (glyph.astype(np.float32) / 255.0)[:, :, None]
    region[:] = (region * (1 - alpha) + np.array(colour, np.float32) * alpha).astype(np.uint8)
    draw_pip(img, suit, cx, suit_cy, suit_size, colour)
    half = suit_size / 2
    return ((float(gx), float(gy), float(gx + gw), float(gy + gh)),
            (cx - half, suit_cy - half, cx + half, suit_cy + half))


def _union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _mirrored(box: Box, width: int, height: int) -> Box:
    x0, y0, x1, y1 = box
    return (width - x1, height - y1, width - x0, height - y0)


@lru_cache(maxsize=1024)
def glyph_boxes(design: CardDesign, width_px: int, rank: str) -> tuple[tuple[Box, Box],
                                                                      tuple[Box, Box]]:
    """The (rank glyph, suit pip) boxes of one rank's top-left and bottom-right
    index, card pixels."""
    big_w = width_px * SUPERSAMPLE
    scratch = np.zeros((card_height(width_px) * SUPERSAMPLE, big_w, 3), np.uint8)
    rank_big, suit_big = _draw_index(scratch, rank, "S", design, big_w, (255, 255, 255))
    rank_box, suit_box = _scaled(rank_big, 1 / SUPERSAMPLE), _scaled(suit_big, 1 / SUPERSAMPLE)
    height = card_height(width_px)
    return ((rank_box, suit_box),
            (_mirrored(rank_box, width_px, height), _mirrored(suit_box, width_px, height)))


def _scaled(box: Box, factor: float) -> Box:
    return (box[0] * factor, box[1] * factor, box[2] * factor, box[3] * factor)


def index_boxes(design: CardDesign, width_px: int, rank: str) -> tuple[Box, Box]:
    """The top-left and bottom-right index boxes (rank and pip) of one rank, card pixels."""
    top_left, bottom_right = glyph_boxes(design, width_px, rank)
    return _union(*top_left), _union(*bottom_right)


@lru_cache(maxsize=256)
def card_geometry(design: CardDesign, width_px: int) -> CardGeometry:
    """The index boxes of a design at a card width, large enough for every rank."""
    boxes = [index_boxes(design, width_px, rank)[0] for rank in RANKS]
    top_left = (min(b[0] for b in boxes), min(b[1] for b in boxes),
                max(b[2] for b in boxes), max(b[3] for b in boxes))
    height = card_height(width_px)
    return CardGeometry(width_px, height, top_left, _mirrored(top_left, width_px, height))


def _rounded_mask(width: int, height: int, radius: float) -> np.ndarray:
    mask = np.zeros((height, width), np.uint8)
    r = max(1, int(round(radius)))
    cv2.rectangle(mask, (r, 0), (width - 1 - r, height - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (width - 1, height - 1 - r), 255, -1)
    for cx, cy in ((r, r), (width - 1 - r, r), (r, height - 1 - r),
                   (width - 1 - r, height - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


def _draw_border(img: np.ndarray, design: CardDesign, width: int, height: int) -> None:
    colour = design.border_colour
    t = max(1, round(0.008 * width))
    # Printed borders keep clear of the index, as on real decks (see BORDER_CLEARANCE).
    if design.border == "line":
        m = round(0.022 * width)
        cv2.rectangle(img, (m, m), (width - m, height - m), colour, t, cv2.LINE_AA)
    elif design.border == "double":
        for m in (round(0.016 * width), round(0.03 * width)):
            cv2.rectangle(img, (m, m), (width - m, height - m), colour, t, cv2.LINE_AA)
    elif design.border == "frame":
        m = round(0.25 * width)
        cv2.rectangle(img, (m, round(0.16 * height)), (width - m, round(0.84 * height)),
                      colour, 2 * t, cv2.LINE_AA)


# Centre pip positions of a classic deck (fractions of the pip area; y > 0.5 drawn flipped).
_CLASSIC_PIPS: dict[str, list[tuple[float, float]]] = {
    "2": [(0.5, 0.0), (0.5, 1.0)],
    "3": [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    "4": [(0, 0), (1, 0), (0, 1), (1, 1)],
    "5": [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    "6": [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    "7": [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    "8": [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    "9": [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3),
          (0, 1), (1, 1)],
    "T": [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3),
          (0.5, 5 / 6), (0, 1), (1, 1)],
}


def _draw_number_pips(img: np.ndarray, rank: str, suit: str, design: CardDesign,
                      width: int, height: int, colour: Colour) -> None:
    if rank == "A":
        draw_pip(img, suit, width / 2, height / 2, 0.36 * width, colour)
        if suit == "S":
            cv2.ellipse(img, (width // 2, height // 2), (round(0.3 * width), round(0.3 * width)),
                        0, 0, 360, colour, max(1, round(0.01 * width)), cv2.LINE_AA)
        return
    if design.pip_layout == "single":
        draw_pip(img, suit, width / 2, height / 2, 0.34 * width, colour)
        return
    size = 0.17 * width
    left, right = 0.3 * width, 0.7 * width
    top, bottom = 0.2 * height, 0.8 * height
    for fx, fy in _CLASSIC_PIPS[rank]:
        x = left + fx * (right - left)
        y = top + fy * (bottom - top)
        draw_pip(img, suit, x, y, size, colour, flip=fy > 0.5)


def _draw_face_art(img: np.ndarray, rank: str, suit: str, design: CardDesign,
                   width: int, height: int, colour: Colour) -> None:
    c1, c2, c3 = design.art_colours
    x0, x1 = round(0.24 * width), round(0.76 * width)
    y0, y1 = round(0.17 * height), round(0.83 * height)
    t = max(1, round(0.012 * width))
    if design.face_art == "letter":
        glyph = _rank_glyph(rank, design.font, round(0.42 * width), design.font_thickness)
        gh, gw = glyph.shape
        gx, gy = (width - gw) // 2, (height - gh) // 2
        region = img[gy:gy + gh, gx:gx + gw]
        alpha = (glyph.astype(np.float32) / 255.0)[:, :, None]
        region[:] = (region * (1 - alpha) + np.array(c1, np.float32) * alpha).astype(np.uint8)
        draw_pip(img, suit, width / 2, y0 + 0.05 * height, 0.14 * width, colour)
        draw_pip(img, suit, width / 2, y1 - 0.05 * height, 0.14 * width, colour, flip=True)
        return
    half = np.zeros_like(img)
    half[:] = design.stock
    mid_y = height // 2
    if design.face_art == "framed":
        cv2.rectangle(img, (x0, y0), (x1, y1), c3, t, cv2.LINE_AA)
        # A figure: crown, head, robe; the lower half is the upper half turned round.
        cx = width // 2
        crown = np.array([[cx - 0.14 * width, y0 + 0.1 * height], [cx - 0.14 * width,
                          y0 + 0.03 * height], [cx - 0.07 * width, y0 + 0.07 * height],
                          [cx, y0 + 0.02 * height], [cx + 0.07 * width, y0 + 0.07 * height],
                          [cx + 0.14 * width, y0 + 0.03 * height],
                          [cx + 0.14 * width, y0 + 0.1 * height]], np.int32)
        cv2.fillPoly(img, [crown], c2, cv2.LINE_AA)
        cv2.circle(img, (cx, round(y0 + 0.15 * height)), round(0.08 * width), (170, 200, 240),
                   -1, cv2.LINE_AA)
        robe = np.array([[x0 + t * 2, mid_y], [cx - 0.1 * width, y0 + 0.21 * height],
                         [cx + 0.1 * width, y0 + 0.21 * height], [x1 - t * 2, mid_y]],
                        np.int32)
        cv2.fillPoly(img, [robe], c1, cv2.LINE_AA)
        cv2.line(img, (cx, round(y0 + 0.22 * height)), (cx, mid_y), c2, 3 * t, cv2.LINE_AA)
        draw_pip(img, suit, x0 + 0.09 * width, y0 + 0.07 * height, 0.1 * width, colour)
    else:  # geometric
        tri = np.array([[x0, y0], [x1, y0], [x0, mid_y]], np.int32)
        cv2.fillPoly(img, [tri], c1, cv2.LINE_AA)
        cv2.circle(img, (round(0.62 * width), round(0.3 * height)), round(0.1 * width), c2,
                   -1, cv2.LINE_AA)
        for k in range(3):
            m = round((0.04 + 0.05 * k) * width)
            cv2.rectangle(img, (x0 + m, y0 + m), (x1 - m, y1 - m), c3, t, cv2.LINE_AA)
        draw_pip(img, suit, 0.62 * width, 0.3 * height, 0.1 * width, colour)
    top = img[:mid_y].copy()
    img[height - mid_y:] = cv2.rotate(top, cv2.ROTATE_180)
    cv2.line(img, (x0, mid_y), (x1, mid_y), c3, t, cv2.LINE_AA)


def _finish(face: np.ndarray, design: CardDesign, width_px: int) -> np.ndarray:
    """Shrink a supersampled face to `width_px` and add the rounded-corner alpha."""
    height = card_height(width_px)
    big_h, big_w = face.shape[:2]
    alpha = _rounded_mask(big_w, big_h, design.corner_radius * big_w)
    small = cv2.resize(face, (width_px, height), interpolation=cv2.INTER_AREA)
    small_alpha = cv2.resize(alpha, (width_px, height), interpolation=cv2.INTER_AREA)
    return np.dstack([small, small_alpha])


@lru_cache(maxsize=512)  # about 30 MB of 100 px cards
def _render_card_cached(card: str, design: CardDesign, width_px: int) -> np.ndarray:
    rank, suit = parse_card(card)
    w = width_px * SUPERSAMPLE
    h = card_height(width_px) * SUPERSAMPLE
    face = np.zeros((h, w, 3), np.uint8)
    face[:] = design.stock
    colour = design.red if suit in "HD" else design.black
    _draw_border(face, design, w, h)
    if rank in "JQK":
        _draw_face_art(face, rank, suit, design, w, h, colour)
    else:
        _draw_number_pips(face, rank, suit, design, w, h, colour)
    # The same index in the top-left and, turned round, in the bottom-right corner.
    _draw_index(face, rank, suit, design, w, colour)
    turned = np.ascontiguousarray(cv2.rotate(face, cv2.ROTATE_180))
    _draw_index(turned, rank, suit, design, w, colour)
    card_img = _finish(np.asarray(cv2.rotate(turned, cv2.ROTATE_180)), design, width_px)
    card_img.setflags(write=False)
    return card_img


def render_card(card: str, design: CardDesign, width_px: int) -> np.ndarray:
    """Card `card` (e.g. 'QS') of `design`, `width_px` wide, as a BGRA image (aspect 63x88)."""
    if width_px < 20:
        raise ValueError(f"card width {width_px} px is too small to draw; use 20 px or more")
    return _render_card_cached(card, design, width_px).copy()


@lru_cache(maxsize=64)
def _render_back_cached(design: CardDesign, width_px: int) -> np.ndarray:
    w = width_px * SUPERSAMPLE
    h = card_height(width_px) * SUPERSAMPLE
    back = np.zeros((h, w, 3), np.uint8)
    back[:] = design.stock
    m = round(0.06 * w)
    inner = back[m:h - m, m:w - m]
    inner[:] = design.back_colour
    ih, iw = inner.shape[:2]
    light = tuple(min(255, c + 90) for c in design.back_colour)
    t = max(2, round(0.012 * w))
    step = max(8, round(0.09 * w))
    if design.back_pattern == "lattice":
        for k in range(-ih, iw + ih, step):
            cv2.line(inner, (k, 0), (k + ih, ih), light, t, cv2.LINE_AA)
            cv2.line(inner, (k + ih, 0), (k, ih), light, t, cv2.LINE_AA)
    elif design.back_pattern == "dots":
        for y in range(step // 2, ih, step):
            for x in range(step // 2, iw, step):
                cv2.circle(inner, (x, y), step // 4, light, -1, cv2.LINE_AA)
    elif design.back_pattern == "rings":
        for r in range(step, max(ih, iw), step):
            cv2.ellipse(inner, (iw // 2, ih // 2), (r, round(r * 1.3)), 0, 0, 360, light, t,
                        cv2.LINE_AA)
    else:  # stripes
        for k in range(0, iw + ih, step):
            cv2.line(inner, (k, 0), (k - ih, ih), light, 2 * t, cv2.LINE_AA)
    cv2.rectangle(back, (m, m), (w - m, h - m), design.stock, t, cv2.LINE_AA)
    img = _finish(back, design, width_px)
    img.setflags(write=False)
    return img


def render_back(design: CardDesign, width_px: int) -> np.ndarray:
    """The back of a card of `design` (a face-down card), BGRA."""
    return _render_back_cached(design, width_px).copy()
