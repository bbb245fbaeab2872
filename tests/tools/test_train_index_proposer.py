"""The proposer's training targets (`tools/train_index_proposer.py`), worked out by hand."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

TOOLS = Path(__file__).resolve().parents[2] / "tools"


def _tool() -> ModuleType:
    if str(TOOLS) not in sys.path:
        sys.path.insert(0, str(TOOLS))
    return importlib.import_module("train_index_proposer")


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_a_point_turns_with_its_crop(turns: int) -> None:
    tool = _tool()
    image = np.zeros((tool.CROP, tool.CROP), np.uint8)
    image[20, 10] = 255  # x 10, y 20
    turned = np.rot90(image, turns)
    (x, y), = tool._turn(np.array([[10.0, 20.0]], np.float32), turns)
    assert turned[int(y), int(x)] == 255


def test_an_index_is_taught_at_its_midpoint_with_its_rank_to_pip_vector() -> None:
    tool = _tool()
    assert (tool.STRIDE, tool.INPUT_SCALE, tool.VECTOR_UNIT) == (8, 2, 16.0)
    # Cells of 4 half-size pixels. Rank (40, 40) over pip (40, 64); midpoint (40, 52) is
    # cell (10, 13).
    heat, regress, weight = tool.targets(np.array([[40.0, 40.0]], np.float32),
                                         np.array([[40.0, 64.0]], np.float32),
                                         np.array([[200.0, 200.0]], np.float32), 4)
    g = tool.CROP // 4
    assert heat.shape == weight.shape == (1, g, g) and regress.shape == (5, g, g)
    assert heat[0, 13, 10] == 1.0 and (heat[0] == 1.0).sum() == 1
    # 24 half-size pixels down are 48 frame pixels: 3 units of 16.
    np.testing.assert_allclose(regress[:, 13, 10], [0.0, 0.0, 0.0, 3.0, 1.0])
    # The neighbour up and to the left: the midpoint is one cell right and down of it.
    np.testing.assert_allclose(regress[:, 12, 9], [1.0, 1.0, 0.0, 3.0, 1.0])
    assert regress[4].sum() == 9  # the 3x3 cells around the midpoint
    # Background cells far from both are taught with full weight; around the partly open
    # corner at cell (50, 50) they are not taught at all.
    assert weight[0, 0, 0] == 1.0 and heat[0, 0, 0] == 0.0
    # Cell centres within 2 cells of (50, 50) along row 50: columns 48 to 51.
    assert weight[0, 50, 48] == weight[0, 50, 51] == 0.0
    assert weight[0, 50, 47] == weight[0, 50, 52] == 1.0


def test_finer_cells_place_the_same_index_in_their_own_grid() -> None:
    tool = _tool()
    # Cells of 2 half-size pixels (4 frame pixels): midpoint (41, 52) is cell (20, 26),
    # half a cell right of its corner; the vector is the same 3 units.
    heat, regress, weight = tool.targets(np.array([[41.0, 40.0]], np.float32),
                                         np.array([[41.0, 64.0]], np.float32),
                                         np.array([[100.0, 100.0]], np.float32), 2)
    assert heat.shape == (1, tool.CROP // 2, tool.CROP // 2)
    assert heat[0, 26, 20] == 1.0 and (heat[0] == 1.0).sum() == 1
    np.testing.assert_allclose(regress[:, 26, 20], [0.5, 0.0, 0.0, 3.0, 1.0])
    # The partly open corner at (100, 100) still shuts out 8 half-size pixels around it:
    # 4 cells of 2: along row 50 the cells whose centres lie 46.5 to 53.5.
    assert weight[0, 50, 46] == weight[0, 50, 53] == 0.0
    assert weight[0, 50, 45] == weight[0, 50, 54] == 1.0


def test_a_network_of_finer_cells_answers_four_cells_for_each_of_the_body() -> None:
    torch = pytest.importorskip("torch")
    tool = _tool()
    frame = torch.zeros(1, 3, 64, 96)  # half-size pixels
    coarse, fine = (tool.build_network(8, stride)(frame) for stride in (8, 4))
    assert coarse.shape == (1, 5, 16, 24) and fine.shape == (1, 5, 32, 48)


def test_an_index_outside_the_crop_teaches_nothing() -> None:
    tool = _tool()
    heat, regress, _ = tool.targets(np.array([[-30.0, 40.0]], np.float32),
                                    np.array([[-30.0, 64.0]], np.float32),
                                    np.zeros((0, 2), np.float32), 4)
    assert heat.max() == 0.0 and regress.max() == 0.0


@pytest.mark.parametrize("option", ["--scenes", "--steps", "--jobs", "--channels"])
def test_a_count_under_one_is_refused_before_anything_is_rendered(
        option: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _tool().main([option, "0"])
    assert exit_info.value.code == 2
    assert f"{option} must be 1 or more" in capsys.readouterr().err


def test_an_unreadable_scene_cache_is_rendered_afresh(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    tool = _tool()
    cache = tmp_path / "scenes.npz"
    cache.write_bytes(b"not a zip file")
    none = np.zeros((0, 2), np.float32)
    rendered = [tool.SceneTruth(np.zeros((4, 4, 3), np.uint8), none, none, none)]
    monkeypatch.setattr(tool, "render_scenes", lambda *args: rendered)
    assert tool.load_or_render(cache, 1, 1, ["kde-standard"], 1) is rendered
    assert "cannot be read" in capsys.readouterr().out
    # Written again, it is read back as the same scenes.
    again = tool.load_or_render(cache, 1, 1, ["kde-standard"], 1)
    assert len(again) == 1 and again[0].image.shape == (4, 4, 3) and len(again[0].ranks) == 0
    # Made for other scenes, it is not taken.
    other = [tool.SceneTruth(np.ones((4, 4, 3), np.uint8), none, none, none)]
    monkeypatch.setattr(tool, "render_scenes", lambda *args: other)
    assert tool.load_or_render(cache, 2, 1, ["kde-standard"], 1) is other
