"""Compare two sets of the recognizer's networks on the same scenes, corner by corner.

    python benchmarks/compare_models.py A/index_classifier.onnx B/index_classifier.onnx
        [--decks NAME ...] [--n-per-deck 20] [--seed 502]

`shipped` names the shipped networks. Two sets this close read most corners
alike, so two totals say little: a difference of ten wrong reads in a hundred
is counting noise. Here both read the very same scenes and only the corners on
which they differ count: the visible index corners one reads right and the
other does not, and the wrong reads one makes and the other does not. For each
the exact two-sided sign test gives the chance of a split at least that uneven
if neither set were better (below 0.05: a real difference).

Decks default to the ten real training decks (fresh scenes: the validation
set); `fontval-` decks come from $TABLECTL_FONT_DECKS. The held-out decks are
refused: they are read once a choice is made (`vision_real_decks.py`), never
to make it.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim"), str(ROOT / "benchmarks")]

from bench_vision import Scene, Score, load_recognizer, rendered_scenes, score_scene  # noqa: E402

SIGNIFICANT = 0.05


def sign_test(first: int, second: int) -> float:
    """Exact two-sided sign test: the chance of a split of `first` + `second` discordant
    items at least as uneven as this one, each item going either way at even odds."""
    n = first + second
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(first, second) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


@dataclass
class Reading:
    """What one set of networks made of the scenes."""

    score: Score = field(default_factory=Score)
    missed: set[str] = field(default_factory=set)  # visible corners not read right
    wrong: set[tuple[str, str, int, int]] = field(default_factory=set)  # scene, card, x, y


def read_scenes(scenes: Iterable[Scene], recognizers: Sequence[Any]) -> list[Reading]:
    from vision.layout import layout_from_dict

    readings = [Reading() for _ in recognizers]
    for scene in scenes:
        layout = layout_from_dict(scene.layout)
        for recognizer, reading in zip(recognizers, readings, strict=True):
            score = score_scene(scene, recognizer.detect(scene.image, layout), 0.0)
            reading.score.add(score)
            reading.missed.update(score.misses)
            reading.wrong.update((scene.name, card, round(x), round(y))
                                 for card, x, y in score.wrong_at)
    return readings


def report(names: Sequence[str], first: Reading, second: Reading) -> None:
    for name, reading in zip(names, (first, second), strict=True):
        s = reading.score
        print(f"  {name}: {s.matched} right, {s.detections - s.matched} wrong, "
              f"precision {s.precision:.2%}, recall {s.recall:.2%} of {s.truth_cards} "
              f"corners, hands {s.hand_rate:.2%}")
    rows = [("corners read right by one only", len(second.missed - first.missed),
             len(first.missed - second.missed)),
            ("wrong reads made by one only", len(first.wrong - second.wrong),
             len(second.wrong - first.wrong))]
    for what, by_first, by_second in rows:
        chance = sign_test(by_first, by_second)
        verdict = "a real difference" if chance < SIGNIFICANT else "within chance"
        print(f"  {what}: {names[0]} {by_first}, {names[1]} {by_second} "
              f"(sign test p = {chance:.3f}: {verdict})")


def main(argv: Sequence[str] | None = None) -> int:
    from hwsim.camera.artwork import FONT_DECK_PREFIXES, HELD_OUT_DECKS, TRAINING_DECKS
    from hwsim.camera.dataset import resolve_designs

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs=2, help="two classifier .onnx files, or shipped")
    parser.add_argument("--decks", nargs="+", default=list(TRAINING_DECKS))
    parser.add_argument("--n-per-deck", type=int, default=20)
    parser.add_argument("--seed", type=int, default=502)
    args = parser.parse_args(argv)
    if args.n_per_deck < 1:
        parser.error("--n-per-deck must be 1 or more")
    held_out = sorted(set(args.decks) & set(HELD_OUT_DECKS))
    if held_out:
        parser.error(f"{', '.join(held_out)}: held-out decks are read once a choice is made "
                     "(benchmarks/vision_real_decks.py), never to make it")
    try:
        resolve_designs([d for d in args.decks if d.startswith(FONT_DECK_PREFIXES)])
    except ValueError as error:
        parser.error(str(error))
    recognizers = [load_recognizer(None if m == "shipped" else Path(m)) for m in args.models]
    scenes = rendered_scenes(args.n_per_deck * len(args.decks), args.seed, args.decks)
    print(f"{args.n_per_deck} scenes of each of {len(args.decks)} decks, seed {args.seed}; "
          f"A = {args.models[0]}, B = {args.models[1]}")
    report(["A", "B"], *read_scenes(scenes, recognizers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
