"""Time the recognizer's networks under OpenCV's dnn module and under onnxruntime.

    python benchmarks/bench_inference_runtimes.py [--repeat 200] [--batch 32 128]

Both run the shipped ONNX files (`vision/models/`) on one thread, as the
recognizer runs them (`vision.networks.Network`), on batches
of the sizes a frame gives (the filter and classifier see every candidate
pair that passes the glance; the verifier the few the classifier may take).
onnxruntime is not a dependency of the project: `pip install onnxruntime` to
include it. Where the settings name an int8 copy of a network (`vision.quantized`),
it is timed on onnxruntime too ("onnxruntime-int8"). Prints the median and 95th
percentile milliseconds per batch and checks that both runtimes give the same
outputs for the same file.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from vision.networks import Network  # noqa: E402
from vision.quantized import INT8_KEY  # noqa: E402
from vision.recognizer import MODEL_DIR, MODEL_INFO  # noqa: E402

Runner = Callable[[np.ndarray], dict[str, np.ndarray]]


def opencv_runner(path: Path) -> Runner:
    return Network(path, "opencv").run


def onnxruntime_runner(path: Path) -> Runner | None:
    """The recognizer's own onnxruntime session (one thread, subnormals flushed)."""
    try:
        return Network(path, "onnxruntime").run
    except ValueError:  # not installed
        return None


def timed(run: Runner, batch: np.ndarray, repeat: int) -> list[float]:
    run(batch)  # warm up
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run(batch)
        times.append((time.perf_counter() - started) * 1000.0)
    return times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--batch", type=int, nargs="+", default=[32, 128])
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    info = json.loads(Path(MODEL_INFO).read_text(encoding="utf-8"))
    networks = {"filter": (MODEL_DIR / info["filter_model"], (99,)),
                "classifier": (MODEL_DIR / "index_classifier.onnx", (info["feature_size"],)),
                "verifier": (MODEL_DIR / info["verifier_model"], (3, 36, 24))}
    rng = np.random.default_rng(0)
    print(f"{'network':<12}{'batch':>6}{'runtime':>18}{'median ms':>11}{'p95 ms':>9}")
    for name, (path, shape) in networks.items():
        runners = {"opencv-dnn": opencv_runner(path), "onnxruntime": onnxruntime_runner(path)}
        int8_copy = info.get(INT8_KEY, {}).get(path.name)
        if int8_copy:  # the copy the recognizer runs on onnxruntime (vision.quantized)
            runners["onnxruntime-int8"] = onnxruntime_runner(MODEL_DIR / int8_copy)
        for size in args.batch:
            batch = rng.normal(0, 0.5, (size, *shape)).astype(np.float32)
            reference = None
            for runtime, run in runners.items():
                if run is None:
                    print(f"{name:<12}{size:>6}{runtime:>18}   (not installed: "
                          "pip install onnxruntime)")
                    continue
                outputs = run(batch)
                if reference is None:
                    reference = outputs
                elif not runtime.endswith("int8"):  # an int8 copy computes other numbers
                    worst = max(float(np.abs(outputs[k] - reference[k]).max())
                                for k in reference)
                    if worst > 1e-3:
                        print(f"  warning: {runtime} differs from opencv-dnn by {worst:.2g}")
                times = timed(run, batch, args.repeat)
                p95 = float(np.percentile(times, 95))
                print(f"{name:<12}{size:>6}{runtime:>18}{statistics.median(times):>11.3f}"
                      f"{p95:>9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
