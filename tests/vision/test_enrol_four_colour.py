"""A four-colour house deck: enrolment names the cards printed in colours the camera
cannot read, and says why.

The cards are the committed public-domain deck (`cc0-kennard`), its diamonds
recoloured blue as the same artist's four-colour deck prints them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from hwsim.camera import deck_corpus as dc

from vision.enrolment import (
    COLOURED_PRINT_SHARE,
    EnrolmentReport,
    coloured_print_share,
    enrol,
    upright_card,
)
from vision.recognizer import Recognizer

KENNARD = dc.SHIPPED_DIR / "kennard"
needs_rsvg = pytest.mark.skipif(shutil.which("rsvg-convert") is None,
                                reason="rsvg-convert missing: sudo apt-get install librsvg2-bin")


def _card_photo(svg: Path) -> np.ndarray:
    """The card drawn 260 px wide on a dark mat, as a photo of it would be."""
    face = dc.render_element(svg, None, 260 / 240)
    h, w = face.shape[:2]
    mat = np.full((h + 120, w + 120, 3), 45.0, np.float32)
    alpha = face[:, :, 3:4] / 255.0
    mat[60:60 + h, 60:60 + w] = face[:, :, :3] * alpha + mat[60:60 + h, 60:60 + w] * (1 - alpha)
    return mat.astype(np.uint8)


def _blue(svg: Path, folder: Path) -> Path:
    text = svg.read_text().replace('"red"', '"blue"')
    out = folder / svg.name
    out.write_text(text)
    return out


def test_black_and_red_print_is_not_coloured_and_blue_is() -> None:
    card = np.full((154, 110, 3), 235, np.uint8)
    assert coloured_print_share(card) == 0.0  # no print at all
    card[20:60, 20:50] = (20, 20, 20)  # black
    card[80:120, 20:50] = (30, 30, 200)  # red (BGR)
    assert coloured_print_share(card) == 0.0
    card[80:120, 60:90] = (200, 40, 20)  # blue, as much as the black
    assert coloured_print_share(card) == pytest.approx(1 / 3, abs=0.01)


@needs_rsvg
def test_enrolment_names_the_blue_diamonds_as_a_four_colour_deck(tmp_path: Path) -> None:
    pictures = {card: _card_photo(KENNARD / f"{card}.svg") for card in ("2H", "5S")}
    for card in ("2D", "7D"):
        pictures[card] = _card_photo(_blue(KENNARD / f"{card}.svg", tmp_path))
    assert coloured_print_share(upright_card(pictures["7D"])) >= COLOURED_PRINT_SHARE
    report = EnrolmentReport()
    enrol(Recognizer(), pictures, "four-colour", report)
    assert sorted(report.enrolled) == ["2H", "5S"]
    assert report.unreadable == ["2D", "7D"] == report.coloured
    said = "\n".join(report.lines())
    assert "printed in other colours than red and black: 2D, 7D" in said
    assert "four-colour deck" in said and not report.complete


@needs_rsvg
def test_the_same_cards_printed_red_are_enrolled() -> None:
    pictures = {card: _card_photo(KENNARD / f"{card}.svg") for card in ("2D", "7D")}
    assert coloured_print_share(upright_card(pictures["7D"])) < 0.05
    report = EnrolmentReport()
    enrol(Recognizer(), pictures, "two-colour", report)
    assert sorted(report.enrolled) == ["2D", "7D"] and report.coloured == []
    assert all("colours" not in line for line in report.lines())
