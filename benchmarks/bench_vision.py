"""Score the card recognizer on rendered table scenes; print precision, recall, hands, speed.

    python benchmarks/bench_vision.py [--n 200] [--n-tuning 100] [--seed 7]
    python benchmarks/bench_vision.py --from DIR    # scenes written by hwsim.camera.dataset
    python benchmarks/bench_vision.py --model M.onnx  # a freshly trained classifier

Scenes are 1280x720 frames with 3-7 boxes of fanned hands (card width
85-140 px), tilt, uneven light, glare, shadows, blur, JPEG, chips and
face-down cards (`hwsim.camera.dataset.random_spec`). The held-out designs,
never used to train or tune the recognizer, make the main set (`--n` scenes);
the tuning designs are scored apart (`--n-tuning` scenes).

Scoring, per design and per group: a detection matches a truth card of the same
code within 0.25 card widths of one of its visible index points, each truth card
once (a second read of a matched card counts neither way); a read of an index
only 30-80% open (`partial_points`) is neither required nor counted against it,
nor is a read of a card at its own index corner hidden further (`hidden_points`),
where no other card's index is open.
Precision = matched detections / detections; recall = truth cards read / truth
cards with a visible index; a hand is exactly right when the cards put in a box
(with the scene's layout) are that box's truth; detect time is the median ms per
frame, OpenCV on one thread, the process on one core. Also broken down by
condition (small cards, tilt, light, glare, shadows, blur, JPEG, chips, an arm).

Targets: precision and recall 99.5% or more, 98% of hands exactly right, a
median of 40 ms or less per frame.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim")]

from scene_scoring import CONDITIONS, MATCH_RADIUS, Scene, Score, score_scene  # noqa: E402

TARGET_PRECISION = 0.995
TARGET_RECALL = 0.995
TARGET_HANDS = 0.98
TARGET_MS = 40.0

# The scoring lives in `scene_scoring`; the benchmarks built on this one import it here.
__all__ = ["CONDITIONS", "MATCH_RADIUS", "Scene", "Score", "score_scene"]


def rendered_scenes(n: int, seed: int, designs: Sequence[str],
                    jpeg_qualities: tuple[int, int] | None = None) -> Iterator[Scene]:
    """`n` scenes of `designs`; `jpeg_qualities` (lowest, highest) spreads the compressed
    scenes' JPEG quality over that range instead of the training sets' 50-95."""
    from hwsim.camera.dataset import JPEG_QUALITIES, generate_scenes

    qualities = jpeg_qualities or JPEG_QUALITIES
    for i, rendered in enumerate(generate_scenes(n, seed, list(designs),
                                                 jpeg_qualities=qualities), start=1):
        yield Scene(f"{rendered.design}#{i}", rendered.design, rendered.image,
                    rendered.card_width, rendered.layout,
                    [(t.card, t.box, list(t.index_points)) for t in rendered.truth],
                    [(t.card, list(t.partial_points)) for t in rendered.truth
                     if t.partial_points], dict(rendered.meta.get("variations", {})),
                    [list(t.index_glyphs) for t in rendered.truth],
                    [(t.card, list(t.hidden_points)) for t in rendered.truth
                     if t.hidden_points])


def folder_scenes(folder: Path) -> Iterator[Scene]:
    files = sorted(folder.glob("scene_*.json"))
    if not files:
        raise SystemExit(f"no scene_*.json files in {folder}: write a set with "
                         "`python -m hwsim.camera.dataset --out DIR`")
    for path in files:
        doc = json.loads(path.read_text(encoding="utf-8"))
        image_path = path.with_name(doc.get("image", path.with_suffix(".png").name))
        image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if image is None:
            raise SystemExit(f"cannot read the image {image_path} of {path.name}")
        truth = [(t["card"], t["box"], [tuple(p) for p in t["index_points"]])
                 for t in doc["truth"]]
        partial = [(t["card"], [tuple(p) for p in t.get("partial_points", [])])
                   for t in doc["truth"] if t.get("partial_points")]
        hidden = [(t["card"], [tuple(p) for p in t.get("hidden_points", [])])
                  for t in doc["truth"] if t.get("hidden_points")]
        yield Scene(path.stem, doc["design"], image, float(doc["card_width"]), doc["layout"],
                    truth, partial, doc.get("variations", {}), [], hidden)


def load_recognizer(model: Path | None, faint_passes: bool = False,
                    proposer: bool = True) -> Any:
    """The recognizer (with the faint passes of `vision.faint_glyphs`, where asked, and
    the learnt proposer unless told not to), or exit with a message that says what is
    missing."""
    try:
        from vision.recognizer import Recognizer
    except ImportError as exc:
        raise SystemExit(f"the recognizer is not available yet ({exc}); "
                         "vision.recognizer.Recognizer is needed to run this benchmark") from None
    try:
        if model is None:
            return Recognizer(faint_passes=faint_passes, proposer=proposer)
        return Recognizer(model, model.with_suffix(".json"), faint_passes=faint_passes,
                          proposer=proposer)
    except Exception as exc:  # the model file is missing or stale: say so and stop
        raise SystemExit(f"the recognizer cannot start: {exc}") from None


def trained_on(model: Path | None) -> list[str] | None:
    """The designs the model's info file says it was trained on, if it says."""
    if model is None:
        from vision.recognizer import MODEL_INFO

        info_path = Path(MODEL_INFO)
    else:
        info_path = model.with_suffix(".json")
    try:
        designs = json.loads(info_path.read_text(encoding="utf-8")).get("designs")
    except (OSError, ValueError):
        return None
    return [str(d) for d in designs] if isinstance(designs, list) else None


def dump_scene(scene: Scene, score: Score, folder: Path) -> None:
    """Write the frame with truth (green: read, red: missed) and wrong reads (magenta)."""
    image = scene.image.copy()
    missed = set(score.missed_at)
    for card, _, pts in scene.truth:
        for x, y in pts:
            colour = (0, 0, 255) if (x, y) in missed else (0, 200, 0)
            cv2.circle(image, (int(x), int(y)), 6, colour, 2)
            cv2.putText(image, card, (int(x) + 7, int(y) - 7), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                        colour, 1, cv2.LINE_AA)
    for card, x, y in score.wrong_at:
        cv2.drawMarker(image, (int(x), int(y)), (255, 0, 255), cv2.MARKER_CROSS, 14, 2)
        cv2.putText(image, f"{card}?", (int(x) + 7, int(y) + 14), cv2.FONT_HERSHEY_SIMPLEX,
                    0.45, (255, 0, 255), 1, cv2.LINE_AA)
    cv2.imwrite(str(folder / f"{scene.name.replace('#', '_')}.png"), image)


def run(scenes: Iterable[Scene], recognizer: Any, dump: Path | None = None,
        dump_limit: int = 40) -> dict[str, Score]:
    from vision.layout import layout_from_dict

    per_design: dict[str, Score] = {}
    dumped = 0
    for scene in scenes:
        layout = layout_from_dict(scene.layout)
        started = time.perf_counter()
        detections = recognizer.detect(scene.image, layout)
        elapsed = (time.perf_counter() - started) * 1000.0
        score = score_scene(scene, detections, elapsed)
        per_design.setdefault(scene.design, Score()).add(score)
        if dump is not None and dumped < dump_limit and (score.misses or score.false_reads):
            dump_scene(scene, score, dump)
            dumped += 1
    return per_design


def _verdict(ok: bool) -> str:
    return "ok" if ok else "BELOW TARGET"


def report(title: str, per_design: dict[str, Score], verbose: int) -> Score:
    total = Score()
    print(f"\n{title}")
    print(f"  {'design':<16}{'scenes':>7}{'cards':>7}{'precision':>11}{'recall':>9}"
          f"{'hands':>9}{'median ms':>11}")
    for name in sorted(per_design):
        s = per_design[name]
        total.add(s)
        print(f"  {name:<16}{s.scenes:>7}{s.truth_cards:>7}{s.precision:>11.2%}"
              f"{s.recall:>9.2%}{s.hand_rate:>9.2%}{s.median_ms:>11.1f}")
    s = total
    print(f"  {'all':<16}{s.scenes:>7}{s.truth_cards:>7}{s.precision:>11.2%}{s.recall:>9.2%}"
          f"{s.hand_rate:>9.2%}{s.median_ms:>11.1f}")
    print(f"  precision {s.precision:.2%} ({s.matched}/{s.detections}; left out: "
          f"{s.second_reads} second reads, {s.partial_reads} reads of partly open indices, "
          f"{s.hidden_reads} of a card at its own hidden index): "
          f"{_verdict(s.precision >= TARGET_PRECISION)} "
          f"(target {TARGET_PRECISION:.1%})")
    print(f"  recall {s.recall:.2%} ({s.truth_read}/{s.truth_cards}): "
          f"{_verdict(s.recall >= TARGET_RECALL)} (target {TARGET_RECALL:.1%})")
    print(f"  hands exactly right {s.hand_rate:.2%} ({s.hands_right}/{s.hands}): "
          f"{_verdict(s.hand_rate >= TARGET_HANDS)} (target {TARGET_HANDS:.0%})")
    print(f"  median detect time {s.median_ms:.1f} ms per frame: "
          f"{_verdict(s.median_ms <= TARGET_MS)} (target {TARGET_MS:.0f} ms)")
    if s.by_condition:
        print(f"  {'under condition':<26}{'scenes':>7}{'cards':>7}{'precision':>11}"
              f"{'recall':>9}")
        for name in CONDITIONS:
            if name in s.by_condition:
                n, cards, read, dets, matched = s.by_condition[name]
                print(f"  {name:<26}{n:>7}{cards:>7}{matched / max(1, dets):>11.2%}"
                      f"{read / max(1, cards):>9.2%}")
    if verbose:
        for line in s.misses[:verbose] + s.false_reads[:verbose]:
            print(f"    {line}")
    return total


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200, help="held-out scenes (default 200)")
    parser.add_argument("--n-tuning", type=int, default=100,
                        help="scenes of the tuning designs (default 100, 0 to skip)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--from", dest="folder", type=Path, default=None,
                        help="score the scenes of a dataset folder instead of rendering")
    parser.add_argument("--all-cores", action="store_true",
                        help="do not hold the process to one core")
    parser.add_argument("--verbose", type=int, default=0, metavar="K",
                        help="list up to K misses and K false reads per group")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--dump", type=Path, default=None, metavar="DIR",
                        help="write frames with misses or wrong reads, marked, to DIR (40 "
                             "per group at most)")
    parser.add_argument("--model", type=Path, default=None,
                        help="an index classifier .onnx (with its .json) instead of the "
                             "shipped one")
    args = parser.parse_args(argv)

    from hwsim.camera.designs import HELD_OUT_DESIGNS, TUNING_DESIGNS

    if args.dump is not None:
        args.dump.mkdir(parents=True, exist_ok=True)
    recognizer = load_recognizer(args.model)
    designs_seen = trained_on(args.model)
    if designs_seen is not None:
        print(f"model trained on designs: {', '.join(designs_seen)}")
        leaked = sorted(set(designs_seen) & set(HELD_OUT_DESIGNS))
        if leaked:
            print(f"WARNING: the model was trained on held-out designs {leaked}: the held-out "
                  "figures below are not held out")
    if not args.all_cores:
        cv2.setNumThreads(1)
        if hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    held_out = set(HELD_OUT_DESIGNS)
    if args.folder is not None:
        scored = run(folder_scenes(args.folder), recognizer, args.dump)
        groups = {"held-out designs": {k: v for k, v in scored.items() if k in held_out},
                  "tuning designs": {k: v for k, v in scored.items() if k not in held_out}}
    else:
        groups = {"held-out designs": run(rendered_scenes(args.n, args.seed,
                                                          HELD_OUT_DESIGNS), recognizer,
                                          args.dump)}
        if args.n_tuning > 0:
            groups["tuning designs"] = run(rendered_scenes(args.n_tuning, args.seed + 1,
                                                           TUNING_DESIGNS), recognizer,
                                           args.dump)
    figures: dict[str, Any] = {}
    for title, per_design in groups.items():
        if not per_design:
            continue
        total = report(title, per_design, args.verbose)
        figures[title] = {
            name: {"scenes": s.scenes, "precision": s.precision, "recall": s.recall,
                   "hands_exact": s.hand_rate, "median_ms": s.median_ms}
            for name, s in [*per_design.items(), ("all", total)]}
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
