"""Draw the cards of one font-drawn deck: faces with indices, pips or court pictures, and a back.

`DeckDrawer(style, height)` prepares the deck's glyph stamps once; `face(card)`
returns the card as BGRA (rounded corners, transparent outside) with the boxes
of its top-left index as drawn. The bottom-right index, the lower pips and the
lower half of a court picture are the upper ones turned half round.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from foundation.cards import RANKS, SUITS
from hwsim.camera.font_deck_style import Colour, DeckStyle
from hwsim.camera.font_glyphs import Box, paint, rank_stamp, suit_stamp, text_mask

RED_SUITS = "HD"
# Centre pips: (column 0/0.5/1, row from 0 to 1) in the pip area; rows past the middle
# are printed upside down.
_L, _C, _R = 0.0, 0.5, 1.0
_SIX = [(_L, 0.0), (_R, 0.0), (_L, 0.5), (_R, 0.5), (_L, 1.0), (_R, 1.0)]
_EIGHT_SIDES = [(x, y) for y in (0.0, 1 / 3, 2 / 3, 1.0) for x in (_L, _R)]
PIP_LAYOUTS: dict[str, list[tuple[float, float]]] = {
    "2": [(_C, 0.0), (_C, 1.0)],
    "3": [(_C, 0.0), (_C, 0.5), (_C, 1.0)],
    "4": [(_L, 0.0), (_R, 0.0), (_L, 1.0), (_R, 1.0)],
    "5": [(_L, 0.0), (_R, 0.0), (_C, 0.5), (_L, 1.0), (_R, 1.0)],
    "6": _SIX,
    "7": [*_SIX, (_C, 0.25)],
    "8": [*_SIX, (_C, 0.25), (_C, 0.75)],
    "9": [*_EIGHT_SIDES, (_C, 0.5)],
    "T": [*_EIGHT_SIDES, (_C, 1 / 6), (_C, 5 / 6)],
}
INDEX_MAX_RIGHT = 0.28  # of the card width: the finder looks for the index left of 0.32
RANK_MAX_HEIGHT = 0.185  # of the card height: the finder takes taller ink for artwork


@dataclass(frozen=True)
class DrawnIndex:
    """The top-left index's rank and suit boxes, card pixels (x0, y0, x1, y1)."""

    rank: Box
    suit: Box


def _turned(image: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(image[::-1, ::-1])


def _tint(colour: Colour, stock: Colour, amount: float) -> Colour:
    b, g, r = (round(c * amount + s * (1 - amount)) for c, s in zip(colour, stock, strict=True))
    return (b, g, r)


class DeckDrawer:
    """The faces and back of one deck at `height` px."""

    def __init__(self, style: DeckStyle, height: int) -> None:
        self.style = style
        self.height = height
        self.width = round(height * style.aspect)
        self.cap = max(8, round(style.rank_height * height))
        stroke = round(style.stroke * self.cap)
        path = style.face.path
        self.ranks = {r: rank_stamp(path, r, self.cap, stroke, style.x_scale, style.ten_scale,
                                    style.ten_gap) for r in RANKS}
        tallest = max(m.shape[0] for m in self.ranks.values())
        if tallest > RANK_MAX_HEIGHT * height:  # a J or Q reaching far below the line
            self.cap = round(self.cap * RANK_MAX_HEIGHT * height / tallest)
            self.ranks = {r: rank_stamp(path, r, self.cap, stroke, style.x_scale,
                                        style.ten_scale, style.ten_gap) for r in RANKS}
        self.index_x = round(style.index_x * self.width)
        self.index_y = round(style.index_y * height)
        self._fit_index_width()
        self.suit_path = style.suit_face.face.path if style.suit_face else None
        suit_px = style.suit_height * self.cap
        self.suits = {s: suit_stamp(self.suit_path, s, suit_px, style.outline_suits)
                      for s in SUITS}
        self.column = max(max(m.shape[1] for m in self.ranks.values()),
                          max(m.shape[1] for m in self.suits.values()))
        self.index_right = self.index_x + self.column
        self.suit_y = (self.index_y + max(m.shape[0] for m in self.ranks.values())
                       + max(2, round(style.suit_gap * self.cap)))
        self.pips = self._centre_pips(style.pip_height * self.width)
        self.aces = {s: suit_stamp(self.suit_path, s, style.ace_height * self.width)
                     for s in SUITS}

    def _centre_pips(self, height: float) -> dict[str, np.ndarray]:
        """Pips of about `height` px, smaller where two columns or four rows would touch."""
        pips = {s: suit_stamp(self.suit_path, s, height, self.style.outline_suits)
                for s in SUITS}
        widest = max(p.shape[1] for p in pips.values())
        width_room = (self.width - 2 * self.index_right - self.cap) / 2.3
        height_room = 0.76 * self.height / 4.3
        factor = min(1.0, width_room / widest, height_room / height)
        if factor < 1.0:
            pips = {s: suit_stamp(self.suit_path, s, height * factor, self.style.outline_suits)
                    for s in SUITS}
        return pips

    def _fit_index_width(self) -> None:
        """Condense ranks wider than the corner leaves room for (real decks do too)."""
        room = INDEX_MAX_RIGHT * self.width - self.index_x
        for rank, stamp in self.ranks.items():
            if stamp.shape[1] > room:
                width = max(1, int(room))
                self.ranks[rank] = cv2.resize(stamp, (width, stamp.shape[0]),
                                              interpolation=cv2.INTER_AREA)

    def colour(self, suit: str) -> Colour:
        return self.style.red if suit in RED_SUITS else self.style.black

    # --- the parts of a face ------------------------------------------------------------------

    def _index(self, image: np.ndarray, rank: str, suit: str) -> DrawnIndex:
        colour = self.colour(suit)
        rank_mask, suit_mask = self.ranks[rank], self.suits[suit]
        centre = self.index_x + self.column / 2

        def left(mask: np.ndarray) -> float:
            return centre - mask.shape[1] / 2 if self.style.centred else self.index_x

        rank_box = paint(image, rank_mask, left(rank_mask), self.index_y, colour)
        suit_box = paint(image, suit_mask, left(suit_mask), self.suit_y, colour)
        return DrawnIndex(rank_box, suit_box)

    def _border(self, image: np.ndarray) -> None:
        style = self.style
        if style.border == "none":
            return
        d = round(style.border_inset * self.width)
        thick = {"line": max(1, round(0.005 * self.width)), "double": max(1, round(0.004 *
                 self.width)), "frame": max(2, round(0.012 * self.width))}[style.border]
        w, h = self.width, self.height
        cv2.rectangle(image, (d, d), (w - 1 - d, h - 1 - d), style.border_colour, thick,
                      cv2.LINE_AA)
        if style.border == "double":
            e = d + round(0.015 * self.width)
            cv2.rectangle(image, (e, e), (w - 1 - e, h - 1 - e), style.border_colour, thick,
                          cv2.LINE_AA)

    def _pip_area(self, pip: np.ndarray) -> tuple[float, float, float, float]:
        """Centres of the left and right columns and the top and bottom rows."""
        w, h = self.width, self.height
        clear = self.index_right + 0.5 * self.cap + pip.shape[1] / 2
        left = max(0.3 * w, clear)
        top = max(0.12 * h + pip.shape[0] / 2, self.index_y + pip.shape[0] / 2)
        return left, w - left, top, h - top

    def _pips(self, image: np.ndarray, rank: str, suit: str) -> None:
        colour = self.colour(suit)
        if rank == "A":
            ace = self.aces[suit]
            paint(image, ace, (self.width - ace.shape[1]) / 2, (self.height - ace.shape[0]) / 2,
                  colour)
            return
        pip = self.pips[suit]
        left, right, top, bottom = self._pip_area(pip)
        turned = np.rot90(pip, 2)
        for fx, fy in PIP_LAYOUTS[rank]:
            cx = left + fx * (right - left)
            cy = top + fy * (bottom - top)
            mask = turned if fy > 0.5 else pip
            paint(image, mask, cx - mask.shape[1] / 2, cy - mask.shape[0] / 2, colour)

    def _court_half(self, image: np.ndarray, rank: str, suit: str, frame: tuple[int, int]
                    ) -> None:
        """The upper half of a court picture (drawn again turned for the lower half)."""
        style = self.style
        w, h = self.width, self.height
        fx, fy = frame
        blue, gold, third = style.art_colours
        top = max(fy + 0.03 * h, self.index_y + 1.15 * self.cap)
        mid = h / 2
        cx = w / 2
        pip = self.pips[suit]
        paint(image, pip, fx + 0.02 * w, top, self.colour(suit))
        top += 0.8 * pip.shape[0]
        if style.court == "letter":
            letter = text_mask(style.face.path, rank, max(8, round(0.3 * h)))
            scale = min(0.55 * (mid - top) / letter.shape[0], 0.4 * w / letter.shape[1])
            letter = cv2.resize(letter, (max(1, round(letter.shape[1] * scale)),
                                         max(1, round(letter.shape[0] * scale))),
                                interpolation=cv2.INTER_AREA)
            paint(image, letter, cx - letter.shape[1] / 2, top + 0.15 * (mid - top), third)
            for k in range(5):
                x = fx + (k + 0.5) * (w - 2 * fx) / 5
                cv2.circle(image, (round(x), round(mid - 0.03 * h)), max(2, round(0.012 * w)),
                           gold, -1, cv2.LINE_AA)
            return
        head_r = min(0.08 * w, 0.12 * (mid - top))
        head_y = top + 0.2 * (mid - top) + head_r
        body = np.array([[cx - 0.1 * w, head_y + head_r], [cx + 0.1 * w, head_y + head_r],
                         [cx + 0.2 * w, mid], [cx - 0.2 * w, mid]])
        cv2.fillPoly(image, [np.round(body).astype(np.int32)], blue, cv2.LINE_AA)
        band_y = round(head_y + head_r + 0.35 * (mid - head_y - head_r))
        cv2.rectangle(image, (round(cx - 0.16 * w), band_y), (round(cx + 0.16 * w),
                      band_y + round(0.03 * h)), third, -1, cv2.LINE_AA)
        cv2.circle(image, (round(cx), round(head_y)), round(head_r), (170, 200, 240), -1,
                   cv2.LINE_AA)
        crown_base = head_y - head_r
        if rank == "J":  # a cap
            cv2.rectangle(image, (round(cx - head_r), round(crown_base - 0.5 * head_r)),
                          (round(cx + head_r), round(crown_base + 0.2 * head_r)), third, -1,
                          cv2.LINE_AA)
        else:  # a crown: three points for a king, five low ones for a queen
            points = 3 if rank == "K" else 5
            tall = 0.9 if rank == "K" else 0.5
            xs = np.linspace(cx - head_r, cx + head_r, 2 * points + 1)
            crown = [(x, crown_base - (tall * head_r if k % 2 == 0 else 0.25 * head_r))
                     for k, x in enumerate(xs)]
            crown += [(cx + head_r, crown_base + 0.2 * head_r),
                      (cx - head_r, crown_base + 0.2 * head_r)]
            cv2.fillPoly(image, [np.round(np.array(crown)).astype(np.int32)], gold,
                         cv2.LINE_AA)
        self._court_strokes(image, body, (cx, head_y, head_r), mid)

    def _court_strokes(self, image: np.ndarray, body: np.ndarray,
                       head: tuple[float, float, float], mid: float) -> None:
        """Black outlines, a sceptre and a flower: the ink strokes of real court art, on
        which the candidate finder proposes pairs that are not an index."""
        w = self.width
        ink, red = self.style.black, self.style.red
        line = max(1, round(0.005 * w))
        cx, head_y, head_r = head
        cv2.polylines(image, [np.round(body).astype(np.int32)], True, ink, line, cv2.LINE_AA)
        cv2.circle(image, (round(cx), round(head_y)), round(head_r), ink, line, cv2.LINE_AA)
        for eye in (-0.35, 0.35):
            cv2.circle(image, (round(cx + eye * head_r), round(head_y - 0.1 * head_r)),
                       max(1, round(0.1 * head_r)), ink, -1, cv2.LINE_AA)
        top = (round(cx + 0.15 * w), round(head_y - 0.5 * head_r))
        cv2.line(image, top, (round(cx + 0.17 * w), round(mid)), ink, line + 1, cv2.LINE_AA)
        cv2.circle(image, top, max(2, round(0.025 * w)), ink, -1, cv2.LINE_AA)
        stem = (round(cx - 0.14 * w), round(head_y + head_r))
        cv2.line(image, stem, (stem[0] + round(0.02 * w), round(head_y + 2.5 * head_r)), ink,
                 line, cv2.LINE_AA)
        for dx, dy in ((0, -1), (-1, 0), (1, 0), (0, 1)):
            petal = (stem[0] + round(dx * 0.018 * w), stem[1] + round(dy * 0.018 * w))
            cv2.circle(image, petal, max(1, round(0.014 * w)), red, -1, cv2.LINE_AA)

    def _court(self, image: np.ndarray, rank: str, suit: str) -> np.ndarray:
        style = self.style
        w, h = self.width, self.height
        fx = round(self.index_right + 0.04 * w)
        fy = self.index_y
        cv2.rectangle(image, (fx, fy), (w - 1 - fx, h - 1 - fy),
                      _tint(style.art_colours[1], style.stock, 0.25), -1)
        for _ in range(2):
            self._court_half(image, rank, suit, (fx, fy))
            image = _turned(image)
        cv2.line(image, (fx, h // 2), (w - 1 - fx, h // 2), style.art_colours[0], 1,
                 cv2.LINE_AA)
        cv2.rectangle(image, (fx, fy), (w - 1 - fx, h - 1 - fy), style.art_colours[0],
                      max(1, round(0.006 * w)), cv2.LINE_AA)
        return image

    # --- whole cards --------------------------------------------------------------------------

    def _with_corners(self, image: np.ndarray) -> np.ndarray:
        """BGRA: the card's rounded outline opaque, transparent outside."""
        style = self.style
        scale = 4
        w, h = self.width * scale, self.height * scale
        r = round(style.corner_radius * self.width * scale)
        big = np.zeros((h, w), np.uint8)
        cv2.rectangle(big, (r, 0), (w - 1 - r, h - 1), 255, -1)
        cv2.rectangle(big, (0, r), (w - 1, h - 1 - r), 255, -1)
        for x, y in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
            cv2.circle(big, (x, y), r, 255, -1)
        alpha = cv2.resize(big, (self.width, self.height), interpolation=cv2.INTER_AREA)
        if style.edge_line:
            inner = cv2.erode(alpha, np.ones((3, 3), np.uint8), iterations=1)
            edge = ((alpha.astype(np.int16) - inner) > 64)
            image[edge] = (150, 150, 150)
        return np.dstack([image, alpha])

    def blank(self) -> np.ndarray:
        image = np.empty((self.height, self.width, 3), np.uint8)
        image[:] = self.style.stock
        return image

    def face(self, card: str) -> tuple[np.ndarray, DrawnIndex]:
        """Card `card` ("TD") as BGRA, and its top-left index as drawn."""
        rank, suit = card[0], card[1]
        image = self.blank()
        self._border(image)
        if rank in "JQK":
            image = self._court(image, rank, suit)
        else:
            self._pips(image, rank, suit)
        drawn = self._index(image, rank, suit)
        image = _turned(image)
        self._index(image, rank, suit)
        image = _turned(image)
        return self._with_corners(image), drawn

    def back(self) -> np.ndarray:
        style = self.style
        image = self.blank()
        m = round(0.06 * self.width)
        w, h = self.width, self.height
        cv2.rectangle(image, (m, m), (w - 1 - m, h - 1 - m), style.back_colour, -1)
        light = _tint(style.back_colour, (255, 255, 255), 0.5)
        inside = image[m:h - m, m:w - m]
        step = max(6, round(0.06 * w))
        if style.back == "dots":
            for y in range(step // 2, inside.shape[0], step):
                for x in range(step // 2, inside.shape[1], step):
                    cv2.circle(inside, (x, y), max(1, step // 5), light, -1, cv2.LINE_AA)
        else:
            thick = 1 if style.back == "lattice" else max(2, step // 3)
            for k in range(-inside.shape[0], inside.shape[1], step):
                cv2.line(inside, (k, 0), (k + inside.shape[0], inside.shape[0]), light, thick,
                         cv2.LINE_AA)
                if style.back == "lattice":
                    cv2.line(inside, (k + inside.shape[0], 0), (k, inside.shape[0]), light,
                             thick, cv2.LINE_AA)
        return self._with_corners(image)
