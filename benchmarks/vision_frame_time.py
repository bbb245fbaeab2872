"""Time sets of the recognizer's networks frame by frame in turn, on one core.

    python benchmarks/vision_frame_time.py shipped var/other/index_classifier.onnx
        [--decks NAME ...] [--n-per-deck 25] [--seed 17] [--rounds 2]

Frame times on a shared machine drift by several milliseconds from one run to
the next, more than most changes cost, so two runs one after the other can
say little about which set is faster. Here every frame is read by each set in
turn (the order changing from frame to frame), so drift falls on all alike,
and the median of the paired differences says what one set costs over the
first. Only times are printed: what the sets read is for
`vision_real_decks.py` (the held-out decks, the default here, as the frame
target is theirs) and `compare_models.py`.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim"), str(ROOT / "benchmarks")]

from bench_vision import load_recognizer, rendered_scenes  # noqa: E402
from vision_real_decks import one_core  # noqa: E402


def frame_times(models: Sequence[str], decks: Sequence[str], n_per_deck: int, seed: int,
                rounds: int) -> list[np.ndarray]:
    """Milliseconds a frame of each set (one row per set, one column per frame read)."""
    from vision.layout import layout_from_dict

    recognizers = [load_recognizer(None if m == "shipped" else Path(m)) for m in models]
    one_core()
    scenes = rendered_scenes(n_per_deck * len(decks), seed, list(decks))
    times: list[list[float]] = [[] for _ in models]
    for number, scene in enumerate(scenes):
        layout = layout_from_dict(scene.layout)
        for repeat in range(rounds):
            turn = (number + repeat) % len(models)
            for which in [*range(turn, len(models)), *range(turn)]:
                started = time.perf_counter()
                recognizers[which].detect_all(scene.image, layout)
                times[which].append((time.perf_counter() - started) * 1000.0)
    return [np.array(t) for t in times]


def main(argv: Sequence[str] | None = None) -> int:
    from hwsim.camera.artwork import HELD_OUT_DECKS

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", help="classifier .onnx files, or shipped")
    parser.add_argument("--decks", nargs="+", default=list(HELD_OUT_DECKS))
    parser.add_argument("--n-per-deck", type=int, default=25)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--rounds", type=int, default=2, help="reads of each frame by each set")
    args = parser.parse_args(argv)
    if args.n_per_deck < 1 or args.rounds < 1:
        parser.error("--n-per-deck and --rounds must be at least 1")
    from hwsim.camera.artwork import FONT_DECK_PREFIXES, corpus_folder
    from hwsim.camera.dataset import resolve_designs
    from hwsim.camera.deck_corpus import ensure_corpus

    # Font-drawn decks come from $TABLECTL_FONT_DECKS; the corpus renders real ones it lacks.
    try:
        ensure_corpus(corpus_folder(),
                      decks=[d for d in args.decks if "-" in d
                             and not d.startswith(FONT_DECK_PREFIXES)])
        resolve_designs(list(args.decks))
    except (ValueError, RuntimeError) as error:
        parser.error(str(error))
    times = frame_times(args.models, args.decks, args.n_per_deck, args.seed, args.rounds)
    print(f"{len(times[0])} frame reads of each set ({args.n_per_deck} scenes of each of "
          f"{len(args.decks)} decks, seed {args.seed}, {args.rounds} each), one core, in turn")
    for model, ms in zip(args.models, times, strict=True):
        line = (f"  {model}: median {np.median(ms):.1f} ms, p95 {np.percentile(ms, 95):.1f} ms, "
                f"mean {ms.mean():.1f} ms")
        if ms is not times[0]:
            line += (f"; over the first, median of the differences "
                     f"{np.median(ms - times[0]):+.1f} ms")
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
