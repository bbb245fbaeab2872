"""Card designs: how one deck prints its indices, pips, pictures, borders and back.

Only OpenCV drawing is used (Hershey fonts, polygons), so no font files are
needed. Designs differ where real casino decks differ: index font, weight,
slant, size and place, red and black shades, border lines, corner radius,
face-card artwork, centre pip layout and back pattern.

`HELD_OUT_DESIGNS` are never used to train or tune the recognizer; the
benchmark reports them apart from `TUNING_DESIGNS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import cv2

BorderStyle = Literal["none", "line", "double", "frame"]
FaceArt = Literal["framed", "geometric", "letter"]
PipLayout = Literal["classic", "single"]
BackPattern = Literal["lattice", "dots", "rings", "stripes"]

Colour = tuple[int, int, int]  # BGR
BORDER_CLEARANCE = 0.025  # space between a border line and the index, card widths


@dataclass(frozen=True)
class CardDesign:
    """One deck's look. Sizes are fractions of the card width unless noted."""

    name: str
    font_face: int  # cv2.FONT_HERSHEY_*
    font_italic: bool
    rank_height: float  # height of the rank glyphs
    font_thickness: float  # stroke width as a fraction of the rank height
    red: Colour
    black: Colour
    stock: Colour  # card paper
    border: BorderStyle
    border_colour: Colour
    corner_radius: float
    index_x: float  # left edge of the index
    index_y: float  # top edge of the rank
    suit_size: float  # size of the index's suit pip
    suit_gap: float  # space between rank and suit pip, fraction of the rank height
    face_art: FaceArt
    art_colours: tuple[Colour, Colour, Colour]
    pip_layout: PipLayout
    back_pattern: BackPattern
    back_colour: Colour

    def __post_init__(self) -> None:
        inner_edge = {"none": 0.0, "line": 0.03, "double": 0.038, "frame": 0.0}[self.border]
        if min(self.index_x, self.index_y) < inner_edge + BORDER_CLEARANCE:
            raise ValueError(f"design {self.name}: the index must sit at least "
                             f"{BORDER_CLEARANCE} card widths inside its border line")

    @property
    def font(self) -> int:
        return self.font_face | (cv2.FONT_ITALIC if self.font_italic else 0)


DESIGNS: dict[str, CardDesign] = {
    design.name: design
    for design in (
        CardDesign(
            name="classic_duplex", font_face=cv2.FONT_HERSHEY_DUPLEX, font_italic=False,
            rank_height=0.15, font_thickness=0.14, red=(40, 30, 205), black=(25, 25, 25),
            stock=(250, 250, 250), border="none", border_colour=(0, 0, 0),
            corner_radius=0.07, index_x=0.05, index_y=0.05, suit_size=0.11, suit_gap=0.22,
            face_art="framed", art_colours=((170, 90, 30), (40, 190, 230), (40, 30, 205)),
            pip_layout="classic", back_pattern="lattice", back_colour=(40, 40, 170)),
        CardDesign(
            name="casino_jumbo", font_face=cv2.FONT_HERSHEY_SIMPLEX, font_italic=False,
            rank_height=0.21, font_thickness=0.17, red=(30, 20, 225), black=(10, 10, 10),
            stock=(252, 252, 248), border="line", border_colour=(120, 120, 120),
            corner_radius=0.05, index_x=0.06, index_y=0.06, suit_size=0.14, suit_gap=0.18,
            face_art="letter", art_colours=((140, 60, 20), (30, 160, 220), (60, 60, 60)),
            pip_layout="single", back_pattern="stripes", back_colour=(150, 60, 20)),
        CardDesign(
            name="royal_complex", font_face=cv2.FONT_HERSHEY_COMPLEX, font_italic=False,
            rank_height=0.14, font_thickness=0.12, red=(50, 40, 180), black=(40, 20, 20),
            stock=(235, 245, 250), border="double", border_colour=(50, 40, 180),
            corner_radius=0.10, index_x=0.07, index_y=0.07, suit_size=0.10, suit_gap=0.25,
            face_art="framed", art_colours=((30, 120, 40), (60, 200, 240), (120, 40, 120)),
            pip_layout="classic", back_pattern="rings", back_colour=(30, 90, 30)),
        CardDesign(
            name="plain_sans", font_face=cv2.FONT_HERSHEY_PLAIN, font_italic=False,
            rank_height=0.16, font_thickness=0.16, red=(20, 0, 200), black=(30, 30, 30),
            stock=(248, 248, 248), border="none", border_colour=(0, 0, 0),
            corner_radius=0.04, index_x=0.05, index_y=0.05, suit_size=0.12, suit_gap=0.2,
            face_art="geometric", art_colours=((200, 120, 0), (0, 140, 255), (20, 20, 20)),
            pip_layout="classic", back_pattern="dots", back_colour=(20, 20, 20)),
        CardDesign(
            name="small_complex", font_face=cv2.FONT_HERSHEY_COMPLEX_SMALL, font_italic=False,
            rank_height=0.13, font_thickness=0.15, red=(60, 50, 215), black=(20, 20, 20),
            stock=(245, 250, 255), border="frame", border_colour=(60, 130, 200),
            corner_radius=0.08, index_x=0.055, index_y=0.055, suit_size=0.10, suit_gap=0.3,
            face_art="geometric", art_colours=((100, 50, 160), (50, 180, 90), (30, 60, 200)),
            pip_layout="classic", back_pattern="lattice", back_colour=(130, 40, 40)),
        CardDesign(
            name="slim_simplex", font_face=cv2.FONT_HERSHEY_SIMPLEX, font_italic=False,
            rank_height=0.16, font_thickness=0.10, red=(35, 35, 170), black=(50, 30, 30),
            stock=(250, 250, 252), border="line", border_colour=(35, 35, 170),
            corner_radius=0.12, index_x=0.06, index_y=0.06, suit_size=0.10, suit_gap=0.25,
            face_art="letter", art_colours=((160, 110, 40), (60, 60, 200), (40, 160, 200)),
            pip_layout="single", back_pattern="rings", back_colour=(100, 30, 110)),
        # Added to widen the tuning set: a heavy sans, a serif close to a double
        # border, a slanted sans and a small plain index.
        CardDesign(
            name="bold_sans", font_face=cv2.FONT_HERSHEY_SIMPLEX, font_italic=False,
            rank_height=0.18, font_thickness=0.2, red=(25, 15, 195), black=(15, 15, 15),
            stock=(244, 246, 240), border="frame", border_colour=(20, 20, 150),
            corner_radius=0.06, index_x=0.05, index_y=0.055, suit_size=0.12, suit_gap=0.16,
            face_art="geometric", art_colours=((150, 100, 20), (30, 170, 240), (25, 15, 195)),
            pip_layout="single", back_pattern="lattice", back_colour=(20, 100, 20)),
        CardDesign(
            name="complex_double", font_face=cv2.FONT_HERSHEY_COMPLEX, font_italic=False,
            rank_height=0.15, font_thickness=0.11, red=(40, 20, 200), black=(30, 25, 25),
            stock=(240, 246, 248), border="double", border_colour=(100, 100, 100),
            corner_radius=0.08, index_x=0.064, index_y=0.064, suit_size=0.1, suit_gap=0.2,
            face_art="letter", art_colours=((90, 40, 150), (40, 190, 220), (40, 20, 200)),
            pip_layout="classic", back_pattern="dots", back_colour=(150, 40, 40)),
        CardDesign(
            name="slanted_simplex", font_face=cv2.FONT_HERSHEY_SIMPLEX, font_italic=True,
            rank_height=0.16, font_thickness=0.13, red=(50, 30, 215), black=(25, 25, 40),
            stock=(250, 248, 244), border="line", border_colour=(60, 60, 60),
            corner_radius=0.07, index_x=0.058, index_y=0.058, suit_size=0.11, suit_gap=0.22,
            face_art="framed", art_colours=((40, 120, 160), (60, 200, 200), (50, 30, 215)),
            pip_layout="classic", back_pattern="stripes", back_colour=(60, 60, 140)),
        CardDesign(
            name="tiny_plain", font_face=cv2.FONT_HERSHEY_PLAIN, font_italic=False,
            rank_height=0.12, font_thickness=0.15, red=(30, 10, 180), black=(40, 40, 40),
            stock=(248, 250, 250), border="line", border_colour=(30, 10, 180),
            corner_radius=0.05, index_x=0.06, index_y=0.06, suit_size=0.09, suit_gap=0.25,
            face_art="letter", art_colours=((20, 20, 20), (20, 150, 220), (30, 10, 180)),
            pip_layout="single", back_pattern="rings", back_colour=(40, 40, 40)),
        # Held out: never seen while training or tuning the recognizer.
        CardDesign(
            name="triplex_serif", font_face=cv2.FONT_HERSHEY_TRIPLEX, font_italic=False,
            rank_height=0.16, font_thickness=0.13, red=(45, 25, 190), black=(20, 20, 35),
            stock=(238, 248, 252), border="double", border_colour=(90, 90, 90),
            corner_radius=0.09, index_x=0.065, index_y=0.065, suit_size=0.11, suit_gap=0.22,
            face_art="geometric", art_colours=((160, 40, 40), (40, 200, 220), (40, 30, 190)),
            pip_layout="classic", back_pattern="stripes", back_colour=(40, 40, 160)),
        CardDesign(
            name="italic_duplex", font_face=cv2.FONT_HERSHEY_DUPLEX, font_italic=True,
            rank_height=0.17, font_thickness=0.13, red=(70, 40, 230), black=(35, 35, 35),
            stock=(250, 252, 250), border="frame", border_colour=(30, 30, 30),
            corner_radius=0.06, index_x=0.045, index_y=0.05, suit_size=0.12, suit_gap=0.2,
            face_art="framed", art_colours=((60, 60, 60), (20, 170, 230), (170, 80, 20)),
            pip_layout="single", back_pattern="dots", back_colour=(120, 70, 10)),
    )
}

TUNING_DESIGNS: tuple[str, ...] = (
    "classic_duplex", "casino_jumbo", "royal_complex", "plain_sans", "small_complex",
    "slim_simplex", "bold_sans", "complex_double", "slanted_simplex", "tiny_plain",
)
HELD_OUT_DESIGNS: tuple[str, ...] = ("triplex_serif", "italic_duplex")


def design_named(name: str) -> CardDesign:
    """The design called `name`; a clear error lists the known ones."""
    try:
        return DESIGNS[name]
    except KeyError:
        known = ", ".join(sorted(DESIGNS))
        raise KeyError(f"unknown card design {name!r}; known designs: {known}") from None
