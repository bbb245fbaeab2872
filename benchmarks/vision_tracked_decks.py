"""What the tracker places, frame after frame, on real deck designs never trained on.

    python benchmarks/vision_tracked_decks.py --n-per-deck 10 --seed 17 [--frames 10]

`benchmarks/vision_real_decks.py` scores single frames. The daemon places a card
only once the tracker has read it at one place in `stable_frames` frames in a
row (docs/fusion.md), and a camera filming still cards gives frames that differ
by their sensor noise and compression. Each scene here is drawn as that
benchmark draws it (same specs, same seeds), without its noise and JPEG; each
of `--frames` frames then gets its own noise (the scene's sigma, at least
`MIN_NOISE`: a sensor always has some) and JPEG at the scene's quality. The
frames go through the recognizer and `vision.tracker.CardTracker`, and every
card placed is set beside the card truly at its corner.

Printed per deck and overall: the cards placed right, wrong (another card at a
visible index corner) and stray (at no visible corner), the visible cards never
placed; beside them the same scenes' first frame read alone (as
`vision_real_decks.py` scores a frame). Figures go in docs/vision-measurements.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim")]

from vision.tracker import CardPlaced, CardTracker  # noqa: E402

MIN_NOISE = 1.5  # sensor noise sigma of the quietest frames
NEAR = 0.15  # a card is at a corner within this many card widths


@dataclass
class Tally:
    visible: int = 0
    right: int = 0
    wrong: int = 0
    stray: int = 0
    frame_right: int = 0
    frame_wrong: int = 0
    frame_stray: int = 0
    hands: int = 0
    hands_right: int = 0
    frame_hands_right: int = 0
    confusions: Counter[tuple[str, str]] = dataclasses.field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        for name in ("visible", "right", "wrong", "stray", "frame_right", "frame_wrong",
                     "frame_stray", "hands", "hands_right", "frame_hands_right"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.confusions.update(other.confusions)


@dataclass(frozen=True)
class Filmed:
    design: str
    frames: list[np.ndarray]
    card_width: float
    corners: list[tuple[str, list[tuple[float, float]]]]  # card, its visible index points
    boxes: dict[str, set[str]]  # layout area -> the visible cards in it
    layout: Any  # vision.layout.Layout of the frames
    # card, its index points less than 80% open: a read of that card there is not judged
    partly_open: list[tuple[str, list[tuple[float, float]]]]


def filmed_scenes(n: int, seed: int, designs: Sequence[str], frames: int) -> Iterator[Filmed]:
    """The scenes `hwsim.camera.dataset.generate_scenes` draws, each filmed `frames` times."""
    from hwsim.camera import effects
    from hwsim.camera.dataset import random_spec, resolve_designs
    from hwsim.camera.render import render_scene

    from vision.layout import layout_from_dict

    chosen = resolve_designs(designs)
    for i in range(n):
        rng = np.random.default_rng([seed, i])
        spec = random_spec(rng)
        still = dataclasses.replace(spec, noise=0.0, jpeg_quality=None)
        scene = render_scene(still, chosen[i % len(chosen)], int(rng.integers(2**31)))
        camera = np.random.default_rng([seed, i, 1])
        shots = [effects.jpeg(effects.sensor_noise(camera, scene.image,
                                                   max(spec.noise, MIN_NOISE)),
                              spec.jpeg_quality) for _ in range(frames)]
        corners = [(t.card, [(float(p[0]), float(p[1])) for p in t.index_points])
                   for t in scene.truth if t.index_points]
        partly = [(t.card, [(float(p[0]), float(p[1]))
                            for p in [*t.partial_points, *t.hidden_points]])
                  for t in scene.truth if t.partial_points or t.hidden_points]
        boxes: dict[str, set[str]] = {}
        for t in scene.truth:
            if t.index_points:
                boxes.setdefault(t.box, set()).add(t.card)
        yield Filmed(scene.design, shots, float(scene.card_width), corners, boxes,
                     layout_from_dict(scene.layout), partly)


def _judge(card: str, x: float, y: float, filmed: Filmed) -> str | None:
    """The card truly at (x, y): None where no visible index corner is near, "" where
    only a corner of `card` itself less than 80% open is (neither right nor wrong; as
    `vision_real_decks.py` scores a frame, another card read there is not excused)."""
    best, best_distance = None, NEAR * filmed.card_width
    for truth, points in filmed.corners:
        for px, py in points:
            distance = float(np.hypot(px - x, py - y))
            if distance <= best_distance:
                best, best_distance = truth, distance
    if best is None and any(truth == card and np.hypot(px - x, py - y) <= NEAR * filmed.card_width
                            for truth, points in filmed.partly_open for px, py in points):
        return ""
    return best


def score(filmed: Filmed, recognizer: Any, max_missed: int | None = None) -> Tally:
    tally = Tally(visible=len(filmed.corners))
    tracker = CardTracker() if max_missed is None else CardTracker(max_missed=max_missed)
    placed: list[CardPlaced] = []
    for number, frame in enumerate(filmed.frames):
        detections = recognizer.detect(frame, filmed.layout)
        if number == 0:
            tally.frame_hands_right = _hands_right(
                filmed, [(d.card, d.box, d.x, d.y) for d in detections])
            for verdict, _, _ in _verdicts(filmed, [(d.card, d.x, d.y) for d in detections]):
                setattr(tally, f"frame_{verdict}", getattr(tally, f"frame_{verdict}") + 1)
        placed += [e for e in tracker.update(detections) if isinstance(e, CardPlaced)]
    tally.hands = len(filmed.boxes)
    tally.hands_right = _hands_right(filmed, [(c.card, c.box, c.x, c.y) for c in placed])
    for verdict, truth, card in _verdicts(filmed, [(c.card, c.x, c.y) for c in placed],
                                          once=True):
        setattr(tally, verdict, getattr(tally, verdict) + 1)
        if verdict == "wrong":
            tally.confusions[truth, card] += 1
    return tally


def _verdicts(filmed: Filmed, cards: Sequence[tuple[str, float, float]], once: bool = False
              ) -> list[tuple[str, str, str]]:
    """(verdict, the card truly there, the card read) of each card read at (x, y):
    "right", "wrong" or "stray" (at no visible corner). Reads of a card at its own
    corner less than 80% open are left out, and with `once` a card placed right a
    second time."""
    found: list[tuple[str, str, str]] = []
    right: set[str] = set()
    for card, x, y in cards:
        truth = _judge(card, x, y, filmed)
        if truth is None:
            found.append(("stray", "", card))
        elif truth and truth != card:
            found.append(("wrong", truth, card))
        elif truth and not (once and truth in right):
            right.add(truth)
            found.append(("right", truth, card))
    return found


def _hands_right(filmed: Filmed, cards: Sequence[tuple[str, str | None, float, float]]
                 ) -> int:
    """Boxes (the dealer's area too) whose visible cards are exactly the cards read there
    (a read of a card at its own corner less than 80% open counts neither way)."""
    seen: dict[str, set[str]] = {}
    for card, box, x, y in cards:
        if box is not None and _judge(card, x, y, filmed) != "":
            seen.setdefault(box, set()).add(card)
    return sum(seen.get(box, set()) == visible for box, visible in filmed.boxes.items())


def _row(name: str, t: Tally) -> str:
    def share(part: int, whole: int) -> str:
        return f"{100 * part / whole:.2f}%" if whole else "-"

    placed = t.right + t.wrong + t.stray
    read = t.frame_right + t.frame_wrong + t.frame_stray
    return (f"| {name} | {t.visible} | {t.right} | {t.wrong} | {t.stray} | "
            f"{share(t.right, placed)} | {share(t.right, t.visible)} | "
            f"{share(t.hands_right, t.hands)} | "
            f"{t.frame_wrong + t.frame_stray} | {share(t.frame_right, read)} | "
            f"{share(t.frame_right, t.visible)} | {share(t.frame_hands_right, t.hands)} |")


def main(argv: Sequence[str] | None = None) -> int:
    from hwsim.camera.artwork import HELD_OUT_DECKS

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-per-deck", type=int, default=10)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--frames", type=int, default=10, help="frames filmed of each scene")
    parser.add_argument("--max-missed", type=int, default=None,
                        help="the tracker's max_missed (frames in a row a card may go "
                             "unread between its reads; default: the daemon's)")
    parser.add_argument("--decks", nargs="+", default=list(HELD_OUT_DECKS),
                        help="decks of the corpus (default: the held-out decks), or "
                             "font-drawn decks of $TABLECTL_FONT_DECKS")
    args = parser.parse_args(argv)
    if args.max_missed is None:
        args.max_missed = CardTracker().max_missed
    if args.n_per_deck < 1 or args.frames < 3:
        parser.error("--n-per-deck must be 1 or more and --frames 3 or more")
    from hwsim.camera.artwork import FONT_DECK_PREFIXES, corpus_folder
    from hwsim.camera.deck_corpus import ensure_corpus

    from vision.recognizer import Recognizer

    try:
        ensure_corpus(corpus_folder(),
                      decks=[d for d in args.decks if not d.startswith(FONT_DECK_PREFIXES)])
    except ValueError as error:
        parser.error(str(error))
    recognizer = Recognizer()
    per_deck: dict[str, Tally] = {}
    for filmed in filmed_scenes(args.n_per_deck * len(args.decks), args.seed, args.decks,
                                args.frames):
        per_deck.setdefault(filmed.design, Tally()).add(score(filmed, recognizer,
                                                              args.max_missed))
    print(f"{args.n_per_deck} scenes a deck, {args.frames} frames a scene, seed {args.seed}, "
          f"max_missed {args.max_missed}\n")
    print("| deck | visible cards | placed right | placed wrong | placed at no corner | "
          "precision placed | recall placed | hands placed exactly | "
          "first frame: wrong or stray reads | first frame: precision | first frame: recall | "
          "first frame: hands exactly |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    total = Tally()
    for name in sorted(per_deck):
        print(_row(name, per_deck[name]))
        total.add(per_deck[name])
    print(_row("**all**", total))
    worst = ", ".join(f"{truth}->{read} ({count})"
                      for (truth, read), count in total.confusions.most_common(10))
    print(f"\ncards placed wrong (truth->placed): {worst or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
