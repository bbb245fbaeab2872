"""Train the card-index classifier shipped in `vision/models/`.

    python tools/train_vision.py [--seed 1] [--cache var/examples.npz]

(the defaults made the shipped models). Training data is generated here from
the renderer `hwsim.camera`, with the drawn TUNING designs and the real decks
of `hwsim.camera.artwork.TRAINING_DECKS` only (the held-out designs and decks
are never rendered by this script; it refuses them):

- card-level canvases: 1 to 3 cards of one design fanned on a felt, at a random
  size, rotation and slight perspective, with uneven light, glare, shadow, blur,
  noise and JPEG artefacts. The recognizer's own candidate finder runs on each
  canvas; a candidate pair whose blobs are a card's rank glyph and suit pip (the
  positions are known from the upright card) and at least 80% open is labelled
  with that card; pairs of an index 30-80% open are left out; all other pairs
  (pips of the card centre, artwork, reversed pairs, indices mostly covered by a
  later card) are labelled "not an index";
- full rendered scenes of the tuning designs (chips, face-down cards, fanned
  hands, arms): every candidate far from all open and partly open index points
  is "not an index". With `--scene-indices`, a candidate on an open index
  point, read in the direction the card faces (hands are turned at most 25
  degrees, so a top-left index reads downwards and a bottom-right one
  upwards), is that card too (tried; not better on the tuning designs, so the
  shipped model is trained without it).

The network is an MLP (one hidden ReLU layer, a rank head with 14 classes, the
last "not an index", and a suit head) trained with numpy (Adam, cross-entropy,
fixed seed) and written as ONNX for `cv2.dnn`. Feature standardisation is
folded into the first layer. Same seed and same renderer: same model.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim")]

from verifier_training import VERIFIER_CHANNELS, VERIFIER_HIDDEN, train_verifier  # noqa: E402

from foundation.cards import RANKS, SUITS  # noqa: E402
from vision.candidates import find_blobs  # noqa: E402
from vision.features import CROP_H, CROP_W, FEATURE_SIZE, GLANCE_START  # noqa: E402
from vision.onnx_writer import DenseLayer, mlp_to_onnx  # noqa: E402
from vision.recognizer import (  # noqa: E402
    MODEL_FILE,
    NOT_INDEX,
    candidate_features,
)

CARDS = [r + s for r in RANKS for s in SUITS]
NO_SUIT = -1  # suit label of "not an index" examples (the suit head ignores them)


@dataclass(frozen=True)
class IndexGlyphs:
    """Where, on the upright card image, the top-left index's glyphs are."""

    rank: list[tuple[float, float]]  # one centre per rank blob ("10" has two)
    suit: tuple[float, float]
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 of the whole index


def locate_index(card: np.ndarray, index_box: tuple[float, float, float, float]
                 ) -> IndexGlyphs | None:
    """Find the top-left index's rank and suit blobs on a clean upright card (BGRA).

    `index_box` is the design's index area (x0, y0, x1, y1) on the card: the
    suit pip is its lowest blob, the rank the blobs above the pip.
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
    x0, y0, x1, y1 = index_box
    in_index = ((centres[:, 0] > x0 - 1) & (centres[:, 0] < x1 + 1)
                & (centres[:, 1] > y0 - 1) & (centres[:, 1] < y1 + 1))
    idx = np.flatnonzero(in_index)
    if idx.size < 2:
        return None
    order = idx[np.argsort(centres[idx, 1])]
    suit = order[-1]
    suit_top = boxes[suit, 1]
    ranks = [k for k in order[:-1] if boxes[k, 1] + boxes[k, 3] <= suit_top + 2]
    if not ranks:
        return None
    return IndexGlyphs([(float(centres[k, 0]), float(centres[k, 1])) for k in ranks],
                       (float(centres[suit, 0]), float(centres[suit, 1])),
                       (float(x0), float(y0), float(x1), float(y1)))


@dataclass
class Placed:
    code: str
    matrix: np.ndarray  # 3x3 homography, card pixels -> canvas pixels
    mask: np.ndarray  # canvas-size coverage of this card
    glyphs: IndexGlyphs
    size: tuple[int, int]  # card w, h


def _warp_point(matrix: np.ndarray, x: float, y: float) -> np.ndarray:
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


class CardSampler:
    """Card-level canvases with known index positions."""

    def __init__(self, designs: Sequence[Any], render_card: Any, index_boxes: Any,
                 real_share: float | None = None) -> None:
        from hwsim.camera.artwork import ArtworkDeck

        self.designs = list(designs)
        # Canvases of real decks are drawn this share of the time (None: every design alike).
        self.real_share = real_share
        self._real = [d for d in self.designs if isinstance(d, ArtworkDeck)]
        self._drawn = [d for d in self.designs if not isinstance(d, ArtworkDeck)]
        self.render_card = render_card
        self.index_boxes = index_boxes
        self._cache: dict[tuple[str, str, int], tuple[np.ndarray, IndexGlyphs | None]] = {}

    def card(self, code: str, design: Any, width: int) -> tuple[np.ndarray, IndexGlyphs | None]:
        key = (code, design.name, width)
        if key not in self._cache:
            image = self.render_card(code, design, width)
            x0, y0, x1, y1 = self.index_boxes(design, width, code)[0]
            # A little room around the index, so a glyph the finder sees a pixel larger
            # still counts.
            pad = 0.15 * (y1 - y0)
            index_box = (x0 - pad, y0 - pad, x1 + pad, y1 + pad)
            self._cache[key] = (image, locate_index(image, index_box))
        return self._cache[key]

    def canvas(self, rng: np.random.Generator) -> tuple[np.ndarray, list[Placed]]:
        pool = self.designs
        if self.real_share is not None and self._real and self._drawn:
            pool = self._real if rng.random() < self.real_share else self._drawn
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
            if glyphs is not None:
                placed.append(Placed(code, matrix, mask, glyphs, (w, h)))
            for earlier in placed[:-1] if glyphs is not None else placed:
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


def index_visibility(item: Placed, corner: str) -> float:
    """Fraction of the index box still uncovered (its card's own mask after later cards)."""
    w, h = item.size
    x0, y0, x1, y1 = item.glyphs.box
    if corner == "bottom":
        x0, y0, x1, y1 = w - x1, h - y1, w - x0, h - y0
    pts = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32).reshape(-1, 1, 2)
    quad = cv2.perspectiveTransform(pts, item.matrix).reshape(-1, 2)
    poly = np.zeros_like(item.mask)
    cv2.fillPoly(poly, [np.round(quad).astype(np.int32)], 1)
    area = int(poly.sum())
    if area == 0:
        return 0.0
    return float((poly & item.mask).sum()) / area


def label_candidates(first: np.ndarray, second: np.ndarray,
                     placed: list[Placed]) -> tuple[np.ndarray, np.ndarray]:
    """Rank and suit labels of each pair: a card's index, "not an index", or -2 (unsure)."""
    rank = np.full(first.shape[0], NOT_INDEX, np.int64)
    suit = np.full(first.shape[0], NO_SUIT, np.int64)
    for item in placed:
        w, h = item.size
        glyph_size = item.glyphs.box[3] - item.glyphs.box[1]
        for corner in ("top", "bottom"):
            points = [*item.glyphs.rank, item.glyphs.suit]
            if corner == "bottom":
                points = [(w - x, h - y) for x, y in points]
            mapped = [_warp_point(item.matrix, x, y) for x, y in points]
            scale = float(np.linalg.norm(mapped[-1] - mapped[0]))
            tolerance = max(0.35 * scale, 0.1 * glyph_size, 2.0)
            near_suit = np.hypot(*(second - mapped[-1]).T) < tolerance
            near_rank = np.zeros_like(near_suit)
            for rank_point in mapped[:-1]:
                near_rank |= np.hypot(*(first - rank_point).T) < tolerance
            hits = near_rank & near_suit
            if not hits.any():
                continue
            # As the renderer's truth: 80% open must be read, 30-80% may be.
            visible = index_visibility(item, corner)
            if visible >= 0.8:
                rank[hits] = RANKS.index(item.code[0])
                suit[hits] = SUITS.index(item.code[1])
            elif visible >= 0.3:
                rank[hits] = -2
    return rank, suit


Examples = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # features, rank, suit, crops


def card_level_data(rng: np.random.Generator, sampler: CardSampler, samples: int) -> Examples:
    feats, ranks, suits, crops = [], [], [], []
    for _ in range(samples):
        canvas, placed = sampler.canvas(rng)
        features, rank_at, suit_at, crop = candidate_features(canvas)
        if features.shape[0] == 0:
            continue
        rank, suit = label_candidates(rank_at, suit_at, placed)
        keep = rank != -2
        positives = rank[keep] != NOT_INDEX
        # Keep every positive and a share of the (many) negatives.
        chosen = np.flatnonzero(keep)[positives | (rng.random(positives.size) < 0.5)]
        if chosen.size == 0:
            continue
        feats.append(features[chosen])
        ranks.append(rank[chosen])
        suits.append(suit[chosen])
        crops.append(crop[chosen])
    return (np.concatenate(feats), np.concatenate(ranks), np.concatenate(suits),
            np.concatenate(crops))


def random_scenes(n: int, seed: int, designs: Sequence[Any], render_scene: Any,
                  scene_spec: Any) -> Iterator[Any]:
    """Rendered tables of the given designs with every variation at random strengths."""
    rng = np.random.default_rng(seed)
    for k in range(n):
        boxes = {f"box{b + 1}": [CARDS[int(i)] for i in rng.integers(0, 52, rng.integers(0, 5))]
                 for b in range(int(rng.integers(3, 8)))}
        spec = scene_spec(
            boxes=boxes, dealer=[CARDS[int(i)] for i in rng.integers(0, 52, rng.integers(1, 4))],
            card_width=int(rng.integers(85, 141)), hand_rotation=float(rng.uniform(0, 40)),
            tilt=float(rng.uniform(0, 1)), uneven_light=float(rng.uniform(0, 1)),
            glare=int(rng.integers(0, 3)), shadows=int(rng.integers(0, 3)),
            motion_blur=float(rng.choice([0, 0, 2, 4])), noise=float(rng.uniform(0, 6)),
            jpeg_quality=int(rng.integers(40, 95)), chips=int(rng.integers(2, 12)),
            face_down=int(rng.integers(0, 4)))
        yield render_scene(spec, designs[k % len(designs)], int(rng.integers(1 << 30)))


UPRIGHT_COS = math.cos(math.radians(50))


def scene_examples(scenes: Iterator[Any], with_indices: bool) -> Examples:
    """Examples from rendered scenes: indices read the right way, and "not an index".

    The renderer turns hands at most 25 degrees (and cards 4 more), so a card's
    top-left index reads downwards in the frame and its bottom-right index (the
    second of a card's two points) upwards: a candidate on a truth point in that
    direction is that card; the other way round, or on a partly open index, it is
    left out. Candidates far from every open or partly open index are negatives.
    Without `with_indices` only the negatives are taken.
    """
    feats, ranks, suits, crops = [], [], [], []
    for scene in scenes:
        features, rank_at, suit_at, crop = candidate_features(scene.image)
        if features.shape[0] == 0:
            continue
        middle = (rank_at + suit_at) / 2
        down = suit_at - rank_at
        scale = np.hypot(down[:, 0], down[:, 1])
        up_cos = down[:, 1] / np.maximum(scale, 1e-6)
        rank = np.full(features.shape[0], -2, np.int64)
        suit = np.full(features.shape[0], NO_SUIT, np.int64)
        near_any = np.zeros(features.shape[0], bool)
        for truth in scene.truth:
            points = [(p, k) for k, p in enumerate(truth.index_points)]
            points += [(p, -1) for p in getattr(truth, "partial_points", [])]
            for (x, y), corner in points:
                distance = np.hypot(middle[:, 0] - x, middle[:, 1] - y)
                near_any |= distance <= 1.5 * scale
                if corner < 0 or not with_indices:
                    continue
                close = distance <= 0.12 * scene.card_width
                facing = up_cos >= UPRIGHT_COS if corner == 0 else up_cos <= -UPRIGHT_COS
                hits = close & facing & (rank == -2)
                rank[hits] = RANKS.index(truth.card[0])
                suit[hits] = SUITS.index(truth.card[1])
        rank[~near_any] = NOT_INDEX
        keep = rank != -2
        feats.append(features[keep])
        ranks.append(rank[keep])
        suits.append(suit[keep])
        crops.append(crop[keep])
    if not feats:
        return (np.zeros((0, FEATURE_SIZE), np.float32), np.zeros(0, np.int64),
                np.zeros(0, np.int64), np.zeros((0, CROP_H, CROP_W, 3), np.uint8))
    return (np.concatenate(feats), np.concatenate(ranks), np.concatenate(suits),
            np.concatenate(crops))


class MLP:
    """One hidden ReLU layer and two softmax heads, trained with Adam."""

    def __init__(self, rng: np.random.Generator, inputs: int, hidden: int,
                 rank_classes: int = len(RANKS) + 1, suit_classes: int = len(SUITS)) -> None:
        def init(n_in: int, n_out: int) -> np.ndarray:
            return (rng.normal(0, np.sqrt(2.0 / n_in), (n_in, n_out))).astype(np.float32)

        self.params: dict[str, np.ndarray] = {
            "w1": init(inputs, hidden), "b1": np.zeros(hidden, np.float32),
            "wr": init(hidden, rank_classes), "br": np.zeros(rank_classes, np.float32),
            "ws": init(hidden, suit_classes), "bs": np.zeros(suit_classes, np.float32),
        }
        self._m = {k: np.zeros_like(v) for k, v in self.params.items()}
        self._v = {k: np.zeros_like(v) for k, v in self.params.items()}
        self._t = 0

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        p = self.params
        hidden = np.maximum(x @ p["w1"] + p["b1"], 0)
        return hidden, hidden @ p["wr"] + p["br"], hidden @ p["ws"] + p["bs"]

    def step(self, x: np.ndarray, rank: np.ndarray, suit: np.ndarray, lr: float,
             weight_decay: float = 1e-4) -> float:
        p = self.params
        hidden, rank_logits, suit_logits = self.forward(x)
        n = x.shape[0]
        rank_prob = _softmax(rank_logits)
        loss = -np.log(rank_prob[np.arange(n), rank] + 1e-9).mean()
        d_rank = rank_prob
        d_rank[np.arange(n), rank] -= 1
        d_rank /= n
        has_suit = suit >= 0
        suit_prob = _softmax(suit_logits)
        d_suit = np.zeros_like(suit_prob)
        if has_suit.any():
            idx = np.flatnonzero(has_suit)
            loss += -np.log(suit_prob[idx, suit[idx]] + 1e-9).mean()
            d_suit[idx] = suit_prob[idx]
            d_suit[idx, suit[idx]] -= 1
            d_suit /= max(idx.size, 1)
        grads = {
            "wr": hidden.T @ d_rank, "br": d_rank.sum(0),
            "ws": hidden.T @ d_suit, "bs": d_suit.sum(0),
        }
        d_hidden = (d_rank @ p["wr"].T + d_suit @ p["ws"].T) * (hidden > 0)
        grads["w1"] = x.T @ d_hidden
        grads["b1"] = d_hidden.sum(0)
        self._t += 1
        for key, grad in grads.items():
            if key.startswith("w"):
                grad = grad + weight_decay * p[key]
            self._m[key] = 0.9 * self._m[key] + 0.1 * grad
            self._v[key] = 0.999 * self._v[key] + 0.001 * grad * grad
            m_hat = self._m[key] / (1 - 0.9 ** self._t)
            v_hat = self._v[key] / (1 - 0.999 ** self._t)
            p[key] -= (lr * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)
        return float(loss)


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    result: np.ndarray = exp / exp.sum(axis=1, keepdims=True)
    return result


def train(features: np.ndarray, rank: np.ndarray, suit: np.ndarray, seed: int, epochs: int,
          hidden: int, rank_classes: int = len(RANKS) + 1) -> tuple[MLP, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    mean = features.mean(axis=0)
    std = features.std(axis=0) + 1e-3
    x = ((features - mean) / std).astype(np.float32)
    model = MLP(rng, x.shape[1], hidden, rank_classes)
    batch = 256
    for epoch in range(epochs):
        order = rng.permutation(x.shape[0])
        lr = 2e-3 * (0.5 * (1 + np.cos(np.pi * epoch / epochs))) + 5e-5
        losses = []
        for start in range(0, order.size, batch):
            chunk = order[start:start + batch]
            # Feature dropout: some robustness to details a new design draws differently.
            noisy = x[chunk] * (rng.random(x[chunk].shape) > 0.1) / 0.9
            losses.append(model.step(noisy.astype(np.float32), rank[chunk], suit[chunk], lr))
        if epoch % 5 == 0 or epoch == epochs - 1:
            print(f"epoch {epoch + 1}/{epochs}: loss {np.mean(losses):.4f}", flush=True)
    return model, mean, std


def export(model: MLP, mean: np.ndarray, std: np.ndarray, path: Path,
           filter_head: bool = False) -> None:
    p = model.params
    w1 = (p["w1"] / std[:, None]).astype(np.float32)
    b1 = (p["b1"] - (mean / std) @ p["w1"]).astype(np.float32)
    heads = ({"index": DenseLayer(p["wr"], p["br"])} if filter_head
             else {"rank": DenseLayer(p["wr"], p["br"]), "suit": DenseLayer(p["ws"], p["bs"])})
    path.write_bytes(mlp_to_onnx([DenseLayer(w1, b1)], heads))


# The filter's threshold lets 99.8% of the training indices through, but never goes
# under FILTER_FLOOR: with the finder's 632 pairs a frame, the 99.8% point fell to
# 0.0005 and let 40% of the other pairs through to the costlier look; 0.03 lost no
# index of 40 scenes of the training decks and halved that share.
FILTER_FLOOR = 0.03


def filter_threshold(index_scores: np.ndarray) -> float:
    """The filter score under which a pair is dropped, from the training indices' scores."""
    return float(min(0.1, max(FILTER_FLOOR, np.quantile(index_scores, 0.002))))


def train_filter(features: np.ndarray, rank: np.ndarray, seed: int,
                 path: Path) -> float:
    """The quick first look: index or not from the glance features; returns its threshold.

    The threshold lets 99.8% of the training indices through (at most 0.1), so
    the filter costs almost no recall and spares most pairs the HOG.
    """
    glance = features[:, GLANCE_START:]
    is_index = (rank != NOT_INDEX).astype(np.int64)
    model, mean, std = train(glance, is_index, np.full(is_index.size, NO_SUIT), seed + 1,
                             epochs=15, hidden=32, rank_classes=2)
    _, logits, _ = model.forward(((glance - mean) / std).astype(np.float32))
    score = _softmax(logits)[:, 1]
    threshold = filter_threshold(score[is_index == 1])
    passed = score >= threshold
    print(f"filter: threshold {threshold:.4f} keeps {passed[is_index == 1].mean():.4f} of the "
          f"indices and {passed[is_index == 0].mean():.4f} of the rest")
    export(model, mean, std, path, filter_head=True)
    return threshold


def reuse_mlp(features: np.ndarray, rank: np.ndarray, classifier: Path,
              filter_path: Path) -> tuple[float, np.ndarray]:
    """The filter's threshold and the classifier's "not an index" probabilities, from the
    networks an earlier run trained on the same examples (`--keep-mlp`)."""
    from vision.networks import Network

    if not classifier.exists() or not filter_path.exists():
        raise SystemExit(f"--keep-mlp needs {classifier} and {filter_path} from an earlier run")
    net, filter_net = Network(classifier, "opencv"), Network(filter_path, "opencv")
    is_index = rank != NOT_INDEX
    not_index, score = [], []
    for start in range(0, features.shape[0], 8192):
        chunk = features[start:start + 8192]
        not_index.append(_softmax(net.run(chunk)["rank"])[:, NOT_INDEX])
        score.append(_softmax(filter_net.run(chunk[:, GLANCE_START:])["index"])[:, 1])
    scores = np.concatenate(score)
    threshold = filter_threshold(scores[is_index])
    print(f"kept the classifier and filter of {classifier.parent}; filter threshold "
          f"{threshold:.4f}", flush=True)
    return threshold, np.concatenate(not_index)


CHUNK = 250  # card-level canvases per task; scenes per task are a tenth of it


Task = tuple[str, int, int, int, tuple[str, ...], bool, float]


def _example_task(task: Task) -> Examples:
    """One chunk of examples; a chunk depends only on its own numbers (any worker count)."""
    from hwsim.camera.dataset import generate_scenes, resolve_designs
    from hwsim.camera.faces import index_boxes, render_card
    from hwsim.camera.render import SceneSpec, render_scene

    kind, chunk, count, seed, names, scene_indices, real_share = task
    cv2.setNumThreads(1)
    designs = resolve_designs(list(names))
    if kind == "cards":
        sampler = CardSampler(designs, render_card, index_boxes, real_share)
        return card_level_data(np.random.default_rng([seed, chunk]), sampler, count)
    if kind == "benchmark-like":
        scenes = generate_scenes(count, seed + 1000, list(names), start=chunk * count)
    else:
        scenes = random_scenes(count, seed + 2000 + chunk, designs, render_scene, SceneSpec)
    return scene_examples(scenes, scene_indices)


def make_examples(args: argparse.Namespace, designs: Sequence[Any],
                  names: Sequence[str]) -> Examples:
    """Render the training examples (card-level canvases, then scenes) on `--jobs` processes."""
    from multiprocessing import get_context

    started = time.perf_counter()
    key = tuple(names)
    tasks: list[Task] = []
    for chunk, first in enumerate(range(0, args.samples, CHUNK)):
        tasks.append(("cards", chunk, min(CHUNK, args.samples - first), args.seed, key,
                      args.scene_indices, args.real_share))
    # Half the scenes as the benchmark draws them (other seeds), half with harsher spoiling.
    per_task = max(1, CHUNK // 10)
    for kind, total in (("benchmark-like", args.scenes // 2),
                        ("harsh", args.scenes - args.scenes // 2)):
        for chunk in range(math.ceil(total / per_task)):
            tasks.append((kind, chunk, min(per_task, total - chunk * per_task), args.seed, key,
                          args.scene_indices, args.real_share))
    with get_context("spawn").Pool(args.jobs) as pool:
        parts = []
        for done, part in enumerate(pool.imap(_example_task, tasks), start=1):
            parts.append(part)
            if done % 10 == 0 or done == len(tasks):
                print(f"examples: {done}/{len(tasks)} tasks "
                      f"({time.perf_counter() - started:.0f} s)", flush=True)
    examples = tuple(np.concatenate([p[k] for p in parts]) for k in range(4))
    print(f"{examples[0].shape[0]} examples, {(examples[1] != NOT_INDEX).sum()} indices",
          flush=True)
    return (examples[0], examples[1], examples[2], examples[3])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--samples", type=int, default=10000, help="card-level canvases")
    parser.add_argument("--scenes", type=int, default=400,
                        help="rendered scenes of the tuning designs")
    parser.add_argument("--scene-indices", action="store_true",
                        help="take index examples from the scenes too, not only negatives")
    parser.add_argument("--real-share", type=float, default=0.65,
                        help="share of the card-level canvases drawn from real decks, when "
                             "both drawn designs and real decks are trained on")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--verifier-channels", type=int, nargs=3, default=VERIFIER_CHANNELS,
                        help="channels of the verifier's three convolutions")
    parser.add_argument("--verifier-hidden", type=int, default=VERIFIER_HIDDEN,
                        help="units of the verifier's dense layer")
    parser.add_argument("--verifier-epochs", type=int, default=4,
                        help="epochs of the convolutional verifier (0: none)")
    parser.add_argument("--verify-below", type=float, default=0.9,
                        help="the verifier reads every pair the MLP gives less than this "
                             "probability of not being an index")
    parser.add_argument("--designs", nargs="+", default=["tuning", "real-training"],
                        help="designs and decks to train on, or the groups tuning and "
                             "real-training (default: both groups)")
    parser.add_argument("--keep-mlp", action="store_true",
                        help="keep the classifier and filter already in --out's folder "
                             "(trained on the same --cache) and train the verifier only")
    parser.add_argument("--verifier-easy", type=float, default=0.15,
                        help="share of the pairs the classifier rejects outright that the "
                             "verifier also learns on (it never sees them at run time)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="processes rendering examples (the result does not depend on it)")
    parser.add_argument("--out", type=Path, default=MODEL_FILE)
    parser.add_argument("--cache", type=Path, default=None,
                        help="keep the generated examples in this .npz and reuse them")
    args = parser.parse_args(argv)

    # The renderer is only needed here, never by the recognizer at run time.
    from hwsim.camera.artwork import HELD_OUT_DECKS, corpus_folder
    from hwsim.camera.dataset import resolve_designs
    from hwsim.camera.deck_corpus import ensure_corpus
    from hwsim.camera.designs import HELD_OUT_DESIGNS

    held = set(HELD_OUT_DESIGNS) | set(HELD_OUT_DECKS)
    if set(args.designs) & (held | {"held-out", "real-held-out", "all"}):
        raise SystemExit("held-out designs are never trained on; choose training designs only")
    if "real-training" in args.designs or any("-" in d for d in args.designs):
        ensure_corpus(corpus_folder())
    designs = resolve_designs(args.designs)
    names = [d.name for d in designs]
    assert not held & set(names), "a held-out design is listed for training"
    print(f"training on designs {names}; held out (never rendered here): {sorted(held)}")

    if args.cache is not None and args.cache.exists():
        cached = np.load(args.cache)
        features, rank, suit, crops = (cached["features"], cached["rank"], cached["suit"],
                                       cached["crops"])
        print(f"examples from {args.cache}: {features.shape[0]}")
    else:
        features, rank, suit, crops = make_examples(args, designs, names)
        if args.cache is not None:
            np.savez(args.cache, features=features, rank=rank, suit=suit, crops=crops)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    filter_path = args.out.with_name(args.out.stem.replace("classifier", "filter") + ".onnx")
    if filter_path == args.out:
        filter_path = args.out.with_name(args.out.stem + "_filter.onnx")
    if args.keep_mlp:
        threshold, mlp_not = reuse_mlp(features, rank, args.out, filter_path)
    else:
        model, mean, std = train(features, rank, suit, args.seed, args.epochs, args.hidden)
        _, rank_logits, suit_logits = model.forward(((features - mean) / std).astype(np.float32))
        rank_ok = (rank_logits.argmax(1) == rank).mean()
        has_suit = suit >= 0
        suit_ok = (suit_logits.argmax(1)[has_suit] == suit[has_suit]).mean()
        print(f"training accuracy: rank/not-index {rank_ok:.4f}, suit {suit_ok:.4f}")
        export(model, mean, std, args.out)
        threshold = train_filter(features, rank, args.seed, filter_path)
        mlp_not = _softmax(rank_logits)[:, NOT_INDEX]
    info: dict[str, Any] = {
        "feature_size": FEATURE_SIZE, "ranks": RANKS + "-", "suits": SUITS,
        "min_confidence": 0.5, "filter_model": filter_path.name,
        "filter_threshold": round(threshold, 6), "seed": args.seed, "samples": args.samples,
        "scenes": args.scenes, "real_share": args.real_share, "epochs": args.epochs,
        "hidden": args.hidden, "designs": names}
    if args.verifier_epochs > 0:
        verifier_path = args.out.with_name(
            args.out.stem.replace("classifier", "verifier") + ".onnx")
        if verifier_path == args.out:
            verifier_path = args.out.with_name(args.out.stem + "_verifier.onnx")
        is_index = rank != NOT_INDEX
        verify_below = args.verify_below
        looked = mlp_not < verify_below
        # The verifier reads only what the classifier may take: it learns on every index,
        # every pair the classifier would hand it, and a share of the easy rest.
        easy = np.random.default_rng(args.seed + 3).random(rank.size) < args.verifier_easy
        chosen = np.flatnonzero(is_index | looked | easy)
        print(f"verifier: {chosen.size} examples ({is_index.sum()} indices, "
              f"{(looked & ~is_index).sum()} pairs the classifier hands it)", flush=True)
        probabilities = train_verifier(crops[chosen], rank[chosen], suit[chosen], args.seed + 2,
                                       args.verifier_epochs, verifier_path,
                                       tuple(args.verifier_channels), args.verifier_hidden)
        v_rank, v_suit = probabilities(crops[chosen])
        ok = ((v_rank.argmax(1) == rank[chosen])
              & ((v_suit.argmax(1) == suit[chosen]) | ~is_index[chosen]))
        print(f"verifier: looks below {verify_below:.4f} (at {looked[is_index].mean():.4f} of "
              f"the indices, {looked[~is_index].mean():.4f} of the rest); training accuracy "
              f"{ok[is_index[chosen]].mean():.4f} of the indices, "
              f"{ok[~is_index[chosen]].mean():.4f} of the rest")
        info.update({"verifier_model": verifier_path.name,
                     "verify_below": round(verify_below, 6), "combine": "mean",
                     "verifier_epochs": args.verifier_epochs,
                     "verifier_channels": list(args.verifier_channels),
                     "verifier_hidden": args.verifier_hidden,
                     "verifier_easy": args.verifier_easy})
    info_path = args.out.with_suffix(".json")
    info_path.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB) and {info_path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
