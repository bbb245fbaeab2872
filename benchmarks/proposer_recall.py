"""How many visible index corners the learnt proposer (`vision.proposer`) finds alone,
how well it places their rank and pip, and how long it takes.

    python benchmarks/proposer_recall.py [--decks NAME ...] [--n-per-deck 20] [--seed 502]
                                         [--model ONNX] [--thresholds 0.1 0.2 0.3 0.5]

For each threshold: the visible corners with a proposal whose rank-pip midpoint lies
within 0.12 card widths of the corner (as `vision_real_decks.py` counts the finder's
pairs), proposals a frame, and for the corners found, the median distance of the
proposed rank and pip centres from the true ones (in index scales: the true
rank-to-pip distance). Then the network's time a frame on one core. The decks
default to the ten training decks (fresh scenes); font-drawn decks come from
$TABLECTL_FONT_DECKS.
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

from bench_vision import rendered_scenes  # noqa: E402
from corner_losses import PROPOSED_REACH  # noqa: E402
from vision_real_decks import one_core  # noqa: E402

from vision.networks import Network  # noqa: E402
from vision.proposer import PROPOSER_FILE, IndexProposer, decode, network_input  # noqa: E402


def main(argv: Sequence[str] | None = None) -> int:
    from hwsim.camera.artwork import TRAINING_DECKS

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decks", nargs="+", default=list(TRAINING_DECKS))
    parser.add_argument("--n-per-deck", type=int, default=20)
    parser.add_argument("--seed", type=int, default=502)
    parser.add_argument("--model", type=Path, default=ROOT / "vision" / "models" / PROPOSER_FILE)
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0.1, 0.2, 0.3, 0.5])
    args = parser.parse_args(argv)
    if not args.model.exists():
        parser.error(f"no proposer at {args.model}: train it with "
                     "python tools/train_index_proposer.py")
    if not all(0.0 < t < 1.0 for t in args.thresholds):
        parser.error("--thresholds must be probabilities between 0 and 1")
    if args.n_per_deck < 1:
        parser.error("--n-per-deck must be 1 or more")
    one_core()
    proposer = IndexProposer(Network(args.model))
    found = {t: 0 for t in args.thresholds}
    count = {t: 0 for t in args.thresholds}
    error: dict[float, list[float]] = {t: [] for t in args.thresholds}
    corners, times = 0, []
    scenes = rendered_scenes(args.n_per_deck * len(args.decks), args.seed, args.decks)
    for scene in scenes:
        start = time.perf_counter()
        output = next(iter(proposer.network.run(network_input(scene.image)).values()))[0]
        times.append(1000 * (time.perf_counter() - start))
        truth = [(point, glyphs) for (_, _, points), pairs in zip(scene.truth, scene.glyphs,
                                                                   strict=True)
                 for point, glyphs in zip(points, pairs, strict=True)]
        corners += len(truth)
        reach = PROPOSED_REACH * scene.card_width
        for t in args.thresholds:
            ranks, pips, _ = decode(output, t, proposer.stride)
            count[t] += len(ranks)
            mids = (ranks + pips) / 2
            for point, (rank, pip) in truth:
                if not len(mids):
                    continue
                gaps = np.hypot(mids[:, 0] - point[0], mids[:, 1] - point[1])
                k = int(np.argmin(gaps))
                if gaps[k] <= reach:
                    found[t] += 1
                    scale = max(float(np.hypot(pip[0] - rank[0], pip[1] - rank[1])), 1.0)
                    error[t].append(max(float(np.hypot(*(ranks[k] - rank))),
                                        float(np.hypot(*(pips[k] - pip)))) / scale)
    frames = len(times)
    print(f"{frames} scenes of {len(args.decks)} decks, seed {args.seed}, {corners} visible "
          f"index corners; {args.model.name}")
    print(f"  {'threshold':>9} {'found':>8} {'proposals a frame':>18} {'median placing error':>21}")
    for t in args.thresholds:
        place = f"{np.median(error[t]):.3f}" if error[t] else "-"
        print(f"  {t:>9.2f} {found[t] / max(corners, 1):>8.2%} {count[t] / max(frames, 1):>18.1f} "
              f"{place:>21}")
    print(f"  network: {np.median(times):.1f} ms median, {np.percentile(times, 95):.1f} ms p95 "
          f"a frame, one core ({proposer.network.runtime})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
