"""The scene spoiling of the verifier's training crops (`tools/verifier_scene_spoiling.py`).

Training needs PyTorch (`pip install -e '.[train]'`); without it these tests are skipped.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from tests.tools.verifier_crops import HEIGHT, INK, PAPER, WIDTH, tool

torch = pytest.importorskip("torch")


def _spoiling() -> ModuleType:
    return tool("verifier_scene_spoiling")


def _ink_dot(count: int, row: int = 18, column: int = 12) -> Any:
    crops = torch.full((count, 3, HEIGHT, WIDTH), PAPER)
    crops[:, :, row, column] = INK
    return crops


def _sample(crops: Any, theta: Any) -> Any:
    grid = torch.nn.functional.affine_grid(theta, list(crops.shape), align_corners=False)
    return torch.nn.functional.grid_sample(crops, grid, padding_mode="border",
                                           align_corners=False)


def test_without_scene_spoiling_nothing_changes_and_nothing_is_drawn() -> None:
    module = _spoiling()
    crops = _ink_dot(8)
    generator = torch.Generator().manual_seed(3)
    before = generator.get_state()
    assert torch.equal(module.glared(crops, generator, 0.0), crops)
    assert torch.equal(module.smeared(crops, generator, 0.0), crops)
    theta = torch.eye(2, 3).expand(8, 2, 3)
    assert torch.equal(module.sheared_theta(theta, generator, 0.0, HEIGHT / WIDTH), theta)
    # Drawing still happens (the spoiling is then skipped by `augment` itself), but the
    # pictures are the same: `augment` calls these only when the strength is above 0.
    assert not torch.equal(generator.get_state(), before)


def test_glare_fades_ink_towards_paper_and_never_past_it() -> None:
    module = _spoiling()
    crops = torch.full((200, 3, HEIGHT, WIDTH), INK)
    generator = torch.Generator().manual_seed(4)
    # At strength 1 / GLARE_SHARE every crop gets a patch.
    glared = module.glared(crops, generator, 1 / module.GLARE_SHARE)
    assert float(glared.min()) >= INK - 1e-6 and float(glared.max()) <= PAPER + 1e-6
    faded = (glared.amax(dim=(1, 2, 3)) > INK + 0.05).float().mean()
    assert float(faded) > 0.8  # a fade drawn near 0 leaves a few nearly as they were
    # The patch is soft and round: each crop's brightest pixel fades the most, and the
    # fade falls off away from it.
    brightest = glared[:, 0].flatten(1).max(dim=1).values
    assert float(brightest.max()) <= INK + module.GLARE_FADE * (PAPER - INK) + 1e-5
    assert float(glared[:, 0].std(dim=(1, 2)).mean()) > 0


def test_a_smear_spreads_a_dot_along_a_line_no_longer_than_its_length() -> None:
    module = _spoiling()
    crops = _ink_dot(300)
    generator = torch.Generator().manual_seed(5)
    strength = 1 / module.SMEAR_SHARE  # every crop smeared, by up to SMEAR_PX * strength
    smeared = module.smeared(crops, generator, strength)
    ink = (PAPER - smeared[:, 0]).clamp(min=0)
    # Ink is moved, not made or lost (the dot lies far from the crop's edges).
    assert torch.allclose(ink.sum(dim=(1, 2)), torch.ones(300), atol=1e-4)
    # Half the smear each way, and a pixel and a half of bilinear sampling around it.
    reach = module.SMEAR_PX * strength / 2 + 1.5
    rows, columns = torch.meshgrid(torch.arange(HEIGHT), torch.arange(WIDTH), indexing="ij")
    distance = ((rows - 18.0) ** 2 + (columns - 12.0) ** 2).sqrt()
    assert float((ink * (distance > reach)).sum()) == pytest.approx(0.0, abs=1e-5)
    # Most dots are spread over several pixels, each crop its own way.
    spread = (ink > 1e-3).sum(dim=(1, 2))
    assert float((spread > 1).float().mean()) > 0.5
    assert len({int(s) for s in spread}) > 3


def test_a_shear_leans_a_vertical_stroke_by_at_most_the_shear_per_pixel_down() -> None:
    module = _spoiling()
    count = 100
    crops = torch.full((count, 3, HEIGHT, WIDTH), PAPER)
    crops[:, :, :, 12] = INK
    generator = torch.Generator().manual_seed(6)
    theta = module.sheared_theta(torch.eye(2, 3).expand(count, 2, 3), generator, 1.0,
                                 HEIGHT / WIDTH)
    leaning = _sample(crops, theta)
    ink = (PAPER - leaning[:, 0]).clamp(min=0)
    centres = (ink * torch.arange(WIDTH)).sum(dim=2) / ink.sum(dim=2)  # (count, HEIGHT)
    lean = (centres[:, 4] - centres[:, HEIGHT - 5]) / (HEIGHT - 9)  # px across per px down
    assert float(lean.abs().max()) <= module.SHEAR + 0.01
    assert float(lean.abs().max()) > module.SHEAR / 2
    # Leaning both ways, and the middle row stays where it was.
    assert float(lean.min()) < 0 < float(lean.max())
    assert torch.allclose(centres[:, HEIGHT // 2], torch.full((count,), 12.0), atol=0.6)
