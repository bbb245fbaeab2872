"""The glyph-shape spoiling of the verifier's training crops (`tools/verifier_training.py`).

Training needs PyTorch (`pip install -e '.[train]'`); without it these tests are skipped.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from tests.tools.verifier_crops import HEIGHT, INK, PAPER, WIDTH, tool

torch = pytest.importorskip("torch")


def _verifier_training() -> ModuleType:
    return tool("verifier_training")


def _vertical_line(column: int) -> Any:
    crop = torch.full((1, 3, HEIGHT, WIDTH), PAPER)
    crop[..., column] = INK
    return crop


def _identity_grid() -> Any:
    theta = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    return torch.nn.functional.affine_grid(theta, [1, 3, HEIGHT, WIDTH], align_corners=False)


def _sample(crop: Any, grid: Any) -> Any:
    return torch.nn.functional.grid_sample(crop, grid, padding_mode="border",
                                           align_corners=False)


def _ink_columns(crop: Any, row: int) -> list[int]:
    return [int(c) for c in torch.nonzero(crop[0, 0, row] < 0).flatten()]


def _ink_centre(crop: Any, row: int) -> float:
    """The column of a row's ink, weighted by how dark each pixel is."""
    ink = PAPER - crop[0, 0, row]
    return float((ink * torch.arange(WIDTH)).sum() / ink.sum())


def test_a_bolder_stroke_is_a_pixel_wider_each_side_and_a_lighter_one_vanishes() -> None:
    stroke_changed = _verifier_training().stroke_changed
    line = _vertical_line(12)
    assert _ink_columns(stroke_changed(line, torch.tensor([1.0])), 5) == [11, 12, 13]
    assert _ink_columns(stroke_changed(line, torch.tensor([-1.0])), 5) == []
    assert torch.equal(stroke_changed(line, torch.tensor([0.0])), line)
    # Half of the filter mixed in: the neighbours half way to ink, the line itself kept.
    half = stroke_changed(line, torch.tensor([0.5]))[0, 0, 5]
    assert float(half[11]) == pytest.approx(0.0) and float(half[12]) == pytest.approx(INK)


def test_a_slant_leans_a_vertical_stroke_by_that_many_pixels_per_pixel_down() -> None:
    slant_grid = _verifier_training().slant_grid
    leaning = _sample(_vertical_line(12), slant_grid(_identity_grid(), torch.tensor([0.2]),
                                                     HEIGHT, WIDTH))
    # 35 rows apart at 0.2 px a row: 7 px; the sampling grid moves the other way.
    assert _ink_centre(leaning, 0) - _ink_centre(leaning, HEIGHT - 1) == pytest.approx(
        7.0, abs=0.5)
    assert _ink_centre(leaning, HEIGHT // 2) == pytest.approx(12.0, abs=0.5)


def test_a_warp_moves_the_picture_by_its_displacements_in_pixels() -> None:
    warp_grid = _verifier_training().warp_grid
    grid = _identity_grid()
    assert torch.equal(warp_grid(grid, torch.zeros(1, 2, 7, 5)), grid)
    # Every crop pixel samples 2 px further right: the line shows 2 px to the left.
    shift = torch.zeros(1, 2, 7, 5)
    shift[:, 0] = 2.0
    moved = _sample(_vertical_line(12), warp_grid(grid, shift))
    assert _ink_columns(moved, 18) == [10]


def test_shape_spoiling_keeps_every_crop_a_picture_of_paper_and_ink() -> None:
    module = _verifier_training()
    crops = _vertical_line(12).repeat(64, 1, 1, 1)
    generator = torch.Generator().manual_seed(5)
    spoiled = module.shape_spoiled(crops, _identity_grid().repeat(64, 1, 1, 1), generator, 1.0)
    assert spoiled.shape == crops.shape
    assert float(spoiled.min()) >= INK - 1e-6 and float(spoiled.max()) <= PAPER + 1e-6
    # Each crop spoiled its own way; a lighter stroke keeps a third of its contrast.
    assert len({round(_ink_centre(spoiled[k:k + 1], 18), 1) for k in range(64)}) > 10
    assert all(float(spoiled[k, 0].min()) < PAPER - (PAPER - INK) / 3 for k in range(64))
