"""Train the verifier, the recognizer's second look (used by `tools/train_vision.py`).

A small CNN on the colour crops of candidate index corners, trained with
PyTorch on the CPU and written as ONNX for `cv2.dnn` / onnxruntime. Every
batch is spoiled afresh (`augment`): the crops are scaled, stretched, turned
and shifted a little, blurred now and then, and their light and colour
varied, since an unseen design places and draws its glyphs a little
differently relative to the rank-to-pip distance the crop is cut by.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import verifier_scene_spoiling as scene_spoiling  # noqa: E402

from foundation.cards import RANKS, SUITS  # noqa: E402
from vision.features import net_input  # noqa: E402
from vision.networks import forward_all, softmax  # noqa: E402
from vision.onnx_writer import ConvLayer, DenseLayer, cnn_to_onnx  # noqa: E402

VERIFIER_CHANNELS = (24, 48, 64)
VERIFIER_HIDDEN = 128
NO_SUIT = -1  # suit label of "not an index" examples (the suit head ignores them)
# Geometric spoiling of a crop: scale, stretch of one axis against the other,
# turn (degrees) and shift (share of the crop's half width and half height).
AUGMENT_SCALE = 0.12
AUGMENT_STRETCH = 0.08
AUGMENT_TURN_DEG = 6.0
AUGMENT_SHIFT = (0.10, 0.07)
AUGMENT_BLUR_SHARE = 0.3
# Glyph-shape spoiling at `shape` 1 (`--verifier-shape`): slant (a shear, as a
# share of the height), a smooth random warp (coarse displacements, in crop
# pixels) and a stroke made bolder or lighter (a share of a 3x3 min or max
# filter mixed in), so that numerals of a face never trained on look like
# numerals of the same rank rather than like one memorised face.
SHAPE_SLANT = 0.25
SHAPE_WARP_PX = 0.6
SHAPE_WARP_GRID = (7, 5)  # rows, columns of the coarse displacement field
SHAPE_STROKE = 0.6

Probabilities = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def augment(x: Any, generator: Any, shape: float = 0.0, scene: float = 0.0) -> Any:
    """A batch of verifier inputs (n, 3, H, W) spoiled at random, each crop its own way;
    with `shape` > 0 the glyphs' shapes too (`shape_spoiled`), with `scene` > 0
    glare, motion blur and shear as well (`verifier_scene_spoiling`)."""
    import torch
    from torch import nn

    n = x.shape[0]

    def uniform(size: float, *shape: int) -> Any:
        return size * (2 * torch.rand(*(shape or (n,)), generator=generator) - 1)

    scale = 1 + uniform(AUGMENT_SCALE)
    stretch = 1 + uniform(AUGMENT_STRETCH)
    turn = uniform(math.radians(AUGMENT_TURN_DEG))
    cos, sin = torch.cos(turn), torch.sin(turn)
    aspect = x.shape[2] / x.shape[3]  # normalised coordinates: the crop is taller than wide
    theta = torch.stack([
        torch.stack([cos * scale * stretch, -sin * scale * aspect, uniform(AUGMENT_SHIFT[0])], 1),
        torch.stack([sin * scale / aspect, cos * scale / stretch, uniform(AUGMENT_SHIFT[1])], 1),
    ], 1)
    if scene > 0:
        theta = scene_spoiling.sheared_theta(theta, generator, scene, aspect)
    grid = nn.functional.affine_grid(theta, list(x.shape), align_corners=False)
    if shape > 0:
        x = shape_spoiled(x, grid, generator, shape)
    else:
        x = nn.functional.grid_sample(x, grid, padding_mode="border", align_corners=False)
    # Now and then a blur of random strength (a 3x3 box mixed in).
    blurred = nn.functional.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False)
    mix = (torch.rand(n, 1, 1, 1, generator=generator) < AUGMENT_BLUR_SHARE) * torch.rand(
        n, 1, 1, 1, generator=generator)
    x = x * (1 - mix) + blurred * mix
    if scene > 0:
        x = scene_spoiling.glared(scene_spoiling.smeared(x, generator, scene), generator, scene)
    # Light and print: per-crop contrast, brightness and a little colour cast, then noise.
    x = x * (0.8 + 0.4 * torch.rand(n, 1, 1, 1, generator=generator))
    x = x + 0.08 * torch.randn(n, 1, 1, 1, generator=generator)
    x = x * (1 + 0.06 * torch.randn(n, 3, 1, 1, generator=generator))
    return x + 0.03 * torch.randn(x.shape, generator=generator)


def shape_spoiled(x: Any, grid: Any, generator: Any, shape: float) -> Any:
    """The crops sampled on `grid` slanted and warped, their strokes made bolder or lighter.

    Draws from `generator` only here, so a run without shape spoiling draws
    exactly what it did before there was any.
    """
    import torch
    from torch import nn

    n, _, height, width = x.shape
    slant = SHAPE_SLANT * shape * (2 * torch.rand(n, generator=generator) - 1)
    rows, cols = SHAPE_WARP_GRID
    coarse = torch.randn(n, 2, rows, cols, generator=generator) * (SHAPE_WARP_PX * shape)
    warped = warp_grid(slant_grid(grid, slant, height, width), coarse)
    x = nn.functional.grid_sample(x, warped, padding_mode="border", align_corners=False)
    stroke = SHAPE_STROKE * shape * (2 * torch.rand(n, generator=generator) - 1)
    return stroke_changed(x, stroke)


def slant_grid(grid: Any, slant: Any, height: int, width: int) -> Any:
    """A sampling grid (n, H, W, 2) sheared by `slant` (n,) crop pixels across per pixel
    down: a vertical stroke comes out leaning that much."""
    sheared = grid.clone()
    # Normalised coordinates: x spans 2 over `width` pixels, y 2 over `height`.
    sheared[..., 0] = grid[..., 0] + slant[:, None, None] * grid[..., 1] * (height / width)
    return sheared


def warp_grid(grid: Any, coarse: Any) -> Any:
    """A sampling grid (n, H, W, 2) moved by a smooth field: `coarse` (n, 2, rows, cols)
    displacements in crop pixels (x, y), interpolated over the crop."""
    from torch import nn

    height, width = grid.shape[1:3]
    field = nn.functional.interpolate(coarse, size=(height, width), mode="bicubic",
                                      align_corners=True)
    moved = grid.clone()
    moved[..., 0] = grid[..., 0] + field[:, 0] * (2 / width)
    moved[..., 1] = grid[..., 1] + field[:, 1] * (2 / height)
    return moved


def stroke_changed(x: Any, stroke: Any) -> Any:
    """Crops (n, 3, H, W) with their ink bolder (`stroke` > 0) or lighter (< 0), by that
    share (n,) of a 3x3 minimum or maximum filter mixed in.

    Ink is darker than the card in every channel the network sees, so the
    minimum widens a stroke by a pixel each side and the maximum narrows it.
    """
    from torch import nn

    amount = stroke[:, None, None, None]
    bolder = -nn.functional.max_pool2d(-x, 3, stride=1, padding=1)
    lighter = nn.functional.max_pool2d(x, 3, stride=1, padding=1)
    return x + amount.clamp(min=0) * (bolder - x) + (-amount).clamp(min=0) * (lighter - x)


def train_verifier(crops: np.ndarray, rank: np.ndarray, suit: np.ndarray, seed: int,
                   epochs: int, path: Path, channels: tuple[int, int, int] = VERIFIER_CHANNELS,
                   hidden_units: int = VERIFIER_HIDDEN,
                   batch_norm: bool = False, shape: float = 0.0,
                   smoothing: float = 0.0, scene: float = 0.0) -> Probabilities:
    """The second look: a small CNN on the colour crops, trained with PyTorch (CPU).

    Three 3x3 conv-ReLU-maxpool blocks (`channels`) on the colour crop (3x36x24, or a finer cut), a
    ReLU layer of `hidden_units`, a rank head (14 classes, the last "not an
    index") and a suit head. With `batch_norm` each convolution is followed by
    batch normalisation while training, folded into the convolution's weights
    in the file (the recognizer runs the same conv-ReLU-pool blocks). Written
    as ONNX. `shape` is the strength of the glyph-shape spoiling (0: none);
    `smoothing` the label smoothing of both losses (0: none); `scene` the
    strength of the scene spoiling (glare, motion blur, shear; 0: none).
    Returns a function giving the exported network's (rank, suit)
    probabilities, to check it.
    """
    try:
        import torch
        from torch import nn
    except ImportError:
        raise SystemExit("training the verifier needs PyTorch (training only): "
                         "pip install -e '.[train]'") from None

    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    generator = torch.Generator().manual_seed(seed)
    c1, c2, c3 = channels
    height, width = crops.shape[1:3]  # 36x24, the recognizer's crop, or a finer cut
    flat = c3 * (height // 8) * (width // 8)
    convs = nn.ModuleList([nn.Conv2d(3, c1, 3, padding=1), nn.Conv2d(c1, c2, 3, padding=1),
                           nn.Conv2d(c2, c3, 3, padding=1)])
    norms = nn.ModuleList([nn.BatchNorm2d(c) if batch_norm else nn.Identity()
                           for c in channels])
    dense = nn.Linear(flat, hidden_units)
    rank_head = nn.Linear(hidden_units, len(RANKS) + 1)
    suit_head = nn.Linear(hidden_units, len(SUITS))
    dropout = nn.Dropout(0.2)
    modules = nn.ModuleList([convs, norms, dense, rank_head, suit_head, dropout])

    def forward(x: Any) -> tuple[Any, Any]:
        for conv, norm in zip(convs, norms, strict=True):
            x = nn.functional.max_pool2d(torch.relu(norm(conv(x))), 2)
        hidden = torch.relu(dense(dropout(x.flatten(1))))
        return rank_head(hidden), suit_head(hidden)

    def inputs_of(rows: Any) -> Any:  # converted a batch at a time: fine cuts are large
        return torch.from_numpy(net_input(crops[rows.numpy()]))

    rank_t = torch.from_numpy(rank.astype(np.int64))
    suit_t = torch.from_numpy(suit.astype(np.int64))
    optimiser = torch.optim.AdamW(modules.parameters(), lr=2e-3, weight_decay=1e-4)
    batch = 256
    steps = epochs * math.ceil(crops.shape[0] / batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps)
    rank_loss = nn.CrossEntropyLoss(label_smoothing=smoothing)
    suit_loss = nn.CrossEntropyLoss(ignore_index=NO_SUIT, label_smoothing=smoothing)
    modules.train()
    for epoch in range(epochs):
        order = torch.randperm(crops.shape[0], generator=generator)
        total, count = 0.0, 0
        for start in range(0, order.numel(), batch):
            chunk = order[start:start + batch]
            with torch.no_grad():
                x = augment(inputs_of(chunk), generator, shape, scene)
            rank_logits, suit_logits = forward(x)
            loss = rank_loss(rank_logits, rank_t[chunk])
            if bool((suit_t[chunk] >= 0).any()):
                loss = loss + suit_loss(suit_logits, suit_t[chunk])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * chunk.numel()
            count += chunk.numel()
        print(f"verifier epoch {epoch + 1}/{epochs}: loss {total / count:.4f}", flush=True)
    modules.eval()

    def numpy_of(t: Any) -> np.ndarray:
        return np.ascontiguousarray(t.detach().numpy(), dtype=np.float32)

    path.write_bytes(cnn_to_onnx(
        [folded(conv, norm, numpy_of) for conv, norm in zip(convs, norms, strict=True)],
        [DenseLayer(numpy_of(dense.weight).T, numpy_of(dense.bias))],
        {"rank": DenseLayer(numpy_of(rank_head.weight).T, numpy_of(rank_head.bias)),
         "suit": DenseLayer(numpy_of(suit_head.weight).T, numpy_of(suit_head.bias))},
        (3, height, width), embedding="embedding"))
    net = cv2.dnn.readNetFromONNX(str(path))
    with torch.no_grad():
        check = inputs_of(torch.arange(min(512, crops.shape[0])))
        want_rank, want_suit = forward(check)
    outputs = forward_all(net, check.numpy())
    got_rank, got_suit = outputs["rank"], outputs["suit"]
    error = max(float(np.abs(got_rank - want_rank.numpy()).max()),
                float(np.abs(got_suit - want_suit.numpy()).max()))
    assert error < 1e-2, f"the exported verifier differs from the trained one by {error}"

    def probabilities(some: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out_rank, out_suit = [], []
        for start in range(0, some.shape[0], 4096):
            outputs = forward_all(net, net_input(some[start:start + 4096]))
            out_rank.append(softmax(outputs["rank"]))
            out_suit.append(softmax(outputs["suit"]))
        return np.concatenate(out_rank), np.concatenate(out_suit)

    return probabilities


def folded(conv: Any, norm: Any, numpy_of: Callable[[Any], np.ndarray]) -> ConvLayer:
    """A convolution with the batch normalisation after it (in evaluation mode) folded in:
    the same outputs from one convolution."""
    weight, bias = numpy_of(conv.weight), numpy_of(conv.bias)
    if not hasattr(norm, "running_var"):  # no normalisation
        return ConvLayer(weight, bias)
    scale = numpy_of(norm.weight) / np.sqrt(numpy_of(norm.running_var) + norm.eps)
    shift = numpy_of(norm.bias) - numpy_of(norm.running_mean) * scale
    return ConvLayer(np.ascontiguousarray(weight * scale[:, None, None, None], np.float32),
                     np.ascontiguousarray(bias * scale + shift, np.float32))
