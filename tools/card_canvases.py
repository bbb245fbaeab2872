"""Card-level training canvases for `tools/train_vision.py`: one to three cards of one
design fanned on a felt, with the positions of their index glyphs known.

`locate_index` finds the top-left index's rank and suit blobs on a clean upright
card; `CardSampler.canvas` places cards at a random size, rotation and slight
perspective, drops chips on some canvases and spoils the picture (`degrade`:
uneven light, glare, shadow, blur, motion blur, noise, JPEG). Each placed card
keeps its homography and what of it is still uncovered, for labelling.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim")]

from foundation.cards import RANKS, SUITS  # noqa: E402
from vision.candidates import find_blobs  # noqa: E402

CARDS = [r + s for r in RANKS for s in SUITS]
Box = tuple[float, float, float, float]  # x0, y0, x1, y1


@dataclass(frozen=True)
class IndexGlyphs:
    """Where, on the upright card image, the top-left index's glyphs are."""

    rank: list[tuple[float, float]]  # one centre per rank blob ("10" has two)
    suit: tuple[float, float]
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 of the whole index
    # x0, y0, x1, y1 of the rank glyph(s): a blob centred in it is the rank, however
    # the blur of a canvas joins or splits the glyphs (a "10" one blob or two).
    rank_box: tuple[float, float, float, float] | None = None


def locate_index(card: np.ndarray, rank_box: Box, suit_box: Box) -> IndexGlyphs:
    """Find the top-left index's rank and suit on a clean upright card (BGRA).

    `rank_box` and `suit_box` are the design's own boxes of the index's rank
    glyph(s) and suit pip (x0, y0, x1, y1 on the card). The rank points are
    the blobs whose centre lies in the rank box (a "10" has two; a glyph the
    finder splits, each piece), else the box's centre; the suit point is the
    blob that fills the suit box, else its centre. A pip the finder splits
    into lobes (a club's three leaves and stem) is never taken for rank
    glyphs: that would label pairs of its lobes as the card.
    """
    h, w = card.shape[:2]
    pad = w // 2
    felt = np.full((h + 2 * pad, w + 2 * pad, 3), (40, 100, 30), np.uint8)
    alpha = card[:, :, 3:4].astype(np.float32) / 255.0
    region = felt[pad:pad + h, pad:pad + w]
    region[:] = (card[:, :, :3] * alpha + region * (1 - alpha)).astype(np.uint8)
    blobs = find_blobs(felt)
    centres = blobs.centres - pad
    boxes = blobs.boxes.astype(np.float32)
    boxes[:, :2] -= pad
    margin = 0.15 * (rank_box[3] - rank_box[1])
    in_rank = _inside(centres, rank_box, margin) & ~_inside(centres, suit_box, 0.0)
    # A blob reaching well below the rank box holds the suit too (glyphs touching).
    in_rank &= boxes[:, 1] + boxes[:, 3] <= suit_box[1] + margin + 1
    rank_points = [(float(x), float(y)) for x, y in centres[in_rank]]
    if not rank_points:
        rank_points = [((rank_box[0] + rank_box[2]) / 2, (rank_box[1] + rank_box[3]) / 2)]
    suit_point = ((suit_box[0] + suit_box[2]) / 2, (suit_box[1] + suit_box[3]) / 2)
    fits = [_overlap(tuple(b[:2]) + (b[0] + b[2], b[1] + b[3]), suit_box) for b in boxes]
    if fits and max(fits) >= 0.5:
        best = int(np.argmax(fits))
        suit_point = (float(centres[best, 0]), float(centres[best, 1]))
    x0 = min(rank_box[0], suit_box[0]) - margin
    y0 = min(rank_box[1], suit_box[1]) - margin
    x1 = max(rank_box[2], suit_box[2]) + margin
    y1 = max(rank_box[3], suit_box[3]) + margin
    return IndexGlyphs(rank_points, suit_point, (float(x0), float(y0), float(x1), float(y1)),
                       (float(rank_box[0]), float(rank_box[1]), float(rank_box[2]),
                        float(rank_box[3])))



def _inside(points: np.ndarray, box: Box, margin: float) -> np.ndarray:
    x0, y0, x1, y1 = box
    inside: np.ndarray = ((points[:, 0] >= x0 - margin) & (points[:, 0] <= x1 + margin)
                          & (points[:, 1] >= y0 - margin) & (points[:, 1] <= y1 + margin))
    return inside


def _overlap(a: Box, b: Box) -> float:
    """Intersection over union of two boxes (x0, y0, x1, y1)."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    if width <= 0 or height <= 0:
        return 0.0
    common = width * height
    return common / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - common)


@dataclass
class Placed:
    code: str
    matrix: np.ndarray  # 3x3 homography, card pixels -> canvas pixels
    mask: np.ndarray  # canvas-size coverage of this card
    glyphs: IndexGlyphs
    size: tuple[int, int]  # card w, h


def warp_point(matrix: np.ndarray, x: float, y: float) -> np.ndarray:
    p = matrix @ np.array([x, y, 1.0])
    return p[:2] / p[2]


def _card_homography(rng: np.random.Generator, w: int, h: int, centre: np.ndarray,
                     angle: float, tilt: float) -> np.ndarray:
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    c, s = np.cos(angle), np.sin(angle)
    rot = np.array([[c, -s], [s, c]])
    local = src - np.array([w / 2, h / 2], np.float32)
    dst = (local @ rot.T) + centre
    dst += rng.normal(0, tilt * w, dst.shape)
    return cv2.getPerspectiveTransform(src, dst.astype(np.float32))


def _felt(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    base = rng.choice([(40, 110, 30), (30, 90, 20), (90, 60, 20), (30, 40, 120), (60, 60, 60),
                       (20, 70, 40), (110, 80, 40)])
    jitter = rng.integers(-20, 21, 3)
    canvas = np.empty((*shape, 3), np.uint8)
    canvas[:] = np.clip(np.array(base) + jitter, 0, 255)
    noise = rng.normal(0, rng.uniform(1, 8), (*shape, 1))
    return np.clip(canvas + noise, 0, 255).astype(np.uint8)


def degrade(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """Uneven light, glare, shadow, blur, motion blur, noise and JPEG, each at random."""
    h, w = image.shape[:2]
    out: np.ndarray = image.astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if rng.random() < 0.8:
        direction = rng.normal(size=2)
        ramp = (xx * direction[0] + yy * direction[1]) / max(h, w)
        ramp = (ramp - ramp.min()) / max(float(np.ptp(ramp)), 1e-6)
        low, high = sorted(rng.uniform(0.45, 1.25, 2))
        out *= (low + (high - low) * ramp)[..., None]
    if rng.random() < 0.3:
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.1, 0.4) * max(h, w)
        glare = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r)) * rng.uniform(40, 140)
        out += glare[..., None]
    if rng.random() < 0.3:
        pts = rng.uniform(0, 1, (4, 2)) * [w, h]
        shadow = np.zeros((h, w), np.uint8)
        cv2.fillPoly(shadow, [pts.astype(np.int32)], 255)
        shadow_f = cv2.GaussianBlur(shadow, (0, 0), rng.uniform(2, 10)).astype(np.float32) / 255
        out *= (1 - shadow_f * rng.uniform(0.2, 0.5))[..., None]
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.2))
    if rng.random() < 0.3:
        length = int(rng.integers(3, 8))
        kernel = np.zeros((length, length), np.float32)
        angle = rng.uniform(0, np.pi)
        c = (length - 1) / 2
        cv2.line(kernel, (int(round(c - np.cos(angle) * c)), int(round(c - np.sin(angle) * c))),
                 (int(round(c + np.cos(angle) * c)), int(round(c + np.sin(angle) * c))), 1.0, 1)
        out = cv2.filter2D(out, -1, kernel / kernel.sum())
    if rng.random() < 0.6:
        noise = rng.normal(0, rng.uniform(1, 7), out.shape)
        out = np.clip(out + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        quality = int(rng.integers(35, 95))
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            out = decoded
    return out


FONT_SHARE_OF_ARTWORK = 0.5


class CardSampler:
    """Card-level canvases with known index positions."""

    def __init__(self, designs: Sequence[Any], render_card: Any, glyph_boxes: Any,
                 real_share: float | None = None) -> None:
        from hwsim.camera.artwork import FONT_DECK_PREFIX, ArtworkDeck

        self.designs = list(designs)
        # Canvases of real decks are drawn this share of the time (None: every design alike).
        self.real_share = real_share
        self._real = [d for d in self.designs if isinstance(d, ArtworkDeck)]
        self._drawn = [d for d in self.designs if not isinstance(d, ArtworkDeck)]
        # Font-drawn decks (tools/render_font_decks.py) and real decks share the artwork
        # draws half and half: 69 font decks would otherwise crowd out the 10 real ones.
        self._fonts = [d for d in self._real if d.name.startswith(FONT_DECK_PREFIX)]
        self._decks = [d for d in self._real if not d.name.startswith(FONT_DECK_PREFIX)]
        self.render_card = render_card
        self.glyph_boxes = glyph_boxes
        self._cache: dict[tuple[str, str, int], tuple[np.ndarray, IndexGlyphs]] = {}

    def card(self, code: str, design: Any, width: int) -> tuple[np.ndarray, IndexGlyphs]:
        key = (code, design.name, width)
        if key not in self._cache:
            image = self.render_card(code, design, width)
            rank_box, suit_box = self.glyph_boxes(design, width, code)[0]
            self._cache[key] = (image, locate_index(image, rank_box, suit_box))
        return self._cache[key]

    def canvas(self, rng: np.random.Generator) -> tuple[np.ndarray, list[Placed]]:
        pool = self.designs
        if self.real_share is not None and self._real and self._drawn:
            pool = self._real if rng.random() < self.real_share else self._drawn
            if pool is self._real and self._fonts and self._decks:
                pool = self._fonts if rng.random() < FONT_SHARE_OF_ARTWORK else self._decks
        design = pool[int(rng.integers(len(pool)))]
        width = int(rng.integers(14, 33)) * 5
        n_cards = int(rng.choice([1, 2, 2, 3, 3]))
        size = int(width * 3.2)
        canvas = _felt(rng, (size, size))
        angle = rng.uniform(0, 2 * np.pi)
        tilt = rng.uniform(0, 0.04)
        step = np.array([rng.uniform(0.16, 0.42), rng.uniform(-0.05, 0.2)])
        placed: list[Placed] = []
        first_centre = np.array([size / 2, size / 2]) - step * width * (n_cards - 1) / 2
        for k in range(n_cards):
            code = CARDS[int(rng.integers(len(CARDS)))]
            image, glyphs = self.card(code, design, width)
            h, w = image.shape[:2]
            c, s = np.cos(angle), np.sin(angle)
            offset = np.array([[c, -s], [s, c]]) @ (step * w * k)
            matrix = _card_homography(rng, w, h, first_centre + offset, angle + rng.normal(0, 0.03),
                                      tilt)
            warped = cv2.warpPerspective(image, matrix, (size, size), flags=cv2.INTER_AREA)
            alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
            canvas = (warped[:, :, :3] * alpha + canvas * (1 - alpha)).astype(np.uint8)
            mask = (warped[:, :, 3] > 127).astype(np.uint8)
            placed.append(Placed(code, matrix, mask, glyphs, (w, h)))
            for earlier in placed[:-1]:
                earlier.mask &= 1 - mask
        if rng.random() < 0.4:
            canvas = self._chips(rng, canvas, placed, width)
        return degrade(rng, canvas), placed

    @staticmethod
    def _chips(rng: np.random.Generator, canvas: np.ndarray, placed: list[Placed],
               width: int) -> np.ndarray:
        """One or two chips (a coloured disc, a white-striped rim) dropped on the canvas.

        Chips lie on top: what they hide of a card no longer counts as open.
        """
        size = canvas.shape[0]
        cover = np.zeros(canvas.shape[:2], np.uint8)
        for _ in range(int(rng.integers(1, 3))):
            radius = int(width * rng.uniform(0.22, 0.4))
            centre = (int(rng.integers(0, size)), int(rng.integers(0, size)))
            colour = tuple(int(c) for c in rng.integers(0, 256, 3))
            cv2.circle(canvas, centre, radius, colour, -1, cv2.LINE_AA)
            for k in range(int(rng.integers(0, 7))):
                angle = 2 * np.pi * k / 6 + rng.uniform(0, 0.3)
                edge = (int(centre[0] + 0.85 * radius * np.cos(angle)),
                        int(centre[1] + 0.85 * radius * np.sin(angle)))
                cv2.circle(canvas, edge, max(2, radius // 6), (235, 235, 235), -1, cv2.LINE_AA)
            cv2.circle(cover, centre, radius, 1, -1)
        for item in placed:
            item.mask &= 1 - cover
        return canvas
