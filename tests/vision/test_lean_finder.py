"""The lean finder: the candidate finder's passes left out where the learnt proposer reads."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from tests.vision.finder_pictures import BLURRED_PIP_CENTRE, blurred_rank_and_pip
from vision.candidates import (
    ALL_PASSES,
    INK_BLOCK_PX,
    LEAN_PASSES,
    _ink_passes,
    blobs_on,
    card_stock,
    ink_masks,
)
from vision.recognizer import Recognizer


def _near(centres: np.ndarray, x: float, y: float, within: float = 2.5) -> int:
    """How many blob centres lie within `within` px of (x, y)."""
    return int((np.hypot(centres[:, 0] - x, centres[:, 1] - y) < within).sum())


def test_the_lean_passes_are_the_first_and_the_strict_pass_of_the_three() -> None:
    rng = np.random.default_rng(11)
    darkest = cv2.GaussianBlur(rng.integers(0, 256, (120, 160), dtype=np.uint8), (5, 5), 0)
    near_card = np.zeros_like(darkest)
    near_card[:, :90] = 255
    every = _ink_passes(darkest, near_card)
    lean = _ink_passes(darkest, near_card, wide_block=False)
    assert [thinned for _, thinned in lean] == [0, 1]
    for (mask, _), (want, _) in zip(lean, [every[0], every[2]], strict=True):
        np.testing.assert_array_equal(mask, want)


def test_the_lean_finder_finds_a_blurred_rank_and_pip_each_once() -> None:
    """A red "L" over a red pip joined by a pale pink smear: the small block's loose
    mask already holds them apart. The wide block's pass and the thinned pieces of
    the strict pass add each glyph again; the lean finder has each once."""
    card = blurred_rank_and_pip()
    ys, xs = np.nonzero(card[100:125, 105:135].min(axis=2) < 100)
    rank = (float(xs.mean()) + 105, float(ys.mean()) + 100)
    stock = card_stock(card)
    lean = blobs_on(stock, LEAN_PASSES).centres
    every = blobs_on(stock, ALL_PASSES).centres
    assert _near(lean, *rank) == 1 and _near(lean, *BLURRED_PIP_CENTRE) == 1, lean
    assert _near(every, *rank) == 2 and _near(every, *BLURRED_PIP_CENTRE) == 2, every
    assert len(lean) == 2


def test_the_lean_finder_still_frees_a_glyph_joined_to_a_border_line() -> None:
    """A black "L" under a card's border line, joined to it by a thin grey stroke: the loose
    mask holds line and glyph as one component, too long for a glyph; the strict pass,
    thinned, frees the glyph in the lean finder too."""
    card = np.full((300, 300, 3), (40, 110, 40), np.uint8)
    cv2.rectangle(card, (60, 60), (240, 260), (245, 245, 245), -1)
    ink = (20, 20, 20)
    cv2.line(card, (70, 95), (230, 95), ink, 2)  # the border line
    cv2.rectangle(card, (113, 100), (116, 118), ink, -1)  # the rank, an "L"
    cv2.rectangle(card, (113, 115), (127, 118), ink, -1)
    cv2.rectangle(card, (114, 96), (115, 99), (90, 90, 90), -1)  # the thin join
    cv2.circle(card, (120, 132), 6, ink, -1)  # the pip
    loose, _strict = ink_masks(card.min(axis=2), INK_BLOCK_PX)
    labels = cv2.connectedComponents(loose)[1]
    assert labels[110, 114] == labels[95, 200] != 0  # glyph and line: one loose component
    # The L's pixels: a 4 x 19 bar and a 15 x 4 foot sharing a 4 x 4 square.
    rank_x = (4 * 19 * 114.5 + 15 * 4 * 120.0 - 16 * 114.5) / (4 * 19 + 15 * 4 - 16)
    rank_y = (4 * 19 * 109.0 + 15 * 4 * 116.5 - 16 * 116.5) / (4 * 19 + 15 * 4 - 16)
    lean = blobs_on(card_stock(card), LEAN_PASSES).centres
    assert _near(lean, rank_x, rank_y, within=1.5) == 1, (rank_x, rank_y, lean)
    assert _near(lean, 120.0, 132.0) == 1, lean


def test_the_shipped_recognizer_runs_the_lean_finder_only_beside_the_proposer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.recognizer as module

    used: list[Any] = []
    real = module.blobs_on

    def recording(stock: Any, passes: Any = ALL_PASSES) -> Any:
        used.append(passes)
        return real(stock, passes)

    monkeypatch.setattr(module, "blobs_on", recording)
    frame = np.full((120, 160, 3), (40, 110, 40), np.uint8)
    shipped = Recognizer()
    assert shipped.lean_finder
    shipped.detect(frame)
    Recognizer(proposer=False).detect(frame)  # the finder alone: every pass
    assert used == [LEAN_PASSES, ALL_PASSES]


def test_a_lean_finder_setting_not_true_or_false_is_refused(tmp_path: Any) -> None:
    from tests.vision.model_copies import model_copy
    from vision.recognizer import ModelError

    model = model_copy(tmp_path, lean_finder="yes")
    with pytest.raises(ModelError, match="index_classifier.json: lean_finder 'yes' is not "
                                         "true or false"):
        Recognizer(model)
    assert not Recognizer(model_copy(tmp_path, lean_finder=False)).lean_finder
