"""The enrolled house deck: its file, matching by likeness, naming it in the config."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablectl.commands.vision_enroll import set_house_deck
from vision.enrolment import (
    CARD_H,
    CARD_W,
    FELT_MARGIN,
    SPOILINGS,
    VIEWS,
    EnrolmentReport,
    _blurred,
    _views,
    card_of_name,
    pictures_in_sheet,
)
from vision.house_deck import CARDS, HouseDeck, HouseDeckError, load_house_deck


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _deck() -> HouseDeck:
    rng = np.random.default_rng(5)
    centres = _unit(rng.normal(size=(len(CARDS), 32)))
    rows = np.repeat(centres, 3, axis=0) + rng.normal(0, 0.02, (3 * len(CARDS), 32))
    return HouseDeck(_unit(rows), np.repeat(np.arange(len(CARDS)), 3), "test", "abc")


def test_a_corner_like_an_enrolled_card_is_that_card() -> None:
    deck = _deck()
    probe = deck.embeddings[deck.labels == CARDS.index("QH")][:1]
    names, score = deck.match(probe)
    assert names == ["QH"] and score[0] > 0.9


def test_a_corner_like_no_card_or_like_two_is_unknown() -> None:
    deck = _deck()
    rng = np.random.default_rng(9)
    stranger = _unit(rng.normal(size=(1, 32)))  # far from every enrolled card
    between = _unit(deck.embeddings[deck.labels == 0][:1]
                    + deck.embeddings[deck.labels == 1][:1])  # halfway between AS and 2S
    names, score = deck.match(np.concatenate([stranger, between]))
    assert names == [None, None]
    assert list(score) == [0.0, 0.0]


def test_the_file_keeps_everything_and_refuses_another_model(tmp_path: Path) -> None:
    deck = _deck()
    path = deck.save(tmp_path / "house")
    assert path.name == "house.npz"
    again = load_house_deck(path, model="abc")
    assert np.array_equal(again.labels, deck.labels)
    assert np.allclose(again.embeddings, deck.embeddings)
    assert again.cards == list(CARDS)
    with pytest.raises(HouseDeckError, match="enrol the deck again"):
        load_house_deck(path, model="another")
    (tmp_path / "junk.npz").write_bytes(b"not a deck")
    with pytest.raises(HouseDeckError, match="not an enrolled deck"):
        load_house_deck(tmp_path / "junk.npz")
    with pytest.raises(HouseDeckError, match="tablectl vision enroll"):
        load_house_deck(tmp_path / "missing.npz")


@pytest.mark.parametrize("info", [{"network_veto": "high"}, {"min_margin": None},
                                  {"min_similarity": [0.7]}])
def test_a_deck_file_with_a_threshold_that_is_no_number_is_refused(
        tmp_path: Path, info: dict[str, object]) -> None:
    path = _deck().save(tmp_path / "house")
    with np.load(path) as data:
        doc = json.loads(str(data["info"])) | info
        np.savez_compressed(path, embeddings=data["embeddings"], labels=data["labels"],
                            info=json.dumps(doc))
    with pytest.raises(HouseDeckError, match=f"{next(iter(info))} is .*not a number"):
        load_house_deck(path)


def test_a_deck_file_whose_info_is_not_an_object_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "house.npz"
    deck = _deck()
    np.savez_compressed(path, embeddings=deck.embeddings, labels=deck.labels,
                        info=json.dumps(["house-deck/1"]))
    with pytest.raises(HouseDeckError, match="format None"):
        load_house_deck(path)


@pytest.mark.parametrize(("name", "card"), [("AS.jpg", "AS"), ("10h.png", "TH"),
                                            ("qd.jpeg", "QD"), ("TC.PNG", "TC"),
                                            ("1H.png", None), ("joker.png", None),
                                            ("AS copy.jpg", None)])
def test_card_pictures_are_named_by_the_card(name: str, card: str | None) -> None:
    assert card_of_name(Path(name)) == card


def test_a_sheet_is_four_rows_of_thirteen() -> None:
    sheet = np.zeros((400, 1300, 3), np.uint8)
    sheet[100:200, 1200:1300] = 255  # row 2 (hearts), column 13 (king)
    cells = pictures_in_sheet(sheet)
    assert len(cells) == 52
    assert cells["KH"].mean() == 255 and cells["KS"].mean() == 0


def test_the_report_names_every_problem() -> None:
    report = EnrolmentReport(enrolled=["AS"], missing=["2S"], duplicated=["3S (3S.jpg, 3s.png)"],
                             unreadable=["4S"], alike=["5S looks like 6S"])
    text = "\n".join(report.lines())
    for item in ("2S", "3S.jpg", "4S", "5S looks like 6S"):
        assert item in text
    assert not report.complete


def test_enrolment_names_the_deck_in_the_config(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nprofile = "live-studio"\n\n[camera]\nsource = 0\n'
                      'layout = "layout.json"\n\n[journal]\npath = "j.sqlite"\n',
                      encoding="utf-8")
    set_house_deck(config, Path("decks/house.npz"))
    text = config.read_text(encoding="utf-8")
    camera = text.split("[camera]")[1].split("[journal]")[0]
    assert 'house_deck = "decks/house.npz"' in camera
    set_house_deck(config, Path("decks/other.npz"))  # replaced, not added twice
    text = config.read_text(encoding="utf-8")
    assert text.count("house_deck") == 1 and "other.npz" in text
    assert 'path = "j.sqlite"' in text and 'profile = "live-studio"' in text


def test_a_config_without_a_camera_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nprofile = "live-studio"\n', encoding="utf-8")
    with pytest.raises(OSError, match=r"no \[camera\] section"):
        set_house_deck(config, Path("house.npz"))
    assert config.read_text(encoding="utf-8") == '[table]\nprofile = "live-studio"\n'


def test_a_config_naming_a_bad_house_deck_is_refused_by_the_check(tmp_path: Path) -> None:
    from tablectl.config import parse_config
    from tablectl.config_check import resource_problems

    junk = tmp_path / "house.npz"
    junk.write_bytes(b"PK not really")
    layout = tmp_path / "layout.json"
    layout.write_text('{"format": "table-layout/1", "image_size": [1280, 720], "areas": '
                      '{"box1": [[0, 0], [100, 0], [100, 100]], '
                      '"dealer": [[200, 0], [300, 0], [300, 100]]}}', encoding="utf-8")
    config = parse_config({"table": {"profile": "live-studio"}, "shoe": {"driver": "none"},
                           "camera": {"source": 0, "layout": str(layout),
                                      "house_deck": str(junk)},
                           "journal": {"path": str(tmp_path / "j.sqlite")}})
    assert config.camera is not None and config.camera.house_deck == str(junk)
    problems = [p for p in resource_problems(config, open_port=False) if "house_deck" in p]
    assert len(problems) == 1 and "not an enrolled deck" in problems[0]


def test_each_view_is_enrolled_sharp_motion_blurred_and_out_of_focus() -> None:
    card = np.full((CARD_H, CARD_W, 3), 245, np.uint8)
    card[12:30, 8:20] = 20  # a dark "rank" in the top-left corner
    card[34:44, 9:19] = 20  # its "pip"
    views = list(_views(card, np.random.default_rng(3)))
    assert len(views) == len(VIEWS) * len(SPOILINGS)
    for first in range(0, len(views), len(SPOILINGS)):
        group = views[first:first + len(SPOILINGS)]
        assert all(np.array_equal(boxes, group[0][1]) for _, boxes, _ in group)
        assert [spoiling for _, _, spoiling in group] == list(SPOILINGS)

    def sharpness(picture: np.ndarray) -> float:
        return float(cv2.Laplacian(cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY),
                                   cv2.CV_32F).var())

    rng = np.random.default_rng(4)
    assert np.array_equal(_blurred(card, "sharp", rng), card)
    for spoiling in ("motion blur", "defocus"):
        blurred = _blurred(card, spoiling, rng)
        assert sharpness(blurred) < 0.7 * sharpness(card), spoiling
        # Blurring moves ink, it does not remove it.
        assert abs(float(blurred.mean()) - float(card.mean())) < 1.0


def test_each_view_is_the_card_on_a_margin_of_felt_with_its_index_in_the_first_box() -> None:
    card = np.full((CARD_H, CARD_W, 3), 245, np.uint8)
    card[12:30, 8:20] = 20  # a dark "rank" in the top-left corner
    card[34:44, 9:19] = 20  # its "pip"
    views = list(_views(card, np.random.default_rng(3)))
    for (width, _turn), (view, boxes, _spoiling) in zip(VIEWS, views[::len(SPOILINGS)],
                                                         strict=True):
        paper = view.min(axis=2) > 150  # the felt's red and blue are dark
        ys, xs = np.nonzero(paper)
        margins = (xs.min(), ys.min(), view.shape[1] - 1 - xs.max(),
                   view.shape[0] - 1 - ys.max())
        assert all(abs(m - FELT_MARGIN * width) <= 2 for m in margins), (width, margins)
        # The black print (not the green felt; JPEG darkens a stray pixel at the edge).
        ys, xs = np.nonzero(view.max(axis=2) < 80)
        x0, y0, x1, y1 = boxes[0]
        inside = (xs >= x0) & (xs <= x1) & (ys >= y0) & (ys <= y1)
        assert xs.size > 100 and inside.mean() > 0.97, (width, xs.size, inside.mean())
