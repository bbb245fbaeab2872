"""How one font-drawn deck looks, and the seeded plan of all of them.

Each deck takes its rank glyphs from one face of `font_catalogue.FACES` and
draws everything else the way real decks differ: index size and place, the
space between rank and suit, condensed tens, weight, red and black shades,
border lines and frames, suit signs from a font or polygons, corner radius,
card proportion, court pictures and back. Deck i of a seed is the same
whatever else is installed or asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from hwsim.camera.font_catalogue import (
    FACES,
    SUIT_FACES,
    VALIDATION_FACES,
    FontFace,
    SuitFace,
)

Colour = tuple[int, int, int]  # BGR
Border = Literal["none", "line", "double", "frame"]
Court = Literal["figure", "letter"]
Back = Literal["lattice", "dots", "stripes"]
DEFAULT_COUNT = len(FACES)  # one deck per face
# The faces of the first catalogue (FACES[:69]): the decks the shipped networks were
# trained on (`--count 69`), the same whatever faces come after them.
FIRST_CATALOGUE = 69
DEFAULT_SEED = 1


@dataclass(frozen=True)
class DeckStyle:
    """One deck's look. Sizes: fractions of the card width (x) or height (y, rank)."""

    name: str
    face: FontFace
    suit_face: SuitFace | None  # None: the simulator's polygon pips
    outline_suits: bool
    aspect: float  # card width / height
    corner_radius: float
    stock: Colour
    edge_line: bool  # a thin grey line along the card's edge
    border: Border
    border_inset: float
    border_colour: Colour
    rank_height: float  # of the card height
    x_scale: float  # the rank glyphs' width factor
    ten_scale: float  # a further width factor for the "10"
    ten_gap: float  # between its digits, rank heights
    stroke: float  # emboldening, rank heights
    index_x: float  # left edge of the index column
    index_y: float  # top of the rank
    centred: bool  # suit centred under the rank, else both left-aligned
    suit_height: float  # rank heights
    suit_gap: float  # rank heights
    red: Colour
    black: Colour
    pip_height: float  # centre pips, card widths
    ace_height: float
    court: Court
    art_colours: tuple[Colour, Colour, Colour]
    back: Back
    back_colour: Colour


def _colour(rng: np.random.Generator, low: Colour, high: Colour) -> Colour:
    b, g, r = (int(rng.integers(lo, hi + 1)) for lo, hi in zip(low, high, strict=True))
    return (b, g, r)


def _printable(colour: Colour) -> Colour:
    """Card ink as the recognizer takes it: green and blue alike (black, grey, red, pink;
    `vision.candidates.print_colour_mask`), so an index is never drawn in a colour the
    candidate finder leaves out and training would call "not an index"."""
    b, g, r = colour
    limit = max(round(0.2 * max(colour)), 20)
    return (b, min(max(g, b - limit), b + limit), r)


def _reds(rng: np.random.Generator) -> Colour:
    kind = rng.integers(3)
    if kind == 0:  # bright red
        return _printable(_colour(rng, (10, 0, 200), (50, 35, 240)))
    if kind == 1:  # dark or wine red
        return _printable(_colour(rng, (30, 10, 140), (60, 30, 185)))
    return _printable(_colour(rng, (0, 25, 210), (25, 55, 245)))  # orange red


def _blacks(rng: np.random.Generator) -> Colour:
    kind = rng.integers(3)
    if kind == 0:
        grey = int(rng.integers(0, 45))
        return (grey, grey, grey)
    if kind == 1:  # navy black
        return _printable(_colour(rng, (45, 25, 10), (70, 40, 30)))
    return _printable(_colour(rng, (15, 25, 35), (35, 45, 60)))  # brown black


def _stock(rng: np.random.Generator) -> Colour:
    if rng.random() < 0.6:
        v = int(rng.integers(246, 256))
        return (v, v, v)
    return _colour(rng, (222, 238, 244), (240, 250, 255))  # cream


def _art(rng: np.random.Generator, red: Colour) -> tuple[Colour, Colour, Colour]:
    blue = _colour(rng, (120, 50, 10), (200, 110, 60))
    gold = _colour(rng, (20, 150, 190), (70, 210, 245))
    third = red if rng.random() < 0.6 else _colour(rng, (20, 80, 20), (90, 150, 90))
    return (blue, gold, third)


def face_of(seed: int, number: int, faces: tuple[FontFace, ...], first: int) -> FontFace:
    """The face of deck `number`: decks 0 to `first` - 1 take `faces[:first]` in a
    seeded order, the decks after them the rest, so faces added to the end of the
    catalogue leave the earlier decks as they were."""
    number %= len(faces)
    if number < first:
        return faces[int(np.random.default_rng([seed]).permutation(first)[number])]
    order = np.random.default_rng([seed, first]).permutation(len(faces) - first)
    return faces[first + int(order[number - first])]


def plan_deck(seed: int, number: int, faces: tuple[FontFace, ...] = FACES,
              prefix: str = "font", first: int = FIRST_CATALOGUE) -> DeckStyle:
    """Deck `number` of the plan of `seed` over `faces`, named `<prefix>-NN-<face>`."""
    rng = np.random.default_rng([seed, number])
    face = face_of(seed, number, faces, min(first, len(faces)))
    kind = rng.random()
    suit_face = None if kind < 0.3 else SUIT_FACES[int(rng.integers(len(SUIT_FACES)))]
    outline = bool(suit_face is not None and suit_face.outline and rng.random() < 0.2)
    border: Border = ("none", "line", "double", "frame")[int(rng.choice(4, p=[.4, .3, .1, .2]))]
    inset = float(rng.uniform(0.03, 0.05))
    inner = {"none": 0.0, "line": inset + 0.01, "double": inset + 0.025,
             "frame": inset + 0.01}[border]
    if border == "none":
        clearance = float(rng.uniform(0.04, 0.075))
    elif rng.random() < 0.4:  # the index close to the border line or frame
        clearance = float(rng.uniform(0.012, 0.025))
    else:
        clearance = float(rng.uniform(0.025, 0.045))
    aspect = float(rng.choice([0.64, 0.66, 0.69, 0.71, 0.716, 0.72, 0.74]))
    red, black = _reds(rng), _blacks(rng)
    condensed = face.kind == "condensed"
    return DeckStyle(
        name=f"{prefix}-{number:02d}-{face.name}",
        face=face, suit_face=suit_face, outline_suits=outline,
        aspect=aspect,
        corner_radius=float(rng.uniform(0.03, 0.08)),
        stock=_stock(rng),
        edge_line=bool(rng.random() < 0.3),
        border=border, border_inset=inset,
        border_colour=black if rng.random() < 0.4 else (red if rng.random() < 0.5
                                                         else _colour(rng, (90,) * 3, (150,) * 3)),
        rank_height=float(rng.uniform(0.10, 0.16)),
        x_scale=1.0 if condensed or rng.random() < 0.6 else float(rng.uniform(0.78, 1.08)),
        ten_scale=1.0 if rng.random() < 0.4 else float(rng.uniform(0.65, 0.9)),
        ten_gap=float(rng.uniform(0.03, 0.14)),
        stroke=0.0 if rng.random() < 0.7 else float(rng.uniform(0.01, 0.03)),
        index_x=inner + clearance,
        index_y=(inner + clearance) * aspect + float(rng.uniform(-0.005, 0.01)),
        centred=bool(rng.random() < 0.7),
        suit_height=float(rng.uniform(0.5, 0.85)),
        suit_gap=float(rng.uniform(0.03, 0.35)),
        red=red, black=black,
        pip_height=float(rng.uniform(0.13, 0.19)),
        ace_height=float(rng.uniform(0.3, 0.5)),
        court="figure" if rng.random() < 0.5 else "letter",
        art_colours=_art(rng, red),
        back=("lattice", "dots", "stripes")[int(rng.integers(3))],
        back_colour=_colour(rng, (20, 20, 20), (170, 110, 170)),
    )


def plan(seed: int = DEFAULT_SEED, count: int = DEFAULT_COUNT,
         validation: bool = False, first: int = FIRST_CATALOGUE) -> list[DeckStyle]:
    """The `count` decks of `seed` (faces taken in a seeded order, all before any twice);
    with `validation`, the `fontval-` decks of the faces kept out of training.

    `first`: decks 0 to `first` - 1 take the catalogue's first `first` faces (see
    `face_of`). 69 draws the shipped networks' decks; the `fonts98` ensemble member
    was trained on the decks of `first` 98 (all faces in one seeded order).
    """
    if count < 1:
        raise ValueError(f"the deck count must be at least 1, not {count}")
    if not 1 <= first <= len(FACES):
        raise ValueError(f"the first faces must number 1 to {len(FACES)}, not {first}")
    if validation:
        return [plan_deck(seed, number, VALIDATION_FACES, "fontval", len(VALIDATION_FACES))
                for number in range(count)]
    return [plan_deck(seed, number, first=first) for number in range(count)]
