"""`tablectl vision detect` and `preview` on rendered pictures."""

from __future__ import annotations

import json
import math
import re
import statistics
from pathlib import Path

import cv2
import pytest
from hwsim.camera import designs as designs_module
from hwsim.camera import render as camera

from tablectl.cli import main


def _rendered(card_width: int = 115) -> camera.RenderedScene:
    name = designs_module.TUNING_DESIGNS[0]
    design = designs_module.DESIGNS[name if isinstance(name, str) else name.name]
    spec = camera.SceneSpec(boxes={"box1": ["QS", "4H"], "box2": ["TC", "6D", "JS"]},
                            dealer=["AH"], card_width=card_width)
    return camera.render_scene(spec, design, 11)


def _scene(tmp_path: Path, card_width: int = 115) -> tuple[Path, Path, set[str]]:
    scene = _rendered(card_width)
    image = tmp_path / "scene.png"
    cv2.imwrite(str(image), scene.image)
    layout = tmp_path / "layout.json"
    layout.write_text(json.dumps(scene.layout))
    return image, layout, {t.card for t in scene.truth if t.index_points}


def _true_index_px(card_width: int = 115) -> dict[str, float]:
    """Each visible card's index size as drawn: its rank glyph's centre to its pip's."""
    return {t.card: sum(math.dist(r, p) for r, p in t.index_glyphs) / len(t.index_glyphs)
            for t in _rendered(card_width).truth if t.index_glyphs}


def test_detect_json_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image, layout, visible = _scene(tmp_path)
    assert main(["vision", "detect", str(image), str(image), "--json", "--layout",
                 str(layout)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    true_px = _true_index_px()
    for line in lines:
        doc = json.loads(line)
        assert doc["image"] == str(image)
        assert {c["card"] for c in doc["cards"]} == visible
        for card in doc["cards"]:
            assert set(card) - {"alternatives"} == {"card", "x", "y", "box", "confidence",
                                                    "index_px"}
            # The pair read is the index drawn: within 15% of its true size.
            assert card["index_px"] == pytest.approx(true_px[card["card"]], rel=0.15)
            for other, chance in card.get("alternatives", []):
                assert other != card["card"] and 0.001 <= chance < 1.0
            assert isinstance(card["x"], float) and isinstance(card["y"], float)
            assert 0 <= card["x"] < 1280 and 0 <= card["y"] < 720
            assert card["box"] in {"box1", "box2", "dealer"}
            assert 0.0 < card["confidence"] <= 1.0


def test_detect_with_the_faint_passes_reads_the_same_clean_scene(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.recognizer as module

    asked: list[bool] = []
    real_init = module.Recognizer.__init__

    def init(self: module.Recognizer, *args: object, **kwargs: object) -> None:
        asked.append(bool(kwargs.get("faint_passes")))
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(module.Recognizer, "__init__", init)
    image, _layout, visible = _scene(tmp_path)
    assert main(["vision", "detect", str(image), "--json", "--faint-passes"]) == 0
    assert asked == [True]
    doc = json.loads(capsys.readouterr().out)
    assert {c["card"] for c in doc["cards"]} == visible


def test_detect_without_the_proposer_reads_the_finders_pairs_alone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.recognizer as module

    made: list[module.Recognizer] = []
    real_init = module.Recognizer.__init__

    def init(self: module.Recognizer, *args: object, **kwargs: object) -> None:
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]
        made.append(self)

    monkeypatch.setattr(module.Recognizer, "__init__", init)
    image, _layout, visible = _scene(tmp_path)
    for flags, with_proposer in (([], True), (["--no-proposer"], False)):
        assert main(["vision", "detect", str(image), "--json", *flags]) == 0
        assert (made[-1].proposer is not None) is with_proposer
        doc = json.loads(capsys.readouterr().out)
        assert {c["card"] for c in doc["cards"]} == visible


def test_detect_reports_an_unreadable_image_and_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image, _layout, visible = _scene(tmp_path)
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a picture")
    assert main(["vision", "detect", str(broken), str(image), "--json"]) == 1
    captured = capsys.readouterr()
    assert "broken.png" in captured.err and "skipped" in captured.err
    (line,) = captured.out.strip().splitlines()
    assert {c["card"] for c in json.loads(line)["cards"]} == visible


def test_detect_with_a_bad_layout_says_so(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    image, _layout, _visible = _scene(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "table-layout/1"}')
    assert main(["vision", "detect", str(image), "--layout", str(bad)]) == 1
    assert "image_size" in capsys.readouterr().err


def test_preview_writes_the_annotated_picture(tmp_path: Path) -> None:
    image, layout, _visible = _scene(tmp_path)
    out = tmp_path / "preview.png"
    assert main(["vision", "preview", str(image), "--out", str(out), "--layout",
                 str(layout)]) == 0
    drawn = cv2.imread(str(out))
    original = cv2.imread(str(image))
    assert drawn is not None and original is not None
    assert drawn.shape == original.shape
    assert (cv2.absdiff(drawn, original).max(axis=2) > 60).sum() > 500


@pytest.mark.parametrize("card_width", [115, 80])
def test_preview_says_how_large_the_indices_are(tmp_path: Path, card_width: int,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    image, layout, _visible = _scene(tmp_path, card_width)
    out = tmp_path / "preview.png"
    assert main(["vision", "preview", str(image), "--out", str(out), "--layout",
                 str(layout)]) == 0
    line = capsys.readouterr().out.strip()
    match = re.search(r"6 cards; index size ([0-9.]+) px", line)
    assert match, line
    true_sizes = sorted(_true_index_px(card_width).values())
    assert float(match.group(1)) == pytest.approx(statistics.median(true_sizes), rel=0.15)
    # Drawn at 115 px the indices are about 19 px; at 80 px about 13, under 14.
    assert ("under 14 px, more cards are missed" in line) is (card_width == 80)


def test_a_grey_picture_is_read_with_a_warning(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    image, layout, _visible = _scene(tmp_path)
    assert main(["vision", "detect", str(image), "--json", "--layout", str(layout)]) == 0
    assert "no colour" not in capsys.readouterr().err
    grey = tmp_path / "grey.png"
    cv2.imwrite(str(grey), cv2.cvtColor(cv2.imread(str(image)), cv2.COLOR_BGR2GRAY))
    assert main(["vision", "detect", str(grey), "--json", "--layout", str(layout)]) == 0
    captured = capsys.readouterr()
    assert "grey.png" in captured.err and "no colour" in captured.err
    assert json.loads(captured.out)["image"] == str(grey)


def test_colour_is_told_from_grey() -> None:
    import numpy as np

    from vision.images import has_colour

    table = np.full((720, 1280, 3), 200, np.uint8)  # grey felt, white cards, black print
    table[100:400, 300:700] = 250
    table[120:160, 320:340] = 20
    assert not has_colour(table)
    # One red index (28 x 40 px, 0.12% of the frame) is colour enough.
    table[200:240, 500:528] = (40, 40, 200)
    assert has_colour(table)
    assert has_colour(np.full((720, 1280, 3), (40, 110, 50), np.uint8))  # green felt
