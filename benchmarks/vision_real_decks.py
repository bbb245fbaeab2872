"""Score the card recognizer on real deck designs it was never trained or tuned on.

    python benchmarks/vision_real_decks.py [--n-per-deck 40] [--seed 17] [--decks NAME ...]
    python benchmarks/vision_real_decks.py --model M.onnx   # a freshly trained model
    python benchmarks/vision_real_decks.py --faint-passes   # the camera's faint_passes on
    python benchmarks/vision_real_decks.py --no-proposer    # without the learnt proposer
    python benchmarks/vision_real_decks.py --proposer P.onnx  # another proposer in its place
    python benchmarks/vision_real_decks.py --enrolled --learnt 40   # house decks too
    python benchmarks/vision_real_decks.py --wrong-crops DIR   # a picture of each wrong read
    python benchmarks/vision_real_decks.py --jpeg-qualities 60 95  # the issue's JPEG range

Scenes (1280x720, 3-7 boxes of fanned and overlapping hands, felt colours,
tilt, uneven light, glare, shadows, blur, noise, JPEG, chips, face-down cards,
the dealer's arm) are rendered from the real artwork of the held-out decks
(`hwsim.camera.artwork.HELD_OUT_DECKS`, rendered from Debian's card packages by
`tools/render_deck_corpus.py`). Scoring is `bench_vision.py`'s: a read matches
a card of the same code within 0.25 card widths of one of its visible index
corners; precision, recall of visible index corners, hands exactly right. A read
of a card at its own index only partly open, or hidden (under 30% open: a chip
over its pip) where no other card's index is open, counts neither way.

Also printed, per deck and overall: index corners reported as unknown (seen,
not read surely enough), how many visible corners the candidate finder
proposes at all (its own pairs and the faint passes', `vision.faint_glyphs`), the most
common confusions (truth -> read), and the
milliseconds per frame (median and 95th percentile) on one core. `--by-size`
adds the figures by the cards' width in the frame, by the size of their
indices and by what spoils the frame (`real_decks_breakdown`).

Targets: precision and recall 99.5%, hands 98%, a median of 40 ms per frame,
and the candidate finder proposing 99.8% of visible index corners.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim"), str(ROOT / "benchmarks")]

from bench_vision import (  # noqa: E402
    MATCH_RADIUS,
    Scene,
    Score,
    load_recognizer,
    rendered_scenes,
    score_scene,
    trained_on,
)
from corner_losses import (  # noqa: E402
    NOT_AN_INDEX,
    NOT_PROPOSED,
    PROPOSED_REACH,
    READ_WHEN_CUT_TRUE,
    REASONS,
    corner_losses,
    losses_line,
    proposed_at,
)
from deck_photos import card_photos  # noqa: E402
from intervals import interval_text  # noqa: E402
from real_decks_breakdown import Breakdown  # noqa: E402
from real_decks_options import parse_options, recognizer_for  # noqa: E402
from wrong_places import write_crops, wrong_places_line  # noqa: E402

TARGET_PROPOSED = 0.998
# A candidate pair this near a visible index corner (in card widths) is taken for it
# when a deck is learnt from play: the corner's rank-suit midpoint lies within it.
LEARN_RADIUS = 0.12
TARGETS = {"precision": 0.995, "recall": 0.995, "hands": 0.98, "median_ms": 40.0}


@dataclass
class DeckScore:
    score: Score = field(default_factory=Score)
    unknowns: int = 0
    proposed: int = 0  # visible index corners with a candidate pair on them
    corners: int = 0  # visible index corners
    confusions: Counter[tuple[str, str]] = field(default_factory=Counter)
    losses: Counter[str] = field(default_factory=Counter)  # cards not read, by reason

    def add(self, other: DeckScore) -> None:
        self.score.add(other.score)
        self.unknowns += other.unknowns
        self.proposed += other.proposed
        self.corners += other.corners
        self.confusions.update(other.confusions)
        self.losses.update(other.losses)


def pair_midpoints(pairs: Sequence[Any]) -> np.ndarray:
    """(n, 2): the midpoints of the candidate pairs (`vision.candidates.Candidates`)."""
    return np.concatenate([np.zeros((0, 2), np.float32),
                           *((p.first + p.second) / 2.0 for p in pairs)])


def proposed_corners(scene: Scene, middle: np.ndarray) -> tuple[int, int]:
    """(corners with a candidate pair whose midpoint lies on them, visible corners)."""
    points = [p for _, _, pts in scene.truth for p in pts]
    reach = PROPOSED_REACH * scene.card_width
    hit = sum(1 for point in points if proposed_at(middle, [point], reach))
    return hit, len(points)


def confusions_of(scene: Scene, detections: Sequence[Any]) -> Counter[tuple[str, str]]:
    """Reads of a visible corner that name another card: (truth, read)."""
    radius = MATCH_RADIUS * scene.card_width
    found: Counter[tuple[str, str]] = Counter()
    for det in detections:
        near = [(min(math.dist((det.x, det.y), p) for p in pts), card)
                for card, _, pts in scene.truth if pts]
        if not near:
            continue
        distance, card = min(near)
        if distance <= radius and card != det.card:
            found[(card, det.card)] += 1
    return found


def run(scenes: Iterable[Scene], recognizer: Any, with_candidates: bool,
        with_losses: bool = False, breakdown: Breakdown | None = None,
        crops: Path | None = None) -> dict[str, DeckScore]:
    """Each deck's scores; `with_losses` also reads every frame's candidate pairs again
    (untimed) to say where each card not read was lost (`corner_losses`). Given a
    `breakdown`, each scene is also counted there by card width and index size; given
    `crops`, a picture of each wrong read is written there (`wrong_places.write_crops`)."""
    from vision.layout import layout_from_dict

    per_deck: dict[str, DeckScore] = {}
    for scene in scenes:
        layout = layout_from_dict(scene.layout)
        started = time.perf_counter()
        detections, unknowns = recognizer.detect_all(scene.image, layout)
        elapsed = (time.perf_counter() - started) * 1000.0
        deck = DeckScore(score_scene(scene, detections, elapsed), len(unknowns))
        if crops is not None:
            try:
                write_crops(scene, deck.score, MATCH_RADIUS * scene.card_width, crops)
            except OSError as error:  # a full disk stops the pictures, not the benchmark
                print(f"--wrong-crops: {error}; no more pictures written", file=sys.stderr)
                crops = None
        deck.confusions = confusions_of(scene, detections)
        if with_candidates or with_losses:
            # Read again, untimed, for the pairs read: the finder's and the faint passes'.
            proposed: list[Any] = []
            candidates = recognizer.read_candidates(scene.image, keep_unsure=True,
                                                    proposed=proposed)
            middle = pair_midpoints(proposed)
        if with_candidates:
            deck.proposed, deck.corners = proposed_corners(scene, middle)
        if with_losses:

            def read_pairs(glyphs: Sequence[tuple[Any, Any]], image: np.ndarray = scene.image
                           ) -> list[str]:
                ranks = np.array([rank for rank, _pip in glyphs], np.float32)
                pips = np.array([pip for _rank, pip in glyphs], np.float32)
                return [r.card for r in recognizer.read_candidates(image, keep_unsure=True,
                                                                   pairs=(ranks, pips))]

            deck.losses = corner_losses(scene.truth, scene.card_width, MATCH_RADIUS,
                                        detections, unknowns, candidates, middle,
                                        scene.glyphs, read_pairs)
        per_deck.setdefault(scene.design, DeckScore()).add(deck)
        if breakdown is not None:
            breakdown.add(scene, deck, detections)
    return per_deck


def p95(values: list[float]) -> float:
    return float(np.percentile(values, 95)) if values else math.nan


def report(per_deck: dict[str, DeckScore], worst: int) -> DeckScore:
    total = DeckScore()
    print(f"  {'deck':<30}{'scenes':>7}{'cards':>7}{'precision':>11}{'recall':>9}"
          f"{'hands':>8}{'unknown':>9}{'proposed':>10}{'median ms':>11}{'p95 ms':>8}")
    rows = [*sorted(per_deck.items()), ("all", None)]
    for name, deck in rows:
        if deck is None:
            deck = total
        else:
            total.add(deck)
        s = deck.score
        # Not counted (--no-candidates): a dash, not a number.
        proposed = f"{deck.proposed / deck.corners:.2%}" if deck.corners else "-"
        print(f"  {name:<30}{s.scenes:>7}{s.truth_cards:>7}{s.precision:>11.2%}"
              f"{s.recall:>9.2%}{s.hand_rate:>8.2%}{deck.unknowns:>9}{proposed:>10}"
              f"{s.median_ms:>11.1f}{p95(s.times_ms):>8.1f}")
    s = total.score
    checks = [("precision", s.precision, s.matched, s.detections),
              ("recall", s.recall, s.truth_read, s.truth_cards),
              ("hands", s.hand_rate, s.hands_right, s.hands)]
    for name, value, part, whole in checks:
        verdict = "ok" if value >= TARGETS[name] else "BELOW TARGET"
        print(f"  {name} {value:.2%} ({part}/{whole}, {interval_text(part, whole)}): "
              f"{verdict} (target {TARGETS[name]:.1%})")
    if total.corners:
        share = total.proposed / total.corners
        verdict = "ok" if share >= TARGET_PROPOSED else "BELOW TARGET"
        print(f"  candidates proposed for {share:.2%} of visible index corners "
              f"({total.proposed}/{total.corners}): {verdict} (target {TARGET_PROPOSED:.1%})")
    median = s.median_ms
    verdict = "ok" if median <= TARGETS["median_ms"] else "BELOW TARGET"
    print(f"  {median:.1f} ms median, {p95(s.times_ms):.1f} ms p95 per frame, one core: "
          f"{verdict} (target {TARGETS['median_ms']:.0f} ms median)")
    print(f"  unknown corners reported: {total.unknowns}")
    print(f"  reads counted neither way: {s.partial_reads} of a card at its partly open "
          f"index, {s.hidden_reads} of a card at its own hidden index")
    if total.score.false_reads:
        print(f"  wrong reads ({len(total.score.false_reads)}), where they lie: "
              f"{wrong_places_line(total.score.wrong_where)}")
    if total.confusions:
        common = ", ".join(f"{t}->{r} x{n}" for (t, r), n in total.confusions.most_common(worst))
        print(f"  worst confusions (truth->read): {common}")
    if total.losses:
        not_read = sum(total.losses[reason] for reason in REASONS)
        print(f"  where the {not_read} cards not read were lost: {losses_line(total.losses)}")
        for name, deck in sorted(per_deck.items()):
            print(f"    {name}: {losses_line(deck.losses)}")
        finder = total.losses[NOT_AN_INDEX] + total.losses[NOT_PROPOSED]
        if finder:
            print(f"  of the {finder} cards the finder lost (called not an index, never "
                  f"proposed), {total.losses[READ_WHEN_CUT_TRUE]} are read right from a pair "
                  "cut at their true rank and pip centres")
    return total


def run_enrolled(decks: Sequence[str], n_per_deck: int, seed: int,
                 model: Path | None, proposer: bool = True, crops: Path | None = None,
                 jpeg_qualities: tuple[int, int] | None = None) -> dict[str, DeckScore]:
    """Each deck enrolled from photos of its cards, then read with that enrolment."""
    from vision.enrolment import EnrolmentReport, enrol

    per_deck: dict[str, DeckScore] = {}
    base = load_recognizer(model, proposer=proposer)
    for k, deck in enumerate(decks):
        report = EnrolmentReport()
        house = enrol(base, card_photos(deck, seed + k), deck, report)
        if not report.complete:
            print(f"  {deck}: enrolment incomplete: {'; '.join(report.lines())}")
        recognizer = load_recognizer(model, proposer=proposer)
        recognizer.house_deck = house
        scenes = rendered_scenes(n_per_deck, seed + 100 + k, [deck], jpeg_qualities)
        per_deck.update(run(scenes, recognizer, with_candidates=False, crops=crops))
    return per_deck


def run_learnt(decks: Sequence[str], learn_scenes: int, n_per_deck: int, seed: int,
               model: Path | None, learn_from: str = "shoe", proposer: bool = True,
               crops: Path | None = None, jpeg_qualities: tuple[int, int] | None = None
               ) -> dict[str, DeckScore]:
    """Each deck learnt from `learn_scenes` scenes of play, every visible index corner
    named by its card as a shoe names the cards it deals (`vision.deck_learning`),
    then read as the house deck in the scenes `run_enrolled` reads. `learn_from`
    "agreeing": only the corners where the networks read the card the shoe names, as
    the daemon learns; "eliminating": those, and where one card of a box is not read
    and one corner alone there is no read of the box's cards, that corner."""
    from vision.deck_learning import MIN_EXEMPLARS, DeckLearner

    per_deck: dict[str, DeckScore] = {}
    for k, deck in enumerate(decks):
        recognizer = load_recognizer(model, proposer=proposer)
        try:
            learner = DeckLearner(recognizer, deck)
            for scene in rendered_scenes(learn_scenes, seed + 200 + k, [deck], jpeg_qualities):
                radius = LEARN_RADIUS * scene.card_width
                corners = [(card, x, y) for card, _, points in scene.truth for x, y in points]
                if learn_from != "shoe":
                    corners = _as_the_daemon_names(recognizer, scene, radius,
                                                   learn_from == "eliminating")
                learner.add(scene.image, corners, radius)
            recognizer.house_deck = learner.house_deck()
        except ValueError as error:  # no verifier, or no corner found to learn from
            print(f"  {deck}: not learnt ({error}); left out")
            continue
        missing = learner.missing()
        if missing:
            print(f"  {deck}: after {learn_scenes} scenes {len(missing)} cards have fewer "
                  f"than {MIN_EXEMPLARS} exemplars: {', '.join(missing)}")
        scenes = rendered_scenes(n_per_deck, seed + 100 + k, [deck], jpeg_qualities)
        per_deck.update(run(scenes, recognizer, with_candidates=False, crops=crops))
    return per_deck


def _as_the_daemon_names(recognizer: Any, scene: Scene, radius: float,
                         eliminating: bool) -> list[tuple[str, float, float]]:
    """The corners of `scene` the daemon's rule names, from the networks' reads."""
    from vision.deck_learning import agreeing_corners, eliminated_corners
    from vision.layout import layout_from_dict

    reads, unknown = recognizer.detect_all(scene.image, layout_from_dict(scene.layout))
    named = [(card, x, y) for card, _, points in scene.truth for x, y in points]
    corners: list[tuple[str, float, float]] = agreeing_corners(
        named, [(d.card, d.x, d.y) for d in reads], radius)
    if not eliminating:
        return corners
    read_right = {card for card, _, _ in corners}
    places: dict[str, tuple[list[str], list[str]]] = {}
    for card, box, _ in scene.truth:  # every card dealt, hidden ones too
        dealt, unread = places.setdefault(box, ([], []))
        dealt.append(card)
        if card not in read_right:
            unread.append(card)
    found = [(d.card, d.x, d.y, d.box) for d in [*reads, *unknown]]
    return corners + eliminated_corners(places, found)


def one_core() -> None:
    cv2.setNumThreads(1)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def main(argv: Sequence[str] | None = None) -> int:
    from hwsim.camera.artwork import corpus_folder

    parser, args = parse_options(__doc__.split("\n\n")[0], argv)
    trained = set(trained_on(args.model) or [])
    leaked = sorted(trained & set(args.decks))
    if leaked:
        print(f"warning: the model was trained on {leaked}; their figures prove nothing "
              "about unseen designs")
    from hwsim.camera.artwork import FONT_DECK_PREFIXES
    from hwsim.camera.dataset import resolve_designs
    from hwsim.camera.deck_corpus import ensure_corpus

    # Font-drawn decks (e.g. the fontval- decks) come from $TABLECTL_FONT_DECKS, drawn
    # by tools/render_font_decks.py; the corpus renders the real ones it lacks.
    font_decks = [d for d in args.decks if d.startswith(FONT_DECK_PREFIXES)]
    try:
        resolve_designs(font_decks)
        ensure_corpus(corpus_folder(), decks=[d for d in args.decks if d not in font_decks])
    except ValueError as error:
        parser.error(str(error))
    recognizer = recognizer_for(args)
    one_core()
    # Interleave decks scene by scene so each deck sees the same range of conditions.
    scenes = rendered_scenes(args.n_per_deck * len(args.decks), args.seed, args.decks,
                             args.jpeg_qualities)
    kind = "trained on (fresh scenes)" if leaked else "never trained or tuned on"
    qualities = "" if args.jpeg_qualities is None else (
        ", JPEG quality {}-{}".format(*args.jpeg_qualities))
    print(f"{args.n_per_deck} scenes of each of {len(args.decks)} decks {kind}, 1280x720, "
          f"seed {args.seed}{qualities}")
    if not (args.only_enrolled or args.only_learnt):
        breakdown = Breakdown() if args.by_size else None
        total = report(run(scenes, recognizer, not args.no_candidates, args.losses, breakdown,
                           args.wrong_crops), args.worst)
        if breakdown is not None:
            print("\n".join(breakdown.lines(total.score)))
    if args.enrolled or args.only_enrolled:
        print(f"\nEach deck enrolled as the house deck from photos of its 52 cards, then "
              f"{args.n_per_deck} new scenes of it (seed {args.seed + 100} on):")
        enrolled = report(run_enrolled(args.decks, args.n_per_deck, args.seed, args.model,
                                           not args.no_proposer, args.wrong_crops,
                                           args.jpeg_qualities),
                          args.worst)
        print(f"  enrolled house deck: {enrolled.score.precision:.2%} of the cards read are "
              f"right (target 99.9%), {enrolled.score.recall:.2%} of visible cards read")
    if args.learnt:
        which = {"agreeing": "the corners the networks read as the shoe's card",
                 "eliminating": "the corners the networks read as the shoe's card, and "
                                "those named by elimination",
                 "shoe": "every corner named by the shoe"}[args.learn_from]
        print(f"\nEach deck learnt from {args.learnt} scenes of play ({which}; seed "
              f"{args.seed + 200} on), then read as the house deck in {args.n_per_deck} new "
              f"scenes (seed {args.seed + 100} on):")
        learnt_decks = run_learnt(args.decks, args.learnt, args.n_per_deck, args.seed,
                                  args.model, args.learn_from, not args.no_proposer,
                                  args.wrong_crops, args.jpeg_qualities)
        if not learnt_decks:
            print("  no deck could be learnt")
            return 1
        learnt = report(learnt_decks, args.worst)
        print(f"  learnt house deck: {learnt.score.precision:.2%} of the cards read are "
              f"right, {learnt.score.recall:.2%} of visible cards read")
    return 0


if __name__ == "__main__":
    sys.exit(main())
