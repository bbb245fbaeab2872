"""Train a verifier that reads a finer cut of each candidate index (48x72 pixels for the
same extent as the recognizer's 24x36 crop) from scenes of the training designs.

A network that keeps the finer maps through its layers reads glyph shapes it
never saw with fewer errors (docs/vision-measurements.md, "A verifier reading a
crop twice as fine"). This script makes one for the second look's views
(`view_crops` in the settings names its crop size):

    python tools/train_fine_verifier.py --cache var/fine-examples.npz

Scenes are rendered as the benchmarks render them (other seeds), half of them
of the ten real training decks, half of the drawn and font-drawn designs the
shipped networks were trained on (never a held-out one). The pairs are the ones
the recognizer's verifier is given on each scene (the finder's and the learnt
proposer's pairs that the classifier does not rule out), labelled by the
renderer's truth: a pair whose first point lies on an open index's rank glyph
and second on its suit pip is that card, one near an index otherwise is left
out, the rest are "not an index"; of the pairs the classifier rules out, up to
`--negatives` for each open index of the scene are taken too. Every open index
is also cut exactly at its true rank and pip. `--steps` is the number of epochs.
Same seed, corpus, renderer and PyTorch build: the same network.
"""

from __future__ import annotations

import json
import sys
import time
import zipfile
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim"), str(ROOT / "tools")]

from training_cli import parse_counts, shipped_design_names, training_parser  # noqa: E402
from verifier_training import NO_SUIT, train_verifier  # noqa: E402

from foundation.cards import RANKS, SUITS  # noqa: E402
from vision.features import CropSize, cut_all  # noqa: E402
from vision.recognizer import NOT_INDEX  # noqa: E402

SCENE_SEED_OFFSET = 11000  # these scenes are none of the benchmarks' or other networks'
RANK_NEAR = 0.3  # a pair's first point within this many index scales of the rank's centre
PIP_NEAR = 0.2  # ... and its second within this many of the pip's
LEFT_OUT_NEAR = 1.5  # a pair whose midpoint lies this near an index is not a negative
UNSURE = -2
Examples = tuple[np.ndarray, np.ndarray, np.ndarray]  # rank, suit labels; colour crops


def label_pairs(first: np.ndarray, second: np.ndarray, truth: Sequence[Any]
                ) -> tuple[np.ndarray, np.ndarray]:
    """Rank and suit labels of each pair (rank glyph, suit pip): a card, "not an index"
    (`NOT_INDEX`, suit `NO_SUIT`) or left out (`UNSURE`)."""
    rank = np.full(first.shape[0], NOT_INDEX, np.int64)
    suit = np.full(first.shape[0], NO_SUIT, np.int64)
    middle = (first + second) / 2
    down = second - first
    span = np.hypot(down[:, 0], down[:, 1])
    near = np.zeros(first.shape[0], bool)
    hit = np.zeros(first.shape[0], bool)
    for card in truth:
        for (x, y) in card.partial_points:
            near |= np.hypot(middle[:, 0] - x, middle[:, 1] - y) <= LEFT_OUT_NEAR * span
        for rank_xy, pip_xy in card.index_glyphs:
            r, p = np.asarray(rank_xy, np.float32), np.asarray(pip_xy, np.float32)
            scale = float(np.hypot(*(p - r)))
            centre = (r + p) / 2
            near |= np.hypot(*(middle - centre).T) <= LEFT_OUT_NEAR * max(scale, 1.0)
            on = ((np.hypot(*(first - r).T) <= RANK_NEAR * scale)
                  & (np.hypot(*(second - p).T) <= PIP_NEAR * scale) & ~hit)
            rank[on] = RANKS.index(card.card[0])
            suit[on] = SUITS.index(card.card[1])
            hit |= on
    rank[near & ~hit] = UNSURE
    return rank, suit


Pairs = tuple[np.ndarray, np.ndarray]  # rank-glyph and suit-pip centres, a row a pair


def verifier_pairs(recognizer: Any, frame: np.ndarray) -> tuple[Pairs, Pairs]:
    """The (rank glyph, suit pip) pairs the recognizer's verifier is given on `frame`, and
    those its filter passes but its classifier rules out."""
    import vision.recognizer as module

    recorded: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    original = module.candidate_features

    def recording(image: np.ndarray, worth: Any = None, pairs: Any = None) -> Any:
        rows, rank_at, suit_at, crops = original(image, worth, pairs)
        if rows.shape[0]:
            rank_p, _ = recognizer.classify(rows)
            recorded.append((rank_at, suit_at, rank_p[:, NOT_INDEX] < recognizer.verify_below))
        return rows, rank_at, suit_at, crops

    module.candidate_features = recording  # type: ignore[assignment]
    try:
        recognizer.detect_all(frame)
    finally:
        module.candidate_features = original
    if not recorded:
        none = np.zeros((0, 2), np.float32)
        return (none, none), (none, none)
    first, second, looked = (np.concatenate([r[k] for r in recorded]) for k in range(3))
    # The second chances read some pairs again: each pair once.
    _, once = np.unique(np.round(np.hstack([first, second]) * 2), axis=0, return_index=True)
    once.sort()
    first, second, looked = first[once], second[once], looked[once]
    return (first[looked], second[looked]), (first[~looked], second[~looked])


def render_part(task: tuple[int, int, int, list[str], CropSize, float]) -> Examples:
    """The examples of scenes start .. start+n-1 of the seeded series."""
    seed, start, n, designs, size, negatives = task
    import cv2
    from hwsim.camera.dataset import generate_scenes

    from vision.recognizer import Recognizer

    cv2.setNumThreads(1)
    recognizer = Recognizer()
    ranks, suits, crops = [], [], []
    for number, scene in enumerate(generate_scenes(n, seed + SCENE_SEED_OFFSET, designs,
                                                   start=start)):
        rng = np.random.default_rng([seed, start + number])
        looked, ruled_out = verifier_pairs(recognizer, scene.image)
        # Every pair the verifier is given, and some of those the classifier rules out.
        glyphs = [(g, t.card) for t in scene.truth for g in t.index_glyphs]
        some = rng.permutation(len(ruled_out[0]))[:int(negatives * max(len(glyphs), 1))]
        first = np.concatenate([looked[0], ruled_out[0][np.sort(some)]])
        second = np.concatenate([looked[1], ruled_out[1][np.sort(some)]])
        rank, suit = label_pairs(first, second, scene.truth)
        keep = np.flatnonzero(rank != UNSURE)
        true_first = np.array([g[0] for g, _ in glyphs], np.float32).reshape(-1, 2)
        true_second = np.array([g[1] for g, _ in glyphs], np.float32).reshape(-1, 2)
        ranks += [rank[keep], np.array([RANKS.index(c[0]) for _, c in glyphs], np.int64)]
        suits += [suit[keep], np.array([SUITS.index(c[1]) for _, c in glyphs], np.int64)]
        crops += [cut_all(scene.image, first[keep], second[keep], size),
                  cut_all(scene.image, true_first, true_second, size)]
    return np.concatenate(ranks), np.concatenate(suits), np.concatenate(crops)


def interleaved(real: Sequence[str], others: Sequence[str]) -> list[str]:
    """A design list whose even places cycle through the real decks and odd places through
    the others: half the scenes of each (`generate_scenes` takes scene i's design at i)."""
    return [name for k in range(len(others)) for name in (real[k % len(real)], others[k])]


def load_or_render(cache: Path | None, recipe: dict[str, Any], jobs: int) -> Examples:
    """The examples of `cache` where it was made by the same recipe; else rendered (and
    written to `cache`, where given)."""
    key = json.dumps(recipe, sort_keys=True)
    if cache is not None and cache.exists():
        try:
            with np.load(cache, allow_pickle=False) as stored:
                if str(stored["recipe"]) == key:
                    print(f"examples from {cache}", flush=True)
                    return stored["rank"], stored["suit"], stored["crops"]
            print(f"{cache} holds other examples: rendering afresh", flush=True)
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            print(f"{cache} cannot be read ({exc}): rendering afresh", flush=True)
    count, chunk, started = recipe["scenes"], 20, time.perf_counter()
    size = (recipe["size"][0], recipe["size"][1])
    parts = [(recipe["seed"], s, min(chunk, count - s), recipe["designs"], size,
              recipe["negatives"]) for s in range(0, count, chunk)]
    got: list[Examples] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for done, part in enumerate(pool.map(render_part, parts), start=1):
            got.append(part)
            print(f"  {min(done * chunk, count)} of {count} scenes "
                  f"({time.perf_counter() - started:.0f} s)", flush=True)
    rank, suit, crops = (np.concatenate([g[k] for g in got]) for k in range(3))
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, recipe=np.array(key), rank=rank, suit=suit, crops=crops)
    return rank, suit, crops


def main(argv: Sequence[str] | None = None) -> int:
    parser = training_parser(__doc__ or "", 3000, 6, ROOT / "var/fine/index_verifier_fine.onnx",
                             "labelled crops")
    parser.add_argument("--size", default="72x48", help="crop height x width in pixels")
    parser.add_argument("--negatives", type=float, default=4.0,
                        help='"not an index" pairs kept per open index of a scene')
    parser.add_argument("--train-seed", type=int, default=2)
    parser.add_argument("--verifier-designs", action="store_true",
                        help="the own verifier's designs (the 98 font faces, drawn by "
                             "render_font_decks.py --first-faces 98 --count 98) instead "
                             "of the classifier's")
    args = parse_counts(parser, argv)
    try:
        height, width = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        parser.error(f"--size {args.size!r} is not HEIGHTxWIDTH")
    if height % 8 or width % 8:
        parser.error("--size: height and width must be multiples of 8 (three pooling steps)")
    from hwsim.camera.artwork import TRAINING_DECKS

    shipped = shipped_design_names(ROOT, "verifier_designs" if args.verifier_designs
                                   else "designs")
    real = [d for d in shipped if d in TRAINING_DECKS]
    designs = interleaved(real, [d for d in shipped if d not in TRAINING_DECKS])
    recipe = {"seed": args.seed, "scenes": args.scenes, "designs": designs,
              "size": [height, width], "negatives": args.negatives}
    rank, suit, crops = load_or_render(args.cache, recipe, args.jobs)
    print(f"{rank.size} examples, {(rank != NOT_INDEX).sum()} indices", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    train_verifier(crops, rank, suit, args.train_seed, args.steps, args.out)
    print(f"wrote {args.out} ({time.perf_counter() - started:.0f} s of training); name it in "
          f"second_views and view_crops ({{\"{args.out.name}\": [{height}, {width}]}})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
