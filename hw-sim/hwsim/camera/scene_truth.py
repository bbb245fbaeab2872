"""What a rendered scene is: its picture and the truth about every card in it.

A card's index corner is in `index_points` when it is open (see `hwsim.camera.render`
for the measure), in `partial_points` when only 30-80% open, and in `hidden_points`
when less open than that.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class CardTruth:
    """One card on the table and the image points of its readable index corners."""

    card: str
    box: str
    index_points: list[tuple[float, float]]
    # Index corners 30-80% open: neither required nor wrong to read (the benchmark ignores
    # reads of them).
    partial_points: list[tuple[float, float]] = field(default_factory=list)
    # Per index point, the image centres of its rank glyph and suit pip (for benchmarks that
    # ask what a perfectly cut pair would read).
    index_glyphs: list[tuple[tuple[float, float], tuple[float, float]]] = field(
        default_factory=list)
    # Index corners under 30% open (covered, or out of the frame): not required either; a
    # read of this very card at one is not counted against the reader (the benchmarks).
    hidden_points: list[tuple[float, float]] = field(default_factory=list)


@dataclass
class RenderedScene:
    image: np.ndarray  # H x W x 3 uint8 BGR
    truth: list[CardTruth]
    layout: dict[str, Any]
    face_down: list[tuple[float, float]]
    design: str = ""
    moving: list[tuple[float, float]] = field(default_factory=list)  # centres of moving cards
    card_width: int = 0
    seed: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    def truth_dict(self) -> dict[str, Any]:
        """The truth as plain JSON-ready data (the dataset's scene file)."""
        return {
            "design": self.design, "seed": self.seed, "card_width": self.card_width,
            "image_size": [int(self.image.shape[1]), int(self.image.shape[0])],
            "truth": [{"card": t.card, "box": t.box,
                       "index_points": [[round(x, 2), round(y, 2)] for x, y in t.index_points],
                       "partial_points": [[round(x, 2), round(y, 2)]
                                          for x, y in t.partial_points],
                       "hidden_points": [[round(x, 2), round(y, 2)]
                                         for x, y in t.hidden_points]}
                      for t in self.truth],
            "layout": self.layout,
            "face_down": [[round(x, 2), round(y, 2)] for x, y in self.face_down],
            "moving": [[round(x, 2), round(y, 2)] for x, y in self.moving],
            **self.meta,
        }
