"""Make the int8 copies of the camera's verifier networks, for onnxruntime.

    python tools/quantize_verifiers.py [--model vision/models/index_classifier.onnx]
        [--decks NAME ...] [--scenes 60] [--seed 11] [--weight-bits 8 [7]]

Each verifier the settings name (`verifier_model` and the second views' files)
is quantized with onnxruntime's static quantization (weights int8 per output
channel, activations uint8, QDQ format) into `<name>_int8.onnx` beside it
(`--weight-bits 8 7`: and with 7-bit weights into `<name>_int8w7.onnx`, whose
sums a CPU with AVX2 but no VNNI cannot overflow); the settings file gets
`"int8_verifiers"` (float file -> its copies, in the order the recognizer tries
them) and `"int8_calibration"` (what the ranges were measured on). The recognizer
runs the first copy this CPU runs exactly where onnxruntime runs its networks
(`vision.quantized`).

The activation ranges are measured on the crops the recognizer itself gives the
verifiers: scenes of the real training decks (`hwsim.camera.artwork.
TRAINING_DECKS`; held-out designs are refused), every pair the classifier
sends to the verifier, cut as the first look cuts it and as each second view
does (at the verifier's own crop size, where `view_crops` names a finer one).
Same model, decks, scenes and seed: same files.

Needs the `onnx` package (`pip install 'tablectl[train]'`); never needed at run time.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim")]

from hwsim.camera.artwork import HELD_OUT_DECKS, TRAINING_DECKS  # noqa: E402
from hwsim.camera.dataset import generate_scenes  # noqa: E402
from hwsim.camera.designs import HELD_OUT_DESIGNS  # noqa: E402

from vision.features import CROP_SIZE, CropSize, cut_all, net_input  # noqa: E402
from vision.quantized import INT8_KEY, WEIGHT_BITS, int8_name  # noqa: E402
from vision.recognizer import (  # noqa: E402
    MODEL_FILE,
    NOT_INDEX,
    ModelError,
    Recognizer,
    candidate_features,
)
from vision.second_look import turned_pairs  # noqa: E402

SCENES = 60
SEED = 11  # not a seed the benchmarks' choosing sets use (502, 601, 801)


def calibration_batches(recognizer: Recognizer, decks: Sequence[str], scenes: int,
                        seed: int, size: CropSize = CROP_SIZE) -> list[np.ndarray]:
    """The verifier inputs of `scenes` scenes of `decks`: per scene, the first cut of the
    pairs the classifier sends on, then each second view's cut of them (at `size`, the
    crop of the verifier to be quantized)."""
    batches = []
    views = sorted({(degrees, scale) for degrees, scale, _ in recognizer.second_views})
    for scene in generate_scenes(scenes, seed, list(decks)):
        features, rank_at, suit_at, crops = candidate_features(scene.image,
                                                               recognizer.looks_like_index)
        if features.shape[0] == 0:
            continue
        rank_p, _ = recognizer.classify(features)
        look = np.flatnonzero(rank_p[:, NOT_INDEX] < recognizer.verify_below)
        if look.size == 0:
            continue
        batches.append(net_input(crops[look] if size == CROP_SIZE else
                                 cut_all(scene.image, rank_at[look], suit_at[look], size)))
        for degrees, scale in views:
            first, second = turned_pairs(rank_at[look], suit_at[look], degrees, scale)
            batches.append(net_input(cut_all(scene.image, first, second, size)))
    return batches


def quantize(source: Path, target: Path, batches: list[np.ndarray],
             weight_bits: int = 8) -> None:
    """`source` quantized into `target`, its activation ranges measured on `batches`, its
    weights in `weight_bits` bits (8, or 7)."""
    import onnxruntime  # type: ignore[import-not-found]
    from onnxruntime.quantization import (  # type: ignore[import-not-found]
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    input_name = onnxruntime.InferenceSession(
        str(source), providers=["CPUExecutionProvider"]).get_inputs()[0].name

    class Crops(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self._batches: Iterator[np.ndarray] = iter(batches)

        def get_next(self) -> dict[str, np.ndarray] | None:
            batch = next(self._batches, None)
            return None if batch is None else {input_name: batch}

    # Weights in 7 bits (reduce_range) where asked: a processor with AVX2 but no VNNI
    # adds pairs of uint8 x int8 products in 16 bits, which 8-bit weights can overflow.
    quantize_static(str(source), str(target), Crops(), quant_format=QuantFormat.QDQ,
                    per_channel=True, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, reduce_range=weight_bits == 7)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=MODEL_FILE,
                        help="the classifier .onnx whose settings name the verifiers")
    parser.add_argument("--decks", nargs="+", default=list(TRAINING_DECKS),
                        help="designs whose scenes calibrate (default: the real training decks)")
    parser.add_argument("--scenes", type=int, default=SCENES)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--weight-bits", type=int, nargs="+", choices=WEIGHT_BITS,
                        default=[8],
                        help="the copies to make, in the order they are tried (default: 8; "
                             "8 7 adds 7-bit copies, exact on a processor with AVX2 but no "
                             "VNNI, and no faster there than the float files)")
    args = parser.parse_args(argv)
    if set(args.decks) & (set(HELD_OUT_DECKS) | set(HELD_OUT_DESIGNS)):
        parser.error("held-out designs are never used to make the networks")
    if len(set(args.weight_bits)) != len(args.weight_bits):
        parser.error("--weight-bits names a width twice")
    if args.scenes < 1:
        parser.error("--scenes must be at least 1")
    try:
        import onnx  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        parser.error("quantizing needs the onnx package: pip install 'tablectl[train]'")
    info_path = args.model.with_suffix(".json")
    try:
        # OpenCV runs the float files only; the verifiers are not run here anyway.
        recognizer = Recognizer(args.model, runtime="opencv")
    except ModelError as exc:
        parser.error(str(exc))
    info = json.loads(info_path.read_text(encoding="utf-8"))
    if not info.get("verifier_model"):
        parser.error(f"{info_path.name} names no verifier: nothing to quantize")
    names = [info["verifier_model"], *sorted({v[2] for v in recognizer.second_views if v[2]})]
    batches_of: dict[CropSize, list[np.ndarray]] = {}
    for size in sorted({recognizer.view_crops.get(name, CROP_SIZE) for name in names}):
        try:
            batches_of[size] = calibration_batches(recognizer, args.decks, args.scenes,
                                                   args.seed, size)
        except (KeyError, ValueError) as exc:  # a design the renderer does not know
            parser.error(f"cannot render the calibration scenes: {exc}")
        if not batches_of[size]:
            parser.error("the scenes gave no crops to calibrate on")
        print(f"{sum(b.shape[0] for b in batches_of[size])} crops ({size[0]}x{size[1]}) of "
              f"{args.scenes} scenes (seed {args.seed}) of {', '.join(args.decks)}")
    folder = args.model.parent
    int8_files: dict[str, str | list[str]] = {}
    for name in names:
        batches = batches_of[recognizer.view_crops.get(name, CROP_SIZE)]
        copies = [int8_name(name, bits) for bits in args.weight_bits]
        for bits, copy in zip(args.weight_bits, copies, strict=True):
            quantize(folder / name, folder / copy, batches, bits)
        print(f"{name} -> {', '.join(copies)}")
        int8_files[name] = copies[0] if len(copies) == 1 else copies  # one copy: its name
    info[INT8_KEY] = int8_files
    info["int8_calibration"] = {"decks": list(args.decks), "scenes": args.scenes,
                                "seed": args.seed}
    if args.weight_bits != [8]:  # the shipped settings, made with 8 alone, do not name it
        info["int8_calibration"]["weight_bits"] = list(args.weight_bits)
    info_path.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
