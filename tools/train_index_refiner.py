"""Train the learnt index refiner (vision.refiner) on scenes of the training decks.

Seeded and reproducible on CPU. Scenes are rendered from the designs the reading
networks were trained on (never a held-out one); around every open index corner a
few proposals are drawn, moved, turned and scaled as the proposer misses them, and
the network learns where in each proposal's window the true rank and pip lie (the
renderer's glyph centres).

    python tools/train_index_refiner.py --cache var/refiner-windows.npz

writes vision/models/index_refiner.onnx and names it in index_classifier.json
(`refiner_model`). About 5 min of rendering and 8 min of training on two cores.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zipfile
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim"), str(ROOT / "tools")]

from training_cli import (  # noqa: E402
    name_in_settings,
    parse_counts,
    shipped_design_names,
    training_parser,
)

from vision.refiner import SIZE, window_targets, windows  # noqa: E402

SCENE_SEED_OFFSET = 9000  # the refiner's scenes are none of the other networks'
PROPOSALS_PER_CORNER = 6
# The spreads (rank-to-pip distances) of the misses drawn around each corner.
SPREADS = (0.15, 0.45)


def missed_proposals(ranks: np.ndarray, pips: np.ndarray, rng: np.random.Generator,
                     spreads: Sequence[float] = SPREADS) -> tuple[np.ndarray, np.ndarray]:
    """Proposals around the true pairs as the proposer misses them: the midpoint moved
    (by a normal spread of one of `spreads` rank-to-pip distances, each as likely: by
    default mostly a little, often by half a distance), the pair turned by up to 35
    degrees and its length off by up to 60%."""
    n = len(ranks)
    vector = pips - ranks
    span = np.hypot(vector[:, 0], vector[:, 1])[:, None]
    # One uniform draw a proposal picks its spread (below 0.5: the first of two).
    pick = np.minimum((rng.random(n) * len(spreads)).astype(int), len(spreads) - 1)
    spread = np.asarray(spreads, np.float64)[pick][:, None]
    shift = np.clip(rng.normal(0.0, 1.0, (n, 2)) * spread, -1.1, 1.1) * span
    angle = np.clip(rng.normal(0.0, np.radians(12), n), -np.radians(35), np.radians(35))
    scale = np.clip(np.exp(rng.normal(0.0, 0.2, n)), 0.6, 1.6)
    cos, sin = np.cos(angle) * scale, np.sin(angle) * scale
    turned = np.stack([vector[:, 0] * cos - vector[:, 1] * sin,
                       vector[:, 0] * sin + vector[:, 1] * cos], axis=1)
    middle = (ranks + pips) / 2 + shift
    return (middle - turned / 2).astype(np.float32), (middle + turned / 2).astype(np.float32)


def render_part(args: tuple[int, int, int, list[str], tuple[float, ...]]
                ) -> tuple[np.ndarray, np.ndarray]:
    """Windows and targets of scenes start .. start+n-1 of the seeded series."""
    seed, start, n, designs, spreads = args
    from hwsim.camera.dataset import generate_scenes

    cuts, answers = [], []
    for number, scene in enumerate(generate_scenes(n, seed, designs, start=start)):
        glyphs = [g for t in scene.truth for g in t.index_glyphs]
        if not glyphs:
            continue
        ranks = np.array([g[0] for g in glyphs], np.float32)
        pips = np.array([g[1] for g in glyphs], np.float32)
        rng = np.random.default_rng([seed, start + number])
        for _ in range(PROPOSALS_PER_CORNER):
            near_ranks, near_pips = missed_proposals(ranks, pips, rng, spreads)
            cuts.append(windows(scene.image, near_ranks, near_pips))
            answers.append(window_targets(near_ranks, near_pips, ranks, pips))
    if not cuts:
        return np.zeros((0, SIZE, SIZE, 3), np.uint8), np.zeros((0, 4), np.float32)
    return np.concatenate(cuts), np.concatenate(answers)


def load_or_render(cache: Path | None, seed: int, count: int, designs: list[str],
                   jobs: int, spreads: tuple[float, ...] = SPREADS
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The windows of `cache` where it was made from the same recipe; else rendered
    (and written to `cache`, where given)."""
    recipe_of: dict[str, object] = {"seed": seed, "count": count, "designs": designs,
                                    "per_corner": PROPOSALS_PER_CORNER, "size": SIZE}
    if spreads != SPREADS:  # the default recipe reads the caches written before
        recipe_of["spreads"] = list(spreads)
    recipe = json.dumps(recipe_of)
    if cache is not None and cache.exists():
        try:
            with np.load(cache, allow_pickle=False) as stored:
                if str(stored["recipe"]) == recipe:
                    print(f"windows from {cache}")
                    return stored["windows"], stored["targets"]
            print(f"{cache} holds other windows: rendering afresh")
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            print(f"{cache} cannot be read ({exc}): rendering afresh")
    chunk = 25
    parts = [(seed, s, min(chunk, count - s), designs, spreads)
             for s in range(0, count, chunk)]
    cuts, answers = [], []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for done, (cut, answer) in enumerate(pool.map(render_part, parts), start=1):
            cuts.append(cut)
            answers.append(answer)
            print(f"  {min(done * chunk, count)} of {count} scenes rendered", flush=True)
    all_cuts, all_answers = np.concatenate(cuts), np.concatenate(answers)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, recipe=np.array(recipe), windows=all_cuts, targets=all_answers)
    return all_cuts, all_answers


def build_network(width: int = 16):  # type: ignore[no-untyped-def]
    import torch.nn as nn

    return nn.Sequential(
        nn.Conv2d(3, width, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(width, 2 * width, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(2 * width, 3 * width, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(3 * width * (SIZE // 8) ** 2, 64), nn.ReLU(),
        nn.Linear(64, 4))


def train(cuts: np.ndarray, answers: np.ndarray, steps: int, seed: int,  # type: ignore[no-untyped-def]
          width: int = 16, batch: int = 128):
    import torch

    from vision.refiner import network_input

    torch.manual_seed(seed)
    torch.set_num_threads(2)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(cuts))
    kept = max(len(cuts) // 20, 1)
    test, learn = order[:kept], order[kept:]
    net = build_network(width)
    optimiser = torch.optim.Adam(net.parameters(), lr=1e-3)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps)
    start, shown = time.monotonic(), 0.0
    for step in range(1, steps + 1):
        pick = learn[rng.integers(len(learn), size=batch)]
        image = torch.from_numpy(network_input(cuts[pick]))
        target = torch.from_numpy(answers[pick])
        loss = torch.nn.functional.smooth_l1_loss(net(image), target, beta=0.05)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
        value = float(loss.detach())
        shown = 0.98 * shown + 0.02 * value if step > 1 else value
        if step % 500 == 0:
            print(f"  step {step}/{steps}: loss {shown:.4f} ({time.monotonic() - start:.0f} s)",
                  flush=True)
    net.eval()
    with torch.no_grad():
        guess = net(torch.from_numpy(network_input(cuts[test]))).numpy()
    truth = answers[test]
    # Errors in rank-to-pip distances of the proposal: before (the proposal's own places
    # are rank (0, -0.5), pip (0, 0.5)) and after one round.
    home = np.array([0.0, -0.5, 0.0, 0.5], np.float32)
    for name, place in (("proposals", np.broadcast_to(home, truth.shape)), ("refined", guess)):
        rank = np.hypot(*(place[:, :2] - truth[:, :2]).T)
        pip = np.hypot(*(place[:, 2:] - truth[:, 2:]).T)
        print(f"  {name}: rank off by {np.median(rank):.3f}, pip by {np.median(pip):.3f} "
              f"(median, {len(test)} held-back windows)")
    return net


def export(net, out: Path) -> None:  # type: ignore[no-untyped-def]
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 3, SIZE, SIZE), str(out), input_names=["window"],
                      output_names=["places"],
                      dynamic_axes={"window": {0: "n"}, "places": {0: "n"}},
                      opset_version=17, dynamo=False)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = training_parser(__doc__, 800, 8000, ROOT / "vision/models/index_refiner.onnx",
                             "windows")
    parser.add_argument("--width", type=int, default=16,
                        help="channels of the first convolution (the next two: 2x, 3x)")
    parser.add_argument("--spreads", type=float, nargs="+", default=list(SPREADS),
                        metavar="DISTANCES",
                        help="normal spreads of the misses drawn around each corner, in "
                             "rank-to-pip distances, each as likely (default 0.15 0.45)")
    args = parse_counts(parser, argv, ("scenes", "steps", "jobs", "width"))
    if not all(0.0 < s <= 1.1 for s in args.spreads):
        parser.error("--spreads must be distances above 0 and up to 1.1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    names = shipped_design_names(ROOT)
    start = time.monotonic()
    cuts, answers = load_or_render(args.cache, args.seed + SCENE_SEED_OFFSET, args.scenes,
                                   names, args.jobs, tuple(args.spreads))
    print(f"{len(cuts)} windows ({time.monotonic() - start:.0f} s)", flush=True)
    net = train(cuts, answers, args.steps, args.seed, args.width)
    export(net, args.out)
    name_in_settings(args.out, lambda info: {
        "refiner_model": args.out.name,
        "refiner": {"seed": args.seed, "scenes": args.scenes, "steps": args.steps,
                    "width": args.width}})
    print(f"wrote {args.out} ({time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
