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
only 30-80% open (`partial_points`) is neither required nor counted against it.
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
import math
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim")]

from wrong_places import wrong_place  # noqa: E402

TARGET_PRECISION = 0.995
TARGET_RECALL = 0.995
TARGET_HANDS = 0.98
TARGET_MS = 40.0
MATCH_RADIUS = 0.25  # card widths


@dataclass
class Scene:
    """A frame and its truth, from the renderer or a dataset folder."""

    name: str
    design: str
    image: np.ndarray
    card_width: float
    layout: dict[str, Any]
    truth: list[tuple[str, str, list[tuple[float, float]]]]  # card, box, visible points
    partial: list[tuple[str, list[tuple[float, float]]]]  # card, 30-80% open index points
    variations: dict[str, Any] = field(default_factory=dict)  # what spoils the picture
    # Per truth entry, per visible point: the rank glyph's and the suit pip's image centres
    # (rendered scenes only; empty for a dataset folder).
    glyphs: list[list[tuple[tuple[float, float], tuple[float, float]]]] = field(
        default_factory=list)


# Conditions the figures are also broken down by (a scene can meet several).
CONDITIONS: dict[str, Callable[[Scene], bool]] = {
    "cards under 100 px": lambda s: s.card_width < 100,
    "strong tilt (> 0.7)": lambda s: s.variations.get("tilt", 0) > 0.7,
    "uneven light (> 0.7)": lambda s: s.variations.get("uneven_light", 0) > 0.7,
    "glare": lambda s: s.variations.get("glare", 0) > 0,
    "hand shadows": lambda s: s.variations.get("shadows", 0) > 0,
    "motion blur": lambda s: s.variations.get("motion_blur", 0) > 0,
    "JPEG quality under 70": lambda s: (s.variations.get("jpeg_quality") or 100) < 70,
    "6 or more chip stacks": lambda s: s.variations.get("chips", 0) >= 6,
    "dealer's arm": lambda s: s.variations.get("arms", 0) > 0,
}


@dataclass
class Score:
    detections: int = 0
    matched: int = 0
    second_reads: int = 0
    partial_reads: int = 0
    truth_cards: int = 0
    truth_read: int = 0
    hands: int = 0
    hands_right: int = 0
    scenes: int = 0
    times_ms: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    false_reads: list[str] = field(default_factory=list)
    # condition -> [scenes, truth cards, cards read, detections, matched detections]
    by_condition: dict[str, list[int]] = field(default_factory=dict)
    missed_at: list[tuple[float, float]] = field(default_factory=list)  # this frame's only
    wrong_at: list[tuple[str, float, float]] = field(default_factory=list)  # this frame's only
    # Where the wrong reads lie (one of wrong_places.WRONG_PLACES) -> count
    wrong_where: Counter[str] = field(default_factory=Counter)

    def add(self, other: Score) -> None:
        for name in ("detections", "matched", "second_reads", "partial_reads", "truth_cards",
                     "truth_read",
                     "hands", "hands_right", "scenes"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.times_ms += other.times_ms
        self.misses += other.misses
        self.false_reads += other.false_reads
        self.wrong_where.update(other.wrong_where)
        for name, counts in other.by_condition.items():
            mine = self.by_condition.setdefault(name, [0] * len(counts))
            for k, value in enumerate(counts):
                mine[k] += value

    @property
    def precision(self) -> float:
        return self.matched / self.detections if self.detections else 1.0

    @property
    def recall(self) -> float:
        return self.truth_read / self.truth_cards if self.truth_cards else 1.0

    @property
    def hand_rate(self) -> float:
        return self.hands_right / self.hands if self.hands else 1.0

    @property
    def median_ms(self) -> float:
        return statistics.median(self.times_ms) if self.times_ms else math.nan


def score_scene(scene: Scene, detections: Sequence[Any], elapsed_ms: float) -> Score:
    """Match one frame's detections against its truth (see the module's scoring rules)."""
    score = Score(scenes=1, times_ms=[elapsed_ms])
    visible = [(card, box, pts) for card, box, pts in scene.truth if pts]
    score.truth_cards = len(visible)
    radius = MATCH_RADIUS * scene.card_width
    pairs = []
    for d_index, det in enumerate(detections):
        for t_index, (card, _, pts) in enumerate(visible):
            if card != det.card:
                continue
            dist = min(math.dist((det.x, det.y), p) for p in pts)
            if dist <= radius:
                pairs.append((dist, d_index, t_index))
    det_match: dict[int, int] = {}
    truth_match: set[int] = set()
    for _, d_index, t_index in sorted(pairs):
        if d_index in det_match or t_index in truth_match:
            continue
        det_match[d_index] = t_index
        truth_match.add(t_index)
    second = {d for _, d, t in pairs if d not in det_match and t in truth_match}
    # A read of an index that is only partly open is neither required nor wrong.
    partial_reads: set[int] = set()
    for d_index, det in enumerate(detections):
        if d_index in det_match or d_index in second:
            continue
        for card, pts in scene.partial:
            if card == det.card and min(math.dist((det.x, det.y), p) for p in pts) <= radius:
                partial_reads.add(d_index)
                break
    score.partial_reads = len(partial_reads)
    score.second_reads = len(second)
    score.detections = len(detections) - len(second) - len(partial_reads)
    score.matched = len(det_match)
    score.truth_read = len(truth_match)
    for t_index, (card, box, pts) in enumerate(visible):
        if t_index not in truth_match:
            x, y = pts[0]
            score.misses.append(f"{scene.name}: {card} in {box} at ({x:.0f}, {y:.0f}) not read")
            score.missed_at.extend(pts)
    for d_index, det in enumerate(detections):
        if d_index not in det_match and d_index not in second | partial_reads:
            score.false_reads.append(f"{scene.name}: read {det.card} at ({det.x:.0f}, "
                                     f"{det.y:.0f}) in {det.box}, conf {det.confidence:.2f}")
            score.wrong_at.append((det.card, det.x, det.y))
            score.wrong_where[wrong_place(scene, det.x, det.y, radius)] += 1
    truth_by_box: dict[str, set[str]] = {}
    for card, box, _ in visible:
        truth_by_box.setdefault(box, set()).add(card)
    seen_by_box: dict[str, set[str]] = {}
    for d_index, det in enumerate(detections):
        if det.box is not None and d_index not in partial_reads:
            seen_by_box.setdefault(det.box, set()).add(det.card)
    for box in set(truth_by_box) | set(seen_by_box):
        score.hands += 1
        score.hands_right += truth_by_box.get(box, set()) == seen_by_box.get(box, set())
    for name, applies in CONDITIONS.items():
        if applies(scene):
            score.by_condition[name] = [1, score.truth_cards, score.truth_read,
                                        score.detections, score.matched]
    return score


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
                    [list(t.index_glyphs) for t in rendered.truth])


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
        yield Scene(path.stem, doc["design"], image, float(doc["card_width"]), doc["layout"],
                    truth, partial, doc.get("variations", {}))


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
          f"{s.second_reads} second reads, {s.partial_reads} reads of partly open indices): "
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
