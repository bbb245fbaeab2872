"""A learnt proposer of index corners: a small fully convolutional network that marks
where an index (rank over pip) lies and which way it faces.

The blob finder (`vision.candidates`) proposes pairs of ink blobs; where a rank glyph
runs into a frame line, the next card's edge or the felt, or is too pale to be a blob
of its own, no pair lies on the index. This network looks at the frame at half size
and answers for every cell of `STRIDE` frame pixels: how likely the midpoint of an
index's rank and pip lies in it, where in it, and the vector from the rank's centre to
the pip's. Its peaks become rank and pip centres, read by the same networks as the
finder's pairs (`Recognizer.read_candidates(pairs=...)`).

Trained by `tools/train_index_proposer.py` on scenes of the training decks only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.candidates import Candidates, given_pairs
from vision.networks import ModelError, Network
from vision.reads import UNKNOWN_CARD, _Read
from vision.refiner import IndexRefiner

PROPOSER_FILE = "index_proposer.onnx"
INPUT_SCALE = 2  # the network sees the frame at half size
STRIDE = 8  # frame pixels per output cell of the network's body (4 at half size)
# A proposer trained with a finer output (`--stride` of its training script) parts
# each cell of its body into sub-cells; these are the strides it may have.
STRIDES = (8, 4)
VECTOR_UNIT = 16.0  # the rank-to-pip vector is regressed in these frame pixels
# Output channels: the midpoint's logit, its place in the cell (x, y, in cells from the
# cell's top-left corner), the rank-to-pip vector (x, y, in VECTOR_UNIT pixels).
CHANNELS = 5
DEFAULT_THRESHOLD = 0.2
# A proposal whose rank-to-pip distance is outside this (frame pixels) is no index of a
# card the camera can read (an index is 10 px tall at the smallest supported size).
MIN_SPAN_PX, MAX_SPAN_PX = 5.0, 60.0
# A proposal this near a read of the finder's pairs (in that read's index scales) reads
# the same corner again; it is not read.
SAME_CORNER_SCALES = 0.8


def network_input(frame: np.ndarray, scale: float = INPUT_SCALE) -> np.ndarray:
    """The (1, 3, h, w) float input for a BGR frame: shrunk `scale` times (half size
    unless zoomed, see `input_scale`), 0-1, each side a multiple of the output stride
    (the frame's right and bottom edge padded with grey)."""
    height, width = frame.shape[:2]
    size = (max(int(width / scale), 1), max(int(height / scale), 1))
    half = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    cell = STRIDE // INPUT_SCALE
    pad_h, pad_w = (-half.shape[0]) % cell, (-half.shape[1]) % cell
    if pad_h or pad_w:
        half = cv2.copyMakeBorder(half, 0, pad_h, 0, pad_w, cv2.BORDER_CONSTANT,
                                  value=(128, 128, 128))
    return half.transpose(2, 0, 1)[None].astype(np.float32) / 255.0


def decode(output: np.ndarray, threshold: float = DEFAULT_THRESHOLD, stride: int = STRIDE,
           zoom: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rank centres, pip centres ((n, 2) frame pixels) and scores of the peaks of one
    output map (CHANNELS, rows, cols) of `stride` frame pixels a cell (`stride * zoom`
    where the frame was shown at `zoom` times its half size's pixel size, see
    `input_scale`): cells at least `threshold` likely and likelier than their eight
    neighbours."""
    heat = 1.0 / (1.0 + np.exp(-output[0].astype(np.float64)))
    peaks = (heat >= threshold) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    rows, cols = np.nonzero(peaks)
    mid = np.stack([(cols + output[1, rows, cols]) * stride * zoom,
                    (rows + output[2, rows, cols]) * stride * zoom], axis=1)
    vector = np.stack([output[3, rows, cols], output[4, rows, cols]],
                      axis=1) * (VECTOR_UNIT * zoom)
    span = np.hypot(vector[:, 0], vector[:, 1])
    fits = (span >= MIN_SPAN_PX) & (span <= MAX_SPAN_PX)
    mid, vector = mid[fits], vector[fits]
    return ((mid - vector / 2).astype(np.float32), (mid + vector / 2).astype(np.float32),
            heat[rows, cols][fits].astype(np.float32))


def input_scale(reads: list[_Read], zoom_below: float | None) -> float:
    """How many times the frame is shrunk for the proposer: half size (INPUT_SCALE),
    unless the sure reads' median index scale is under `zoom_below` frame pixels; then
    less, so that their indices look `zoom_below` large at half size (at most full
    size). The proposer learnt indices of the sizes the renderer draws; at half size
    the smallest of them are a few pixels, and it places them worst."""
    scales = [r.scale for r in reads if r.card != UNKNOWN_CARD]
    if zoom_below is None or not scales:
        return float(INPUT_SCALE)
    return max(1.0, INPUT_SCALE * min(1.0, float(np.median(scales)) / zoom_below))


def output_stride(network: Network) -> int:
    """The frame pixels a cell of the network's output map spans (one of STRIDES),
    told by the size of its map for a small grey frame; ModelError for any other."""
    frame = np.full((64, 64, 3), 128, np.uint8)
    columns = next(iter(network.run(network_input(frame)).values())).shape[-1]
    for stride in STRIDES:
        if columns * stride == frame.shape[1]:
            return stride
    raise ModelError(f"the proposer's output map has {columns} columns for a frame of "
                     f"{frame.shape[1]} pixels: no stride of "
                     f"{', '.join(map(str, STRIDES))} frame pixels")


def load_proposer(info: dict[str, Any], folder: Path, info_path: Path,
                  runtime: str) -> IndexProposer | None:
    """The proposer the settings `info` name (`proposer_model`, `proposer_threshold`,
    and the refiner of its places, `refiner_model`, where named), or None where they
    name none; ModelError where a file is missing."""
    name = info.get("proposer_model")
    if not name:
        return None
    path = folder / str(name)
    if not path.exists():
        raise ModelError(f"{path.name} (named in {info_path.name}, proposer_model) not "
                         "found: train it with `python tools/train_index_proposer.py`, or "
                         "set [camera] proposer = false")
    threshold = info.get("proposer_threshold", DEFAULT_THRESHOLD)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) \
            or not 0.0 < threshold < 1.0:
        raise ModelError(f"{info_path.name}: proposer_threshold {threshold!r} is not a "
                         "probability between 0 and 1")
    zoom_below = info.get("proposer_zoom_below")
    if zoom_below is not None and (isinstance(zoom_below, bool)
                                   or not isinstance(zoom_below, (int, float))
                                   or not MIN_SPAN_PX <= zoom_below <= MAX_SPAN_PX):
        raise ModelError(f"{info_path.name}: proposer_zoom_below {zoom_below!r} is not an "
                         f"index scale of {MIN_SPAN_PX:g} to {MAX_SPAN_PX:g} frame pixels")
    refiner = None
    refiner_name = info.get("refiner_model")
    if refiner_name:
        refiner_path = folder / str(refiner_name)
        if not refiner_path.exists():
            raise ModelError(f"{refiner_path.name} (named in {info_path.name}, refiner_model) "
                             "not found: train it with `python tools/train_index_refiner.py`, "
                             "or set [camera] proposer = false")
        refiner = IndexRefiner(Network(refiner_path, runtime))
    return IndexProposer(Network(path, runtime), float(threshold), refiner=refiner,
                         zoom_below=None if zoom_below is None else float(zoom_below))


class IndexProposer:
    """The proposer network: `propose(frame)` -> rank centres, pip centres, scores."""

    def __init__(self, network: Network, threshold: float = DEFAULT_THRESHOLD,
                 recut_unsure: bool = False, refiner: IndexRefiner | None = None,
                 zoom_below: float | None = None) -> None:
        self.network = network
        self.stride = output_stride(network)
        self.threshold = threshold
        # Moves each proposal onto its glyphs before it is read (`vision.refiner`).
        self.refiner = refiner
        # Whether a proposal at a corner read unsurely is cut and read again.
        self.recut_unsure = recut_unsure
        # Frames whose indices are read smaller than this are shown larger (`input_scale`).
        self.zoom_below = zoom_below

    def propose(self, frame: np.ndarray, scale: float = INPUT_SCALE
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        output = next(iter(self.network.run(network_input(frame, scale)).values()))
        return decode(output[0], self.threshold, self.stride, scale / INPUT_SCALE)

    def pairs_beside(self, frame: np.ndarray, reads: list[_Read]) -> Candidates:
        """The proposals whose midpoint lies away from every read in `reads` (every sure
        read, with `recut_unsure`), as pairs to read (moved onto their glyphs by the
        refiner, where there is one)."""
        ranks, pips, _ = self.propose(frame, input_scale(reads, self.zoom_below))
        near = [r for r in reads if not self.recut_unsure or r.card != UNKNOWN_CARD]
        ranks, pips = away_from(ranks, pips, near)
        if self.refiner is not None:
            # Refined, a proposal beside a read may land on that read's corner.
            ranks, pips = away_from(*self.refiner.refine(frame, ranks, pips), near)
        return given_pairs(ranks, pips)


def away_from(ranks: np.ndarray, pips: np.ndarray, reads: list[_Read]
               ) -> tuple[np.ndarray, np.ndarray]:
    """The pairs whose midpoint lies farther than `SAME_CORNER_SCALES` index scales from
    every read."""
    if not reads or not len(ranks):
        return ranks, pips
    mids = (ranks + pips) / 2
    at = np.array([(r.x, r.y) for r in reads], np.float32)
    reach = np.array([SAME_CORNER_SCALES * r.scale for r in reads], np.float32)
    gaps = np.hypot(mids[:, None, 0] - at[None, :, 0], mids[:, None, 1] - at[None, :, 1])
    away = (gaps > reach[None, :]).all(axis=1)
    return ranks[away], pips[away]
