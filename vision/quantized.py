"""The verifiers' int8 copies, run where onnxruntime runs the networks.

`tools/quantize_verifiers.py` quantizes each verifier (weights int8 per output
channel, activations uint8, ranges measured on the crops the recognizer gives
the verifiers in scenes of the training decks) into `<name>_int8.onnx` beside
it (`--weight-bits 8 7`: and into `<name>_int8w7.onnx` with 7-bit weights), and
names the copies in the settings: `"int8_verifiers": {"index_verifier.onnx":
"index_verifier_int8.onnx", ...}`, or a list of copies, in the order they are
tried. Where onnxruntime runs the networks, the recognizer runs the copies: they
read as the float files do on the choosing sets and take about half their time
where the CPU has VNNI (docs/vision-measurements.md, "int8 verifiers").

OpenCV's dnn module always runs the float files: it does not load the QDQ
layout, its own int8 arithmetic (on the QOperator layout) gave other numbers
than onnxruntime's (logits up to 1.4 apart on the same crops), and the float
files give the same numbers on both. Take the key out of the
settings to run the float files on onnxruntime too.

Not every CPU runs the copies exactly: where its 8-bit dot products saturate (x86-64
with AVX2 but no VNNI) the 8-bit copies read far worse than the float files; 7-bit
ones, whose sums cannot overflow there, do not (and are no faster there). So the
recognizer checks each copy when it loads (`exact_copies`) on drawn corner crops,
against the copy's own arithmetic worked in float, runs the first copy that agrees,
and the float file where none does.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.features import CROP_SIZE, CropSize, cut_all, net_input
from vision.networks import softmax, unreadable

INT8_KEY = "int8_verifiers"


WEIGHT_BITS = (8, 7)  # the weight widths a copy may have


def int8_name(name: str, weight_bits: int = 8) -> str:
    """The file name of a network's int8 copy: `index_verifier.onnx` ->
    `index_verifier_int8.onnx`, or `index_verifier_int8w7.onnx` with 7-bit weights."""
    path = Path(name)
    bits = "" if weight_bits == 8 else f"w{weight_bits}"
    return f"{path.stem}_int8{bits}{path.suffix}"


def int8_files(info: dict[str, Any], folder: Path) -> dict[str, list[str]]:
    """The settings' map of float network files to their int8 copies, each to its copies
    in the order they are tried ({} where they name none); ValueError where it is not
    such a map or a copy is missing from `folder`."""
    files = info.get(INT8_KEY, {})
    example = ('{"index_verifier.onnx": ["index_verifier_int8.onnx", '
               '"index_verifier_int8w7.onnx"]}')
    if not isinstance(files, dict):
        raise ValueError(f"{INT8_KEY} must map network files to their int8 copies, e.g. "
                         f"{example}")
    tried: dict[str, list[str]] = {}
    for name, copies in files.items():
        listed = [copies] if isinstance(copies, str) else copies
        if not (isinstance(listed, list) and listed
                and all(isinstance(copy, str) for copy in listed)):
            raise ValueError(f"{INT8_KEY} must map network files to their int8 copies, "
                             f"e.g. {example}")
        for copy in listed:
            if not (folder / copy).is_file():
                raise ValueError(f"{copy} (named in {INT8_KEY}) not found: make it with "
                                 f"`python tools/quantize_verifiers.py` or take it out of "
                                 f"{INT8_KEY}")
        tried[name] = list(listed)
    return tried


# A CPU's int8 arithmetic is taken as exact where, on the probe crops, its run of a copy
# moves no probability by more than this from the copy's own QDQ arithmetic worked in
# float. Where a CPU's 8-bit dot products saturate (x86-64 with AVX2 but no VNNI), they
# moved it by 0.9 to 1.0 (docs/vision-measurements.md, "int8 copies on a CPU that
# saturates"); the quantization itself, against the float files, by up to 0.12.
EXACT_TOLERANCE = 0.1
_PROBE_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


@functools.cache
def probe_crops(crop: CropSize = CROP_SIZE) -> np.ndarray:
    """Verifier inputs of corner-like pairs: each rank drawn on a white card over felt at
    three sizes, in red or black, over a round, pointed or diamond pip, cut as the first
    look cuts a pair (at `crop`, the verifier's crop size). Drawn here, so the check needs no
    file and no artwork."""
    image = np.full((720, 1280, 3), (40, 110, 30), np.uint8)
    ranks, pips = [], []
    for k, rank in enumerate(_PROBE_RANKS):
        for s, size in enumerate((0.6, 0.9, 1.3)):
            x, y = 20 + k * 95, 20 + s * 230
            ink = (30, 30, 200) if (k + s) % 2 == 0 else (20, 20, 20)
            cv2.rectangle(image, (x, y), (x + 85, y + 210), (245, 245, 245), -1)
            cv2.putText(image, rank, (x + 4, y + int(30 * size)), cv2.FONT_HERSHEY_SIMPLEX,
                        size, ink, 2, cv2.LINE_AA)
            r = int(9 * size)
            cx, cy = x + 4 + int(12 * size), y + int(30 * size) + int(22 * size)
            shape = (k + 2 * s) % 4
            if shape == 0:
                cv2.circle(image, (cx, cy), r, ink, -1, cv2.LINE_AA)
            else:
                corners = {1: [(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)],
                           2: [(cx, cy - r), (cx + r, cy + r), (cx - r, cy + r)],
                           3: [(cx - r, cy - r), (cx + r, cy - r), (cx, cy + r)]}[shape]
                cv2.fillPoly(image, [np.array(corners, np.int32)], ink, cv2.LINE_AA)
            ranks.append((x + 4 + 10 * size, y + 18 * size))
            pips.append((cx, cy))
    return net_input(cut_all(image, np.array(ranks, np.float32), np.array(pips, np.float32),
                             crop))


def int8_drift(copy: Path) -> float:
    """How far this CPU's int8 run of `copy` moves the probabilities of the probe crops
    from the copy's QDQ arithmetic worked in float (onnxruntime with its graph left
    unoptimized runs each QuantizeLinear and DequantizeLinear as written): the largest
    change of any class's probability, over every output. Worked out once a process for
    each version of a file (its size and time of change)."""
    stat = copy.stat()
    return _drift_of(copy.resolve(), stat.st_size, stat.st_mtime_ns)


@functools.cache
def _drift_of(copy: Path, size: int, changed_ns: int) -> float:
    import onnxruntime  # type: ignore[import-not-found]

    def session(level: Any) -> Any:
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.graph_optimization_level = level
        try:
            return onnxruntime.InferenceSession(str(copy), options,
                                                providers=["CPUExecutionProvider"])
        except Exception as error:  # onnxruntime's own kinds (InvalidProtobuf, Fail...)
            raise unreadable(copy, error) from None

    levels = onnxruntime.GraphOptimizationLevel
    as_run, as_written = session(levels.ORT_ENABLE_ALL), session(levels.ORT_DISABLE_ALL)
    given = as_run.get_inputs()[0]
    height, width = given.shape[2:]  # the verifier's crop: 36x24, or a finer cut
    feed = {given.name: probe_crops((int(height), int(width)))}
    names = [o.name for o in as_run.get_outputs() if o.name != "embedding"]
    run, written = as_run.run(names, feed), as_written.run(names, feed)
    return max(float(np.abs(softmax(a) - softmax(b)).max())
               for a, b in zip(run, written, strict=True))


def exact_copies(copies: dict[str, list[str]], folder: Path
                 ) -> tuple[dict[str, str], list[str]]:
    """For each network, the first of its copies that this CPU runs exactly, and a line for
    each copy tried that it does not (where none is kept, the float file runs)."""
    kept: dict[str, str] = {}
    refused: list[str] = []
    for name, tried in copies.items():
        for k, copy in enumerate(tried):
            drift = int8_drift(folder / copy)
            if drift <= EXACT_TOLERANCE:
                kept[name] = copy
                break
            then = f"{tried[k + 1]} is tried" if k + 1 < len(tried) else f"{name} runs instead"
            refused.append(f"{copy}: this CPU's int8 arithmetic moves its probabilities by "
                           f"up to {drift:.2f} (its int8 sums are not exact); {then}")
    return kept, refused
