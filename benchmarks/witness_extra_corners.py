"""Would "more cards on the felt than the shoe dealt there" catch a card the networks
cannot read, without halting honest deals?

    python benchmarks/witness_extra_corners.py [--n-per-deck 20] [--seed 502] [--decks NAME ...]
    python benchmarks/witness_extra_corners.py --enrolled   # each deck enrolled as the house deck

A card switched in that the networks cannot read surely is an unknown corner,
and the witness passes it (docs/fusion.md). This counts, on honest scenes (every
card where the simulated shoe put it), the places (boxes and the dealer's) where
the camera would count more cards than were dealt: its cards read surely there,
plus its unknown corners, one per estimated card centre (`vision.reads.card_centre`).
Each such place would be a halt. For each unknown corner at such a place it
prints what truly lies there (a visible index corner of a card that was read at
its other corner, of a card not read, or no corner) and where it lies from the
nearest read card facing the other way, in index scales along that card's right
and down (`a`, `b`), with the two facings' dot product: the geometry a rule
would have to tell "the read card's other corner" from "another card" by.
With `--enrolled` each deck is first enrolled as the house deck from photos of
its 52 cards (`deck_photos.card_photos`) and the scenes are read with it.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim"), str(ROOT / "benchmarks")]

from bench_vision import Scene, load_recognizer, rendered_scenes  # noqa: E402
from hwsim.camera.artwork import TRAINING_DECKS  # noqa: E402

from vision.layout import layout_from_dict  # noqa: E402
from vision.reads import SAME_CARD, boxes_of, card_centre  # noqa: E402

AT_A_CORNER = 0.2  # card widths: an unknown this near a visible index corner lies on it


def one_per_card(unknown: Sequence[Any]) -> list[Any]:
    """The unknown corners, one per estimated card centre (the surest kept)."""
    kept: list[Any] = []
    for corner in sorted(unknown, key=lambda r: -r.confidence):
        if not any(math.dist(card_centre(corner), card_centre(o))
                   < SAME_CARD * max(corner.scale, o.scale) for o in kept):
            kept.append(corner)
    return kept


def where_from_reads(corner: Any, reads: Sequence[Any]) -> str:
    """Where `corner` lies from the nearest read facing (nearly) the other way."""
    best: tuple[float, str] | None = None
    for read in reads:
        dot = corner.down[0] * read.down[0] + corner.down[1] * read.down[1]
        if dot >= -0.7:
            continue
        scale = max(read.scale, corner.scale)
        gap = (corner.x - read.x, corner.y - read.y)
        right = (read.down[1], -read.down[0])
        along_right = (gap[0] * right[0] + gap[1] * right[1]) / scale
        along_down = (gap[0] * read.down[0] + gap[1] * read.down[1]) / scale
        distance = math.hypot(*gap) / scale
        if best is None or distance < best[0]:
            best = (distance, f"from {read.card}: a={along_right:.1f} b={along_down:.1f} "
                              f"dot={dot:.2f} d={distance:.1f}")
    return best[1] if best else "no read faces the other way"


def what_lies_at(corner: Any, scene: Scene, read_cards: set[str]) -> str:
    near = min(((math.dist((corner.x, corner.y), p) / scene.card_width, card)
                for card, _, points in scene.truth for p in points), default=(math.inf, ""))
    if near[0] > AT_A_CORNER:
        return "no index corner"
    owner = "read at its other corner" if near[1] in read_cards else "not read"
    return f"a corner of {near[1]} ({owner})"


def count_scene(recognizer: Any, scene: Scene, places: Counter[str], lines: list[str]) -> None:
    layout = layout_from_dict(scene.layout)
    reads, unknown = recognizer.corner_reads(scene.image)
    unread_cards = one_per_card(unknown)
    read_boxes = boxes_of(reads, layout)
    unknown_boxes = boxes_of(unread_cards, layout)
    dealt = Counter(box for _, box, _ in scene.truth)
    counted = Counter(b for b in [*read_boxes, *unknown_boxes] if b)
    read_cards = {r.card for r in reads}
    for place in set(dealt) | set(counted):
        places["places"] += 1
        if counted[place] <= dealt[place]:
            continue
        places["more counted than dealt"] += 1
        here = [u for u, b in zip(unread_cards, unknown_boxes, strict=True) if b == place]
        places["of them with an unknown corner"] += bool(here)
        for corner in here:
            lines.append(f"    {scene.name} {place} (dealt {dealt[place]}): unknown corner on "
                         f"{what_lies_at(corner, scene, read_cards)}, "
                         f"{where_from_reads(corner, reads)}")


def enrolled(recognizer: Any, deck: str, seed: int) -> Any:
    """`deck` enrolled as the house deck from photos of its cards."""
    from deck_photos import card_photos

    from vision.enrolment import EnrolmentReport, enrol

    recognizer.house_deck = None
    report = EnrolmentReport()
    house = enrol(recognizer, card_photos(deck, seed), deck, report)
    if not report.complete:
        print(f"  {deck}: enrolment incomplete: {'; '.join(report.lines())}")
    return house


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-per-deck", type=int, default=20)
    parser.add_argument("--seed", type=int, default=502)
    parser.add_argument("--decks", nargs="+", default=list(TRAINING_DECKS))
    parser.add_argument("--enrolled", action="store_true",
                        help="read each deck as the house deck, enrolled from its cards")
    args = parser.parse_args(argv)
    if args.n_per_deck < 1:
        parser.error("--n-per-deck must be 1 or more")
    from hwsim.camera.dataset import resolve_designs

    try:
        resolve_designs(args.decks)  # every deck named exists, before anything is read
    except ValueError as error:
        parser.error(str(error))
    recognizer = load_recognizer(None)
    total: Counter[str] = Counter()
    for k, deck in enumerate(args.decks):
        if args.enrolled:
            recognizer.house_deck = enrolled(recognizer, deck, args.seed + k)
        places: Counter[str] = Counter()
        lines: list[str] = []
        for scene in rendered_scenes(args.n_per_deck, args.seed, [deck]):
            count_scene(recognizer, scene, places, lines)
        total.update(places)
        print(f"  {deck:<30} places {places['places']:>5}, more cards counted than dealt "
              f"{places['more counted than dealt']:>3} (with an unknown corner "
              f"{places['of them with an unknown corner']})")
        for line in lines:
            print(line)
    share = total["of them with an unknown corner"] / max(total["places"], 1)
    print(f"  all: {total['places']} places, {total['more counted than dealt']} with more "
          f"cards counted than dealt, {total['of them with an unknown corner']} of them with "
          f"an unknown corner: a halt at {share:.2%} of the places")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
