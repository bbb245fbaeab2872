"""The simulated camera: real OpenCV pictures of cards and table scenes, and their truth."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hwsim.camera import dataset
from hwsim.camera.camera_view import CameraView
from hwsim.camera.cards import card_geometry
from hwsim.camera.designs import DESIGNS, HELD_OUT_DESIGNS, TUNING_DESIGNS
from hwsim.camera.render import (
    RenderedScene,
    SceneSpec,
    render_card,
    render_scene,
)
from hwsim.camera.table_frames import TABLE_BOXES, render_table_frame, table_layout

RANKS = "A23456789TJQK"
SUITS = "SHDC"
DECK = [r + s for r in RANKS for s in SUITS]
HANDS = {"box1": ["QS", "7H", "TD"], "box2": ["AC", "2D"], "box3": ["KH", "9S", "5C", "3D"],
         "box4": ["4C", "6S"]}


def _clean(**changes: object) -> SceneSpec:
    """A scene without light, blur or JPEG effects and no printed lines on the felt."""
    fields: dict[str, object] = {"boxes": HANDS, "dealer": ["8D", "KC"], "card_width": 110,
                                 "felt_print": False}
    fields.update(changes)
    return SceneSpec(**fields)  # type: ignore[arg-type]


def _window(image: np.ndarray, x: float, y: float, r: int) -> np.ndarray:
    h, w = image.shape[:2]
    x0, y0 = max(0, int(x) - r), max(0, int(y) - r)
    return image[y0:min(h, int(y) + r + 1), x0:min(w, int(x) + r + 1)]


def test_designs_are_many_and_the_held_out_ones_are_apart() -> None:
    assert len(DESIGNS) >= 6
    assert len(HELD_OUT_DESIGNS) >= 2
    assert not set(HELD_OUT_DESIGNS) & set(TUNING_DESIGNS)
    assert set(HELD_OUT_DESIGNS) | set(TUNING_DESIGNS) <= set(DESIGNS)
    fonts = {(d.font_face, d.font_italic) for d in DESIGNS.values()}
    assert len(fonts) >= 5  # really different index fonts, not one font recoloured


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_each_design_renders_all_52_cards(name: str) -> None:
    design = DESIGNS[name]
    width = 90
    height = round(width * 88 / 63)
    seen = set()
    for card in DECK:
        image = render_card(card, design, width)
        assert image.shape == (height, width, 4) and image.dtype == np.uint8
        assert image[0, 0, 3] < 40  # rounded corner: transparent
        assert image[height // 2, width // 2, 3] == 255
        seen.add(image[:, :, :3].tobytes())
    assert len(seen) == 52  # every card looks different


def test_red_suits_are_printed_red_and_black_suits_dark() -> None:
    design = DESIGNS[TUNING_DESIGNS[0]]
    geom = card_geometry(design, 120)
    x0, y0, x1, y1 = (int(v) for v in geom.top_left)
    for card, red in (("QH", True), ("5D", True), ("QS", False), ("5C", False)):
        index = render_card(card, design, 120)[y0:y1, x0:x1, :3].astype(int)
        ink = index[index.min(axis=2) < 150]
        assert ink.size
        blue, green, redness = ink.mean(axis=0)
        assert bool(redness > blue + 60) == red


def test_bad_card_codes_and_specs_say_what_is_wrong() -> None:
    design = DESIGNS[TUNING_DESIGNS[0]]
    with pytest.raises(ValueError, match="bad card code '1S'"):
        render_card("1S", design, 100)
    with pytest.raises(ValueError, match="bad card code 'QX'"):
        SceneSpec(boxes={"box1": ["QX"]})
    with pytest.raises(ValueError, match="1 to 7 boxes"):
        SceneSpec(boxes={f"box{k}": [] for k in range(8)})
    with pytest.raises(ValueError, match="not the string"):
        SceneSpec(boxes={"box1": "QS"})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="JPEG quality"):
        SceneSpec(boxes={"box1": []}, jpeg_quality=0)


@pytest.fixture(scope="module")
def clean_scene() -> RenderedScene:
    return render_scene(_clean(), DESIGNS[TUNING_DESIGNS[1]], 21)


@pytest.fixture(scope="module")
def bent_scene() -> RenderedScene:
    """Seen through a tilted camera with a wide lens."""
    return render_scene(_clean(tilt=1.0, barrel=0.15), DESIGNS[HELD_OUT_DESIGNS[0]], 22)


def test_scene_size_layout_and_one_truth_per_card(clean_scene: RenderedScene) -> None:
    assert clean_scene.image.shape == (720, 1280, 3) and clean_scene.image.dtype == np.uint8
    assert clean_scene.layout["format"] == "table-layout/1"
    assert clean_scene.layout["image_size"] == [1280, 720]
    assert set(clean_scene.layout["areas"]) == {"box1", "box2", "box3", "box4", "dealer"}
    cards = sorted((t.card, t.box) for t in clean_scene.truth)
    expected = sorted([(c, b) for b, hand in HANDS.items() for c in hand]
                      + [("8D", "dealer"), ("KC", "dealer")])
    assert cards == expected


@pytest.mark.parametrize("which", ["clean_scene", "bent_scene"])
def test_truth_points_lie_on_a_card_index(which: str, request: pytest.FixtureRequest) -> None:
    scene: RenderedScene = request.getfixturevalue(which)
    image = scene.image
    points = [p for t in scene.truth for p in t.index_points]
    assert len(points) >= 11  # at least each card's top-left corner is open in a fan
    for x, y in points:
        patch = _window(image, x, y, 9).reshape(-1, 3).astype(int)
        white = (patch.min(axis=1) > 170).mean()  # card stock, not felt
        ink = (patch.min(axis=1) < 120).mean()  # print of the rank and pip
        assert white > 0.25 and ink > 0.05, (x, y, white, ink)


@pytest.mark.parametrize("which", ["clean_scene", "bent_scene"])
def test_truth_points_fall_in_their_box_of_the_layout(which: str,
                                                      request: pytest.FixtureRequest) -> None:
    import cv2

    scene: RenderedScene = request.getfixturevalue(which)
    for truth in scene.truth:
        polygon = np.asarray(scene.layout["areas"][truth.box], np.float32)
        for x, y in truth.index_points:
            assert cv2.pointPolygonTest(polygon.reshape(-1, 1, 2), (x, y), False) >= 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_index_under_the_next_card_of_a_fan_is_not_in_the_truth(seed: int) -> None:
    # In every box fan the next card lies on the previous card's bottom-right corner, so
    # only the last card of a box can show two indices.
    design = DESIGNS[dataset.TUNING_DESIGNS[seed % len(TUNING_DESIGNS)]]
    scene = render_scene(_clean(dealer=[]), design, seed)
    for box, hand in HANDS.items():
        truths = [t for t in scene.truth if t.box == box]
        assert [t.card for t in truths] == hand
        for truth in truths[:-1]:
            assert len(truth.index_points) <= 1
        assert len(truths[-1].index_points) == 2


@pytest.mark.parametrize(("cover", "casts_shadow"), [({"chips": 14}, False),
                                                    ({"arms": 2}, True)])
def test_an_index_a_chip_or_an_arm_covers_leaves_the_truth(cover: dict[str, int],
                                                           casts_shadow: bool) -> None:
    # Chips and arms are drawn after the cards, so the same seed with and without them gives
    # the same cards; the difference between the pictures is where they lie (and, for an
    # arm, its shadow, which darkens an index without hiding it).
    design = DESIGNS[TUNING_DESIGNS[0]]
    bare = render_scene(_clean(dealer=[]), design, 5)
    chipped = render_scene(_clean(dealer=[], **cover), design, 5)
    changed = np.abs(bare.image.astype(int) - chipped.image.astype(int)).max(axis=2) > 40
    radius = 0.08 * 110
    kept = {t.card: t.index_points for t in chipped.truth}
    covered = 0
    for truth in bare.truth:
        for point in truth.index_points:
            near = _window(changed, point[0], point[1], int(radius)).mean()
            still_there = any(math.dist(point, p) < 1 for p in kept[truth.card])
            if not still_there:
                covered += 1
                assert near > 0.05, (truth.card, point)
            elif not casts_shadow:
                assert near < 0.35, (truth.card, point)
        for point in kept[truth.card]:  # a chip never uncovers anything
            assert any(math.dist(point, p) < 1 for p in truth.index_points)
    assert covered >= 1  # the seed puts at least one of them on an index


def test_same_seed_same_scene_other_seed_other_scene() -> None:
    design = DESIGNS[HELD_OUT_DESIGNS[0]]
    spec = _clean(tilt=0.8, uneven_light=0.8, glare=2, shadows=1, motion_blur=3.0,
                  noise=3.0, jpeg_quality=60, chips=5, face_down=2)
    one = render_scene(spec, design, 9)
    two = render_scene(spec, design, 9)
    three = render_scene(spec, design, 10)
    assert np.array_equal(one.image, two.image)
    assert one.truth == two.truth and one.layout == two.layout
    assert not np.array_equal(one.image, three.image)


def test_face_down_cards_are_drawn_but_have_no_truth() -> None:
    design = DESIGNS[TUNING_DESIGNS[2]]
    spec = SceneSpec(boxes={"box1": [], "box2": [], "box3": []}, card_width=110, face_down=3,
                     felt_print=False)
    scene = render_scene(spec, design, 4)
    assert scene.truth == []
    assert len(scene.face_down) == 3
    felt = np.median(scene.image.reshape(-1, 3), axis=0)
    for x, y in scene.face_down:
        patch = _window(scene.image, x, y, 10).reshape(-1, 3).astype(float)
        # The back's colour and pattern, not the felt.
        assert np.abs(patch - felt).max(axis=1).mean() > 30
    with_hands = render_scene(_clean(face_down=3), design, 4)
    assert len(with_hands.truth) == sum(map(len, HANDS.values())) + 2
    hole = render_scene(_clean(dealer=["9S"], hole_card=True), design, 4)
    assert [t.card for t in hole.truth if t.box == "dealer"] == ["9S"]
    assert len(hole.face_down) == 1
    upcard = next(t for t in hole.truth if t.card == "9S")
    assert len(upcard.index_points) == 1  # its top-left corner; the hole card hides the other


def test_dataset_is_reproducible_and_written_with_its_truth(tmp_path: Path) -> None:
    first = list(dataset.generate_scenes(2, 7, ["held-out"]))
    again = next(dataset.generate_scenes(1, 7, ["held-out"]))
    assert [s.design for s in first] == list(HELD_OUT_DESIGNS)
    assert np.array_equal(first[0].image, again.image) and first[0].truth == again.truth
    for scene in first:
        spec_boxes = [a for a in scene.layout["areas"] if a != "dealer"]
        assert 3 <= len(spec_boxes) <= 7
        assert 85 <= scene.card_width <= 140
    assert dataset.main(["--out", str(tmp_path), "--n", "2", "--seed", "7"]) == 0
    doc = json.loads((tmp_path / "scene_0002.json").read_text())
    assert doc["image"] == "scene_0002.png" and (tmp_path / "scene_0002.png").is_file()
    assert doc["design"] == HELD_OUT_DESIGNS[1]
    assert doc["truth"] == first[1].truth_dict()["truth"]
    with pytest.raises(SystemExit):
        dataset.main(["--out", str(tmp_path), "--designs", "no_such_deck"])


def test_a_larger_frame_spreads_the_table_and_keeps_the_cards_size() -> None:
    small = next(dataset.generate_scenes(1, 7, ["held-out"]))
    large = next(dataset.generate_scenes(1, 7, ["held-out"], frame_size=(1920, 1080)))
    assert small.image.shape == (720, 1280, 3) and large.image.shape == (1080, 1920, 3)
    assert large.card_width == small.card_width
    assert large.layout["image_size"] == [1920, 1080]
    assert [t.card for t in large.truth] == [t.card for t in small.truth]
    # The boxes spread over the wider frame: the truth's corners reach further out.
    def spread(scene: RenderedScene) -> float:
        xs = [x for t in scene.truth for x, _y in t.index_points]
        return max(xs) - min(xs)

    assert spread(large) > 1.3 * spread(small)


def test_table_frames_keep_one_layout_and_put_cards_in_their_box() -> None:
    empty, layout = render_table_frame({}, seed=1)
    frame, layout_again = render_table_frame({"box3": ["AS", "7D"]}, seed=1)
    assert layout == layout_again == table_layout()
    assert set(layout["areas"]) == set(TABLE_BOXES) | {"dealer"}
    assert frame.shape == (720, 1280, 3)
    import cv2

    changed = np.abs(frame.astype(int) - empty.astype(int)).max(axis=2) > 60
    ys, xs = np.nonzero(changed)
    assert xs.size > 2000  # two cards' worth of pixels
    polygon = np.asarray(layout["areas"]["box3"], np.float32).reshape(-1, 1, 2)
    inside = [cv2.pointPolygonTest(polygon, (float(x), float(y)), False) >= 0
              for x, y in zip(xs[::50], ys[::50], strict=True)]
    assert np.mean(inside) > 0.7
    with pytest.raises(ValueError, match="box9"):
        render_table_frame({"box9": ["AS"]})


def test_moving_cards_and_arms_are_drawn_but_never_in_the_truth() -> None:
    still, layout = render_table_frame({"box2": ["9H", "4S"]}, seed=2)
    busy, layout_busy = render_table_frame({"box2": ["9H", "4S"]}, seed=2, arms=1,
                                           moving=["KS", "QD"])
    assert layout_busy == layout
    assert np.abs(busy.astype(int) - still.astype(int)).max(axis=2).mean() > 1.0
    spec = SceneSpec(boxes={"box1": ["9H"]}, moving=["KS", "QD"], felt_print=False)
    scene = render_scene(spec, DESIGNS[TUNING_DESIGNS[0]], 2)
    assert [t.card for t in scene.truth] == ["9H"]
    assert len(scene.moving) == 2
    for x, y in scene.moving:
        assert 0 <= x < 1280 and 0 <= y < 720
    with pytest.raises(ValueError, match="bad card code 'K'"):
        SceneSpec(boxes={"box1": []}, moving=["K"])


def _camera_command(argv: list[str]) -> int:
    import argparse

    from hwsim.camera import cli

    parser = argparse.ArgumentParser(prog="hwsim")
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result


def test_frame_command_writes_the_frame_and_its_layout(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    import cv2

    out, layout = tmp_path / "frame.png", tmp_path / "layout.json"
    table = '{"box1": ["AS", "7D"], "dealer": ["9C"]}'
    assert _camera_command(["camera", "frame", "--table", table, "--out", str(out),
                            "--layout", str(layout), "--seed", "4"]) == 0
    image, expected_layout = render_table_frame({"box1": ["AS", "7D"], "dealer": ["9C"]},
                                                seed=4)
    written = cv2.imread(str(out))
    assert written is not None and np.array_equal(written, image)
    assert json.loads(layout.read_text()) == expected_layout
    assert _camera_command(["camera", "frame", "--table", '{"box1": ["ZZ"]}', "--out",
                            str(out)]) == 2
    assert "bad card code 'ZZ'" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        _camera_command(["camera", "frame", "--table", "{box1: AS}", "--out", str(out)])
    assert "is not JSON" in capsys.readouterr().err


def test_light_glare_shadows_blur_noise_and_jpeg_spoil_the_picture_not_the_truth() -> None:
    import cv2

    design = DESIGNS[TUNING_DESIGNS[3]]
    clean = render_scene(_clean(), design, 8)
    spoiled = render_scene(_clean(uneven_light=1.0, glare=3, shadows=2, motion_blur=3.5,
                                  noise=4.0, jpeg_quality=50), design, 8)
    assert spoiled.truth == clean.truth and spoiled.layout == clean.layout

    def sharpness(image: np.ndarray) -> float:
        return float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())

    difference = np.abs(spoiled.image.astype(int) - clean.image.astype(int))
    assert difference.mean() > 5
    assert sharpness(render_scene(_clean(motion_blur=3.5), design, 8).image) < 0.8 * sharpness(
        clean.image)


def test_the_lens_model_inverts_and_keeps_the_frame_corners() -> None:

    view = CameraView(np.eye(3), (1280, 720), barrel=0.15)
    rng = np.random.default_rng(0)
    frame_points = rng.uniform((0, 0), (1280, 720), (200, 2))
    back = view.ideal_to_bent(view.bent_to_ideal(frame_points))
    assert np.abs(back - frame_points).max() < 0.01
    corners = np.array([[0.0, 0.0], [1280.0, 0.0], [1280.0, 720.0], [0.0, 720.0]])
    assert np.abs(view.bent_to_ideal(corners) - corners).max() < 1e-9
    # Barrel: the middle is magnified more than the corners, which stay put, so a point
    # halfway to a side moves out towards it and straight lines bow outwards.
    bent = view.ideal_to_bent(np.array([[960.0, 360.0]]))[0]
    assert 960 < bent[0] < 1280 and bent[1] == pytest.approx(360)


@pytest.mark.parametrize("which", ["clean_scene", "bent_scene"])
def test_the_glyph_centres_lie_either_side_of_their_index_point(
        which: str, request: pytest.FixtureRequest) -> None:
    scene: RenderedScene = request.getfixturevalue(which)
    for truth in scene.truth:
        assert len(truth.index_glyphs) == len(truth.index_points)
        for (x, y), (rank, pip) in zip(truth.index_points, truth.index_glyphs, strict=True):
            gap = math.dist(rank, pip)
            # An index is a small share of a 110 px card; its centre is near the glyphs' middle.
            assert 5 < gap < 40, gap
            middle = ((rank[0] + pip[0]) / 2, (rank[1] + pip[1]) / 2)
            assert math.dist(middle, (x, y)) < 0.5 * gap
            for gx, gy in (rank, pip):  # print about each glyph's centre (an "A" is hollow)
                window = _window(scene.image, gx, gy, max(2, round(0.3 * gap)))
                assert (window.min(axis=2) < 150).any()
