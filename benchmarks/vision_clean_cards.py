"""Read every card of a deck alone on plain felt: which cards the recognizer cannot read.

    python benchmarks/vision_clean_cards.py [--decks NAME ...] [--widths 85 100 120 140]
                                            [--turns 0 30 90 200] [--model M.onnx]

Each card is drawn alone, sharp and flat, on green felt (400x400), at each
width and turn, and read by the shipped recognizer (or `--model`). Table
scenes mix blur, overlap and light into every figure; here nothing spoils the
picture, so a card missed most of the time is one the networks do not know,
whatever the table does. Prints per deck the views read right, read wrong and
not read, and the cards missed or misread most often; then the same over all
decks. Default decks: the held-out ones (`hwsim.camera.artwork.HELD_OUT_DECKS`),
for the record; font-drawn decks come from $TABLECTL_FONT_DECKS.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim"), str(ROOT / "benchmarks")]

from bench_vision import load_recognizer, trained_on  # noqa: E402

CANVAS_PX = 400
FELT_BGR = (40, 110, 40)


@dataclass
class CardTally:
    views: int = 0
    right: int = 0
    wrong: Counter[str] = field(default_factory=Counter)  # misread as: count

    @property
    def missed(self) -> int:
        return self.views - self.right


def card_on_felt(card_bgra: np.ndarray, turn_degrees: float) -> np.ndarray:
    """The card (BGRA) turned about its centre and laid in the middle of a felt canvas."""
    h, w = card_bgra.shape[:2]
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), turn_degrees, 1.0)
    matrix[:, 2] += (CANVAS_PX / 2 - w / 2, CANVAS_PX / 2 - h / 2)
    laid = cv2.warpAffine(card_bgra, matrix, (CANVAS_PX, CANVAS_PX), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    alpha = laid[:, :, 3:4].astype(np.float32) / 255.0
    felt = np.full((CANVAS_PX, CANVAS_PX, 3), FELT_BGR, np.float32)
    return (felt * (1 - alpha) + laid[:, :, :3] * alpha).round().astype(np.uint8)


def read_deck(recognizer: Any, deck: Any, widths: Sequence[int],
              turns: Sequence[float]) -> dict[str, CardTally]:
    """Each card of `deck` read alone at every width and turn."""
    from hwsim.camera.artwork import artwork_card

    from vision.house_deck import CARDS

    tallies: dict[str, CardTally] = {}
    for card in CARDS:
        tally = tallies[card] = CardTally()
        for width in widths:
            image = artwork_card(card, deck, width)
            for turn in turns:
                found = {d.card for d in recognizer.detect(card_on_felt(image, turn))}
                tally.views += 1
                tally.right += card in found
                tally.wrong.update(found - {card})
    return tallies


def report(name: str, tallies: dict[str, CardTally], worst: int) -> None:
    views = sum(t.views for t in tallies.values())
    right = sum(t.right for t in tallies.values())
    wrong = sum(sum(t.wrong.values()) for t in tallies.values())
    hard = sorted((c for c, t in tallies.items() if t.missed),
                  key=lambda c: (-tallies[c].missed, c))
    listed = ", ".join(f"{c} {tallies[c].missed}/{tallies[c].views}" for c in hard[:worst])
    print(f"  {name:28s} {right:5d} of {views:5d} views read right ({right / views:7.2%}), "
          f"{wrong:3d} wrong reads; cards missed: {listed or 'none'}")
    confusions = Counter({(c, w): n for c, t in tallies.items() for w, n in t.wrong.items()})
    if confusions:
        print("  " + " " * 28 + " misread: " + ", ".join(
            f"{c}->{w} x{n}" for (c, w), n in confusions.most_common(worst)))


def main(argv: Sequence[str] | None = None) -> int:
    from hwsim.camera.artwork import FONT_DECK_PREFIXES, HELD_OUT_DECKS, ArtworkDeck, corpus_folder
    from hwsim.camera.dataset import resolve_designs
    from hwsim.camera.deck_corpus import ensure_corpus

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decks", nargs="+", default=list(HELD_OUT_DECKS))
    parser.add_argument("--widths", nargs="+", type=int, default=[85, 100, 120, 140],
                        help="card widths in pixels")
    parser.add_argument("--turns", nargs="+", type=float, default=[0.0, 30.0, 90.0, 200.0],
                        help="turns in degrees")
    parser.add_argument("--model", type=Path, default=None,
                        help="classifier .onnx (default: the shipped one)")
    parser.add_argument("--worst", type=int, default=8, help="cards and confusions to list")
    args = parser.parse_args(argv)
    if any(not 40 <= w <= 300 for w in args.widths):
        parser.error("--widths must lie between 40 and 300 pixels")
    font_decks = [d for d in args.decks if d.startswith(FONT_DECK_PREFIXES)]
    try:
        resolve_designs(font_decks)
        ensure_corpus(corpus_folder(), decks=[d for d in args.decks if d not in font_decks])
        decks = [ArtworkDeck.named(d) for d in args.decks]
    except (ValueError, RuntimeError) as error:
        parser.error(str(error))
    leaked = sorted(set(trained_on(args.model) or []) & set(args.decks))
    if leaked:
        print(f"note: the model was trained on {leaked}")
    recognizer = load_recognizer(args.model)
    cv2.setNumThreads(1)
    print(f"each card alone on felt, widths {args.widths} px, turns {args.turns} degrees:")
    total: dict[str, CardTally] = {}
    for deck in decks:
        tallies = read_deck(recognizer, deck, args.widths, args.turns)
        report(deck.name, tallies, args.worst)
        total.update((f"{deck.name}:{card}", tally) for card, tally in tallies.items())
    if len(decks) > 1:
        report("all", total, args.worst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
