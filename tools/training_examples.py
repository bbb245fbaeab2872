"""Training examples for `tools/train_vision.py`: candidate pairs found by the
recognizer's own candidate finder, labelled, with their features and colour crops.

From card-level canvases (`card_canvases`): a pair that is a card's rank glyph
and suit pip at least 80% open is that card, one 30-80% open is left out (with
`--cut-negatives V`, one 30% to V open is "not an index" instead), every other
pair is "not an index". From rendered scenes: candidates far from every
open or partly open index are "not an index" (and, with `--scene-indices`, those
on an open index, read the way the card faces, are that card). `make_examples`
renders them on several processes; the result does not depend on their number.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim")]

from card_canvases import CARDS, CardSampler, Placed, warp_point  # noqa: E402
from verifier_training import NO_SUIT  # noqa: E402

from foundation.cards import RANKS, SUITS  # noqa: E402
from vision.features import CROP_H, CROP_W, FEATURE_SIZE  # noqa: E402
from vision.recognizer import NOT_INDEX, candidate_features  # noqa: E402


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


# Labels besides a rank: left out (neither an index nor "not an index"), and a pair
# on an index cut by the cards or chips over it (see `label_candidates`).
UNSURE = -2
CUT = -3


def label_candidates(first: np.ndarray, second: np.ndarray, placed: list[Placed],
                     cut_below: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Rank and suit labels of each pair: a card's index, "not an index", `UNSURE` or `CUT`.

    A pair on an index 30% to `cut_below` open (0: none) is `CUT`: no longer
    the card's whole index, the glyphs cut by what lies over them, which the
    caller may take as "not an index" (`card_level_data`).

    A pair is the card's index when its first blob lies on a rank glyph and its
    second on the suit pip (within `SUIT_EXACT` index scales of the pip's
    centre). A second blob further off but still near the pip (a lobe of a club
    the finder split, a pip broken by blur) makes a crop of another scale and
    turn: such a pair is left out, neither an index nor "not an index".
    """
    rank = np.full(first.shape[0], NOT_INDEX, np.int64)
    suit = np.full(first.shape[0], NO_SUIT, np.int64)
    for item in placed:
        w, h = item.size
        glyph_size = item.glyphs.box[3] - item.glyphs.box[1]
        for corner in ("top", "bottom"):
            points = [*item.glyphs.rank, item.glyphs.suit]
            if corner == "bottom":
                points = [(w - x, h - y) for x, y in points]
            mapped = [warp_point(item.matrix, x, y) for x, y in points]
            scale = float(np.linalg.norm(mapped[-1] - mapped[0]))
            tolerance = max(0.35 * scale, 0.1 * glyph_size, 2.0)
            suit_off = np.hypot(*(second - mapped[-1]).T)
            # A big pip split by the finder has lobes up to half an index scale off its
            # centre: a pair ending there is near the pip too.
            near_suit = suit_off < max(tolerance, SUIT_NEAR * scale)
            near_rank = np.zeros_like(near_suit)
            for rank_point in mapped[:-1]:
                near_rank |= np.hypot(*(first - rank_point).T) < tolerance
            if item.glyphs.rank_box is not None:
                near_rank |= on_rank_glyph(item, corner, first)
            hits = near_rank & near_suit
            if not hits.any():
                continue
            exact = hits & (suit_off <= max(SUIT_EXACT * scale, 1.5))
            # As the renderer's truth: 80% open must be read, 30-80% may be.
            visible = index_visibility(item, corner)
            rank[hits] = UNSURE
            if visible >= 0.8:
                rank[exact] = RANKS.index(item.code[0])
                suit[exact] = SUITS.index(item.code[1])
            elif visible < 0.3:
                rank[hits] = NOT_INDEX
            elif visible < cut_below:
                rank[hits] = CUT
    return rank, suit


def on_rank_glyph(item: Placed, corner: str, points: np.ndarray) -> np.ndarray:
    """Which canvas points lie on the card's rank glyph box (of that corner), or within a
    tenth of the index scale of it."""
    assert item.glyphs.rank_box is not None
    w, h = item.size
    x0, y0, x1, y1 = item.glyphs.rank_box
    if corner == "bottom":
        x0, y0, x1, y1 = w - x1, h - y1, w - x0, h - y0
    rank_x, rank_y = item.glyphs.rank[0]
    suit_x, suit_y = item.glyphs.suit
    margin = 0.1 * float(np.hypot(suit_x - rank_x, suit_y - rank_y))
    on_card = cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float64),
                                       np.linalg.inv(item.matrix)).reshape(-1, 2)
    inside: np.ndarray = ((on_card[:, 0] >= x0 - margin) & (on_card[:, 0] <= x1 + margin)
                          & (on_card[:, 1] >= y0 - margin) & (on_card[:, 1] <= y1 + margin))
    return inside


# A pair's second blob within this many index scales of the suit pip's centre is the pip.
SUIT_EXACT = 0.18
SUIT_NEAR = 0.6


Examples = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # features, rank, suit, crops


def card_level_data(rng: np.random.Generator, sampler: CardSampler, samples: int,
                    cut_below: float = 0.0) -> Examples:
    """Examples of `samples` card-level canvases; with `cut_below` > 0 every pair on an
    index 30% to `cut_below` open as "not an index" too (`label_candidates`)."""
    feats, ranks, suits, crops = [], [], [], []
    for _ in range(samples):
        canvas, placed = sampler.canvas(rng)
        features, rank_at, suit_at, crop = candidate_features(canvas)
        if features.shape[0] == 0:
            continue
        rank, suit = label_candidates(rank_at, suit_at, placed, cut_below)
        keep = rank >= 0
        positives = rank[keep] != NOT_INDEX
        # Keep every positive and a share of the (many) negatives; the cut pairs are
        # added after the draw, so that the canvases drawn after do not change.
        chosen = np.flatnonzero(keep)[positives | (rng.random(positives.size) < 0.5)]
        chosen = np.concatenate([chosen, np.flatnonzero(rank == CUT)])
        rank[rank == CUT] = NOT_INDEX
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
        rank = np.full(features.shape[0], UNSURE, np.int64)
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
                hits = close & facing & (rank == UNSURE)
                rank[hits] = RANKS.index(truth.card[0])
                suit[hits] = SUITS.index(truth.card[1])
        rank[~near_any] = NOT_INDEX
        keep = rank != UNSURE
        feats.append(features[keep])
        ranks.append(rank[keep])
        suits.append(suit[keep])
        crops.append(crop[keep])
    if not feats:
        return (np.zeros((0, FEATURE_SIZE), np.float32), np.zeros(0, np.int64),
                np.zeros(0, np.int64), np.zeros((0, CROP_H, CROP_W, 3), np.uint8))
    return (np.concatenate(feats), np.concatenate(ranks), np.concatenate(suits),
            np.concatenate(crops))


CHUNK = 250  # card-level canvases per task; scenes per task are a tenth of it


Task = tuple[str, int, int, int, tuple[str, ...], bool, float, float]


def _example_task(task: Task) -> Examples:
    """One chunk of examples; a chunk depends only on its own numbers (any worker count)."""
    from hwsim.camera.dataset import generate_scenes, resolve_designs
    from hwsim.camera.faces import glyph_boxes, render_card
    from hwsim.camera.render import SceneSpec, render_scene

    kind, chunk, count, seed, names, scene_indices, real_share, cut_below = task
    cv2.setNumThreads(1)
    designs = resolve_designs(list(names))
    if kind == "cards":
        sampler = CardSampler(designs, render_card, glyph_boxes, real_share)
        return card_level_data(np.random.default_rng([seed, chunk]), sampler, count, cut_below)
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
                      args.scene_indices, args.real_share, args.cut_negatives))
    # Half the scenes as the benchmark draws them (other seeds), half with harsher spoiling.
    per_task = max(1, CHUNK // 10)
    for kind, total in (("benchmark-like", args.scenes // 2),
                        ("harsh", args.scenes - args.scenes // 2)):
        for chunk in range(math.ceil(total / per_task)):
            tasks.append((kind, chunk, min(per_task, total - chunk * per_task), args.seed, key,
                          args.scene_indices, args.real_share, args.cut_negatives))
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
