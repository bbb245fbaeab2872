import json
from pathlib import Path

import pytest

from vision.layout import Layout, LayoutError, layout_from_dict, load_layout, save_layout


def _layout() -> Layout:
    return Layout((1280, 720), {
        "box1": ((100.0, 400.0), (300.0, 400.0), (300.0, 600.0), (100.0, 600.0)),
        "box2": ((280.0, 400.0), (500.0, 400.0), (500.0, 600.0), (280.0, 600.0)),
        "dealer": ((500.0, 50.0), (780.0, 50.0), (640.0, 250.0)),
    })


def test_point_in_area() -> None:
    layout = _layout()
    assert layout.area_of(150, 450) == "box1"
    assert layout.area_of(450, 590) == "box2"
    assert layout.area_of(640, 100) == "dealer"
    # The dealer triangle narrows towards its tip: (560, 200) is outside it.
    assert layout.area_of(560, 200) is None
    assert layout.area_of(1000, 700) is None


def test_reach_takes_a_point_just_outside_to_the_nearest_area() -> None:
    layout = _layout()
    # (90, 450) is 10 px left of box1, (1000, 700) far from everything.
    assert layout.area_of(90, 450) is None
    assert layout.area_of(90, 450, reach=15) == "box1"
    assert layout.area_of(1000, 700, reach=15) is None


def test_overlap_goes_to_the_area_the_point_is_deepest_in() -> None:
    layout = _layout()
    # 285..300 is in both boxes: 298 is 2 px inside box1's edge, 18 px inside box2's.
    assert layout.area_of(298, 500) == "box2"
    assert layout.area_of(282, 500) == "box1"


def test_round_trip_through_the_file(tmp_path: Path) -> None:
    path = tmp_path / "layout.json"
    save_layout(_layout(), path)
    doc = json.loads(path.read_text())
    assert doc["format"] == "table-layout/1"
    assert doc["image_size"] == [1280, 720]
    loaded = load_layout(path)
    assert loaded.area_of(150, 450) == "box1"
    assert set(loaded.areas) == {"box1", "box2", "dealer"}


def test_scaled_layout_for_another_resolution() -> None:
    half = _layout().scaled_to(640, 360)
    assert half.area_of(75, 225) == "box1"
    assert half.area_of(150, 450) is None


@pytest.mark.parametrize(("doc", "message"), [
    ({"format": "other", "image_size": [10, 10], "areas": {"a": [[0, 0], [1, 0], [1, 1]]}},
     "format"),
    ({"format": "table-layout/1", "image_size": [10], "areas": {"a": [[0, 0], [1, 0], [1, 1]]}},
     "image_size"),
    ({"format": "table-layout/1", "image_size": [10, 10], "areas": {"a": [[0, 0], [1, 0]]}},
     "area 'a'"),
    ({"format": "table-layout/1", "image_size": [10, 10], "areas": {}}, "areas"),
    ({"format": "table-layout/1", "image_size": [10, 10],
      "areas": {"a": [[0, 0], [1, "x"], [1, 1]]}}, "area 'a'"),
])
def test_bad_documents_say_what_is_wrong(doc: dict[str, object], message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        layout_from_dict(doc, "layout.json")


def test_unreadable_file_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="vision calibrate"):
        load_layout(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(LayoutError, match="line 1"):
        load_layout(broken)
