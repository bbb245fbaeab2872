"""Train the learnt index-corner proposer (`vision.proposer`) and write it as ONNX.

    python tools/train_index_proposer.py [--scenes 1600] [--steps 6000] [--seed 1]
                                         [--channels 16] [--stride 8] [--cache FILE.npz]
                                         [--out vision/models/index_proposer.onnx]

Scenes are rendered by `hwsim.camera` from the designs the shipped networks were
trained on (`designs` of vision/models/index_classifier.json: the drawn tuning
designs, the real training decks and the font decks); every held-out design is
refused. The truth of each scene names the frame centres of every open index
corner's rank glyph and suit pip; the network learns, per output cell, a heat map of
their midpoints (CenterNet's penalty-reduced focal loss), the midpoint's place in the
cell and the rank-to-pip vector (L1 where a midpoint lies). Index corners only partly
open (30-80%) are neither taught as an index nor as background. Training is on random
square crops turned by quarter turns. Same seed, designs, renderer and PyTorch build:
same network.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zipfile
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim"), str(ROOT / "tools")]

from training_cli import (  # noqa: E402
    name_in_settings,
    parse_counts,
    shipped_design_names,
    training_parser,
)

from vision.proposer import (  # noqa: E402
    CHANNELS,
    DEFAULT_THRESHOLD,
    INPUT_SCALE,
    STRIDE,
    STRIDES,
    VECTOR_UNIT,
)

CROP = 256  # half-size pixels
HEAT_SIGMA = 0.8  # output cells
IGNORE_RADIUS_PX = 8.0  # half-size pixels around a partly open corner


@dataclass
class SceneTruth:
    image: np.ndarray  # half-size BGR
    ranks: np.ndarray  # (n, 2) half-size pixels
    pips: np.ndarray  # (n, 2)
    partial: np.ndarray  # (m, 2) centres of partly open corners, half-size pixels


def render_part(args: tuple[int, int, int, list[str]]) -> list[SceneTruth]:
    """Scenes start .. start+n-1 of the seeded series, at half size, with their truth."""
    seed, start, n, designs = args
    from hwsim.camera.dataset import generate_scenes

    out = []
    for scene in generate_scenes(n, seed, designs, start=start):
        h, w = scene.image.shape[:2]
        half = cv2.resize(scene.image, (w // INPUT_SCALE, h // INPUT_SCALE),
                          interpolation=cv2.INTER_AREA)
        glyphs = [g for t in scene.truth for g in t.index_glyphs]
        ranks = np.array([g[0] for g in glyphs], np.float32).reshape(-1, 2) / INPUT_SCALE
        pips = np.array([g[1] for g in glyphs], np.float32).reshape(-1, 2) / INPUT_SCALE
        partial = np.array([p for t in scene.truth for p in t.partial_points],
                           np.float32).reshape(-1, 2) / INPUT_SCALE
        out.append(SceneTruth(half, ranks, pips, partial))
    return out


def render_scenes(seed: int, count: int, designs: list[str], jobs: int) -> list[SceneTruth]:
    chunk = 50
    parts = [(seed, s, min(chunk, count - s), designs) for s in range(0, count, chunk)]
    scenes: list[SceneTruth] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for part in pool.map(render_part, parts):
            scenes.extend(part)
            print(f"  {len(scenes)} of {count} scenes rendered", flush=True)
    return scenes


def load_or_render(cache: Path | None, seed: int, count: int, designs: list[str],
                   jobs: int) -> list[SceneTruth]:
    """The scenes of `cache` where it was made from the same seed, count and designs;
    else rendered (and written to `cache`, where given)."""
    recipe = json.dumps({"seed": seed, "count": count, "designs": designs})
    if cache is not None and cache.exists():
        try:
            with np.load(cache, allow_pickle=False) as stored:
                if str(stored["recipe"]) == recipe:
                    images, counts = stored["images"], stored["counts"]
                    ranks, pips, partial = stored["ranks"], stored["pips"], stored["partial"]
                    ends, part_ends = np.cumsum(counts[:, 0]), np.cumsum(counts[:, 1])
                    print(f"{len(images)} scenes from {cache}")
                    return [SceneTruth(images[k], ranks[e - c[0]:e], pips[e - c[0]:e],
                                       partial[q - c[1]:q])
                            for k, (c, e, q) in enumerate(zip(counts, ends, part_ends,
                                                              strict=True))]
            print(f"{cache} holds other scenes: rendering afresh")
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            print(f"{cache} cannot be read ({exc}): rendering afresh")
    scenes = render_scenes(seed, count, designs, jobs)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, recipe=np.array(recipe), images=np.stack([s.image for s in scenes]),
                 counts=np.array([(len(s.ranks), len(s.partial)) for s in scenes], np.int64),
                 ranks=np.concatenate([s.ranks for s in scenes]),
                 pips=np.concatenate([s.pips for s in scenes]),
                 partial=np.concatenate([s.partial for s in scenes]))
    return scenes


def crop_example(scene: SceneTruth, rng: np.random.Generator, cell: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A random crop, turned by a random quarter turn: the (3, CROP, CROP) image, the
    (CROP/cell)^2 heat target (`cell` half-size pixels a cell), the regression target
    (4, ...) and its mask, and the heat loss's weight (0 near partly open corners)."""
    h, w = scene.image.shape[:2]
    mids = (scene.ranks + scene.pips) / 2
    if len(mids) and rng.random() < 0.8:  # most crops hold an index corner
        cx, cy = mids[rng.integers(len(mids))]
        x0 = int(np.clip(cx - rng.uniform(0.15, 0.85) * CROP, 0, w - CROP))
        y0 = int(np.clip(cy - rng.uniform(0.15, 0.85) * CROP, 0, h - CROP))
    else:
        x0, y0 = int(rng.integers(0, w - CROP + 1)), int(rng.integers(0, h - CROP + 1))
    image = scene.image[y0:y0 + CROP, x0:x0 + CROP]
    offset = np.array([x0, y0], np.float32)
    ranks, pips, partial = scene.ranks - offset, scene.pips - offset, scene.partial - offset
    turns = int(rng.integers(4))
    image = np.ascontiguousarray(np.rot90(image, turns))
    ranks, pips, partial = (_turn(p, turns) for p in (ranks, pips, partial))
    return image.transpose(2, 0, 1), *targets(ranks, pips, partial, cell)


def _turn(points: np.ndarray, turns: int) -> np.ndarray:
    """Points of a CROP square turned as np.rot90(image, turns) turns it (anticlockwise)."""
    p = points.copy()
    for _ in range(turns):
        # np.rot90 once: the pixel at (x, y) goes to (y, CROP - 1 - x).
        p = np.stack([p[:, 1], CROP - 1 - p[:, 0]], axis=1)
    return p


def targets(ranks: np.ndarray, pips: np.ndarray, partial: np.ndarray, cell: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Heat map (1, g, g), regression target and mask (5, g, g: 4 values and the mask)
    and the heat loss's weight (1, g, g) of one crop, from points in crop pixels."""
    g = CROP // cell
    heat = np.zeros((g, g), np.float32)
    regress = np.zeros((5, g, g), np.float32)
    weight = np.ones((g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    radius = IGNORE_RADIUS_PX / cell
    for px, py in partial / cell:
        weight[(xx + 0.5 - px) ** 2 + (yy + 0.5 - py) ** 2 <= radius ** 2] = 0.0
    for rank, pip in zip(ranks, pips, strict=True):
        mx, my = (rank + pip) / 2 / cell  # in cells
        if not (0 <= mx < g and 0 <= my < g):
            continue
        heat = np.maximum(heat, np.exp(-((xx + 0.5 - mx) ** 2 + (yy + 0.5 - my) ** 2)
                                       / (2 * HEAT_SIGMA ** 2)))
        col, row = int(mx), int(my)
        heat[row, col] = 1.0
        vx, vy = (pip - rank) * INPUT_SCALE / VECTOR_UNIT
        for r in range(max(row - 1, 0), min(row + 2, g)):
            for c in range(max(col - 1, 0), min(col + 2, g)):
                regress[:, r, c] = (mx - c, my - r, vx, vy, 1.0)
    weight = np.maximum(weight, (heat >= 0.999).astype(np.float32))
    return heat[None], regress, weight[None]


def build_network(channels: int, stride: int = STRIDE):  # type: ignore[no-untyped-def]
    """The body works at STRIDE frame pixels a cell; with a finer `stride` its last
    layer gives each cell's sub-cells their own outputs (a pixel shuffle), so two
    index midpoints in one cell of the body can both be peaks."""
    import torch.nn as nn

    layers: list[nn.Module] = [nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(),
                               nn.Conv2d(16, channels, 3, 2, 1), nn.ReLU()]
    for dilation in (1, 2, 4, 1):
        layers += [nn.Conv2d(channels, channels, 3, 1, dilation, dilation=dilation,
                             groups=channels),
                   nn.Conv2d(channels, channels, 1), nn.ReLU()]
    parts = STRIDE // stride
    layers.append(nn.Conv2d(channels, CHANNELS * parts * parts, 1))
    if parts > 1:
        layers.append(nn.PixelShuffle(parts))
    return nn.Sequential(*layers)


def focal_loss(logit, heat, weight):  # type: ignore[no-untyped-def]
    """CenterNet's penalty-reduced focal loss, per positive cell."""
    import torch

    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    positive = (heat >= 0.999).float()
    pos = -torch.log(p) * (1 - p) ** 2 * positive
    neg = -torch.log(1 - p) * p ** 2 * (1 - heat) ** 4 * (1 - positive) * weight
    return (pos.sum() + neg.sum()) / positive.sum().clamp(min=1.0)


def train(scenes: Sequence[SceneTruth], steps: int, seed: int, channels: int,  # type: ignore[no-untyped-def]
          stride: int = STRIDE, batch: int = 16):
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(2)
    rng = np.random.default_rng(seed)
    net = build_network(channels, stride)
    cell = stride // INPUT_SCALE
    # Start the heat map at a low probability, as CenterNet does.
    last = [layer for layer in net if isinstance(layer, torch.nn.Conv2d)][-1]
    parts = STRIDE // stride
    torch.nn.init.constant_(last.bias, 0.0)  # type: ignore[arg-type]
    with torch.no_grad():
        last.bias[:parts * parts] = -2.19  # the heat map's channels before the shuffle
    optimiser = torch.optim.Adam(net.parameters(), lr=2e-3)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps)
    start, shown = time.monotonic(), 0.0
    for step in range(1, steps + 1):
        examples = [crop_example(scenes[int(rng.integers(len(scenes)))], rng, cell)
                    for _ in range(batch)]
        image = torch.from_numpy(np.stack([e[0] for e in examples]).astype(np.float32) / 255)
        heat = torch.from_numpy(np.stack([e[1] for e in examples]))
        regress = torch.from_numpy(np.stack([e[2] for e in examples]))
        weight = torch.from_numpy(np.stack([e[3] for e in examples]))
        out = net(image)
        mask = regress[:, 4:5]
        l1 = (torch.abs(out[:, 1:5] - regress[:, :4]) * mask).sum() / mask.sum().clamp(min=1.0)
        loss = focal_loss(out[:, 0:1], heat, weight) + l1
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
        value = float(loss.detach())
        shown = 0.98 * shown + 0.02 * value if step > 1 else value
        if step % 250 == 0:
            print(f"  step {step}/{steps}: loss {shown:.3f} ({time.monotonic() - start:.0f} s)",
                  flush=True)
    return net.eval()


def export(net, out: Path) -> None:  # type: ignore[no-untyped-def]
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, 360, 640)
    torch.onnx.export(net, dummy, str(out), input_names=["frame"], output_names=["cells"],
                      dynamic_axes={"frame": {2: "height", 3: "width"},
                                    "cells": {2: "rows", 3: "cols"}},
                      opset_version=17, dynamo=False)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = training_parser(__doc__, 1600, 6000, ROOT / "vision/models/index_proposer.onnx",
                             "scenes")
    parser.add_argument("--channels", type=int, default=16)
    parser.add_argument("--stride", type=int, choices=STRIDES, default=STRIDE,
                        help="frame pixels per output cell")
    return parse_counts(parser, argv, ("scenes", "steps", "jobs", "channels"))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    names = shipped_design_names(ROOT)
    start = time.monotonic()
    scenes = load_or_render(args.cache, args.seed + 7000, args.scenes, names, args.jobs)
    print(f"{len(scenes)} scenes, {sum(len(s.ranks) for s in scenes)} open index corners "
          f"({time.monotonic() - start:.0f} s)", flush=True)
    net = train(scenes, args.steps, args.seed, args.channels, args.stride)
    export(net, args.out)
    name_in_settings(args.out, lambda info: {
        "proposer_model": args.out.name,
        "proposer_threshold": info.get("proposer_threshold", DEFAULT_THRESHOLD),
        "proposer": {"seed": args.seed, "scenes": args.scenes, "steps": args.steps,
                     "channels": args.channels, "stride": args.stride}})
    print(f"wrote {args.out} ({time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
