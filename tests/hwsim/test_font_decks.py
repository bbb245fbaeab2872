"""Font-drawn training decks: the script's output is a deck corpus the artwork reader takes,
the index finder finds the index where it was drawn, and bad options are refused."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from types import ModuleType

import cv2
import numpy as np
import pytest
from hwsim.camera import artwork, dataset, font_catalogue, font_decks
from hwsim.camera.artwork import ArtworkDeck, artwork_card, deck_index_boxes
from hwsim.camera.cards import card_height
from hwsim.camera.deck_corpus import deck_names, load_manifest
from hwsim.camera.faces import design_named
from hwsim.camera.font_catalogue import FACES, font_licence
from hwsim.camera.font_deck_style import plan
from hwsim.camera.font_decks import deck_fonts, drawn_index_boxes, missing_fonts
from hwsim.camera.render import SceneSpec, render_scene

from foundation.cards import ALL_CARDS

# The packages tools/install-test-deps.sh installs for these tests.
TEST_PACKAGES = {"fonts-dejavu-core", "fonts-liberation", "fonts-freefont-ttf"}
INSTALL = "sudo apt-get install -y " + " ".join(sorted(TEST_PACKAGES))
SEED, COUNT, HEIGHT = 1, 48, 300


def _test_decks() -> list[str]:
    """Two planned decks drawn with the test packages' fonts, one with polygon pips."""
    usable = [s for s in plan(SEED, COUNT)
              if all(f.package in TEST_PACKAGES for f in deck_fonts(s)) and not missing_fonts(s)]
    polygon = [s.name for s in usable if s.suit_face is None]
    glyph = [s.name for s in usable if s.suit_face is not None]
    if not polygon or not glyph:
        pytest.skip(f"the fonts of the test decks are not installed; install with: {INSTALL}")
    return [glyph[0], polygon[0]]


def _tool() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "tools" / "render_font_decks.py"
    spec = importlib.util.spec_from_file_location("render_font_decks", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def font_corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    decks = _test_decks()
    out = tmp_path_factory.mktemp("font-decks")
    code = _tool().main(["--no-install", "--out", str(out), "--height", str(HEIGHT),
                         "--seed", str(SEED), "--count", str(COUNT), "--decks", *decks])
    assert code == 0
    return out, decks


def test_the_script_writes_a_deck_corpus_of_52_distinct_cards_with_alpha(
        font_corpus: tuple[Path, list[str]]) -> None:
    out, decks = font_corpus
    manifest = load_manifest(out)
    assert manifest["card_height"] == HEIGHT and deck_names(out) == sorted(decks)
    for name in decks:
        entry = manifest["decks"][name]
        assert entry["cards"] == 52 and entry["back"] is True
        for font in entry["fonts"]:
            assert Path(font["file"]).is_file() and font["package"] in TEST_PACKAGES
            assert font["version"] and font["licence"]
        digests = set()
        for card in [*ALL_CARDS, "back"]:
            data = (out / name / f"{card}.png").read_bytes()
            digests.add(hashlib.sha256(data).hexdigest())
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
            assert image.shape[0] == HEIGHT and image.shape[2] == 4
            h, w = image.shape[:2]
            assert image[0, 0, 3] == 0 and image[h - 1, w - 1, 3] == 0  # rounded corners
            assert image[h // 2, w // 2, 3] == 255 and image[h // 2, 2, 3] == 255
        assert len(digests) == 53


def test_the_artwork_reader_takes_a_font_deck(font_corpus: tuple[Path, list[str]]) -> None:
    out, decks = font_corpus
    deck = ArtworkDeck.named(decks[0], corpus=out)
    card = artwork_card("QH", deck, 100)
    assert card.shape == (card_height(100), 100, 4)


def test_the_index_finder_finds_the_index_where_it_was_drawn(
        font_corpus: tuple[Path, list[str]]) -> None:
    out, decks = font_corpus
    for name in decks:
        found = deck_index_boxes(out / name)
        drawn = drawn_index_boxes(out / name)
        assert set(found) == set(drawn) == set(ALL_CARDS)
        for card in ALL_CARDS:
            assert found[card].found, (name, card)
            for part, box in (("rank", found[card].rank), ("suit", found[card].suit)):
                # Within 1.2% of the card's size: a pixel or two of anti-aliasing.
                assert np.allclose(box, drawn[card][part], atol=0.012), (name, card, part)
            rank, suit = drawn[card]["rank"], drawn[card]["suit"]
            assert rank[3] <= suit[1] + 0.01  # rank over suit
            assert 0.10 * 0.9 <= rank[3] - rank[1] <= 0.185 + 0.005  # rank height, card heights


def _rank_glyph(out: Path, deck: str, card: str) -> np.ndarray:
    image = cv2.imread(str(out / deck / f"{card}.png"), cv2.IMREAD_UNCHANGED)
    h, w = image.shape[:2]
    x0, y0, x1, y1 = drawn_index_boxes(out / deck)[card]["rank"]
    crop = image[round(y0 * h):round(y1 * h), round(x0 * w):round(x1 * w), :3]
    ink = (crop.min(axis=2) < 128).astype(np.float32)
    return cv2.resize(ink, (24, 32), interpolation=cv2.INTER_AREA) > 0.5


def test_a_decks_queen_and_jack_are_not_drawn_like_its_ten(
        font_corpus: tuple[Path, list[str]]) -> None:
    out, decks = font_corpus
    for name in decks:
        ten = _rank_glyph(out, name, "TS")
        for court in ("QS", "JS", "KS"):
            differing = float(np.mean(_rank_glyph(out, name, court) != ten))
            assert differing > 0.2, (name, court, differing)
        # The "10" is two glyphs side by side: an empty column between them.
        assert (~ten.any(axis=0)[4:-4]).any()


def test_same_seed_same_images_and_a_finished_deck_is_not_drawn_again(
        font_corpus: tuple[Path, list[str]], tmp_path: Path) -> None:
    out, decks = font_corpus
    assert _tool().main(["--no-install", "--out", str(tmp_path), "--height", str(HEIGHT),
                         "--seed", str(SEED), "--count", str(COUNT), "--decks", decks[1]]) == 0
    for card in ("AS", "TD", "QH", "back"):
        assert ((tmp_path / decks[1] / f"{card}.png").read_bytes()
                == (out / decks[1] / f"{card}.png").read_bytes())
    before = (tmp_path / decks[1] / "AS.png").stat().st_mtime_ns
    assert _tool().main(["--no-install", "--out", str(tmp_path), "--height", str(HEIGHT),
                         "--seed", str(SEED), "--count", str(COUNT), "--decks", decks[1]]) == 0
    assert (tmp_path / decks[1] / "AS.png").stat().st_mtime_ns == before


def test_the_plan_varies_fonts_and_keeps_each_deck_whatever_the_count() -> None:
    decks = plan(SEED, len(FACES))
    assert len({d.face.path for d in decks}) == len(FACES)  # every face once
    assert plan(SEED, 5) == decks[:5]
    assert plan(SEED + 1, 5) != decks[:5]
    assert all(0.10 <= d.rank_height <= 0.16 for d in decks)
    assert {d.face.kind for d in decks} >= {"serif", "sans", "condensed", "rounded", "slab",
                                           "mono", "script"}
    assert any(d.suit_face is None for d in decks) and any(d.suit_face for d in decks)


def test_faces_added_to_the_catalogue_leave_the_first_decks_as_they_were() -> None:
    from hwsim.camera.font_deck_style import FIRST_CATALOGUE, plan_deck

    # The catalogue as it was (its first faces alone) plans the same first decks.
    for number in range(FIRST_CATALOGUE):
        assert (plan_deck(SEED, number, FACES[:FIRST_CATALOGUE])
                == plan_deck(SEED, number, FACES)), number
    later = plan(SEED, len(FACES))[FIRST_CATALOGUE:]
    assert {d.face.path for d in later} == {f.path for f in FACES[FIRST_CATALOGUE:]}


def test_with_98_faces_first_the_decks_are_the_98_face_decks_and_the_rest_follow() -> None:
    import numpy as np

    # How the plan dealt faces before the first catalogue was kept apart (the
    # fonts98 ensemble member's and the 98-face verifier's decks): deck n took face
    # permutation(98)[n]; the third catalogue's faces come after them, each once.
    order = np.random.default_rng([SEED]).permutation(98)
    decks = plan(SEED, len(FACES), first=98)
    assert [d.face.path for d in decks[:98]] == [FACES[int(k)].path for k in order]
    assert sorted(str(d.face.path) for d in decks[98:]) == sorted(str(f.path) for f in FACES[98:])
    assert plan(SEED, 3, first=98)[0] != plan(SEED, 3)[0]
    with pytest.raises(ValueError, match="first faces must number 1 to"):
        plan(SEED, 3, first=len(FACES) + 1)


def test_the_validation_decks_are_drawn_with_faces_no_training_deck_uses() -> None:
    training = {face.path for face in FACES}
    validation = plan(SEED, len(font_catalogue.VALIDATION_FACES), validation=True)
    assert {d.face.path for d in validation} == {f.path for f in font_catalogue.VALIDATION_FACES}
    assert not training & {d.face.path for d in validation}
    assert all(d.name.startswith("fontval-") for d in validation)
    assert not any(d.name.startswith("fontval-") for d in plan(SEED, len(FACES)))


def test_the_tool_lists_the_validation_decks(capsys: pytest.CaptureFixture[str]) -> None:
    assert _tool().main(["--validation", "--list"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert len(names) == len(font_catalogue.VALIDATION_FACES)
    assert all(name.startswith("fontval-") for name in names)


def test_a_free_form_copyright_file_names_its_licence(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for package, text in (
            ("fonts-a", "Copyright (C) 2002 Someone\n\nYou are free to distribute this "
                        "software under the terms of the GNU General\nPublic License.\n"),
            ("fonts-b", "This Font Software is licensed under the SIL Open Font License, "
                        "Version 1.0.\n"),
            # Quoted from four Debian copyright files that have no machine-readable fields.
            ("fonts-c", "This Font Software is licensed under the GNU General Public License,"
                        " Version\n3 with the font exception.  This license is  available"),
            ("fonts-d", "SJFonts are licensed under the GNU General Public License but with "
                        "the\nfollowing exception:"),
            ("fonts-e", "it under the terms of the GNU General Public License as published by"
                        "\n    the Free Software Foundation; either version 2 of the License, "
                        "or\n    (at your option) any later version."),
            ("fonts-f", "Author: Mark Williamson\nLicense: Public Domain\n")):
        (tmp_path / package).mkdir()
        (tmp_path / package / "copyright").write_text(text)
    monkeypatch.setattr(font_catalogue, "DOC_ROOT", tmp_path)
    font_licence.cache_clear()
    assert font_licence("fonts-a", Path("/usr/share/fonts/a/A.ttf")) == "GPL-2"
    assert font_licence("fonts-b", Path("/usr/share/fonts/b/B.otf")) == "OFL-1.0"
    assert font_licence("fonts-c", Path("/usr/share/fonts/c/C.ttf")) == "GPL-3 with font exception"
    assert font_licence("fonts-d", Path("/usr/share/fonts/d/D.ttf")) == "GPL-2 with font exception"
    assert font_licence("fonts-e", Path("/usr/share/fonts/e/E.ttf")) == "GPL-2+"
    assert font_licence("fonts-f", Path("/usr/share/fonts/f/F.ttf")) == "public-domain"
    font_licence.cache_clear()


def test_a_fonts_licence_is_read_from_its_packages_copyright_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "fonts-x").mkdir()
    (tmp_path / "fonts-x" / "copyright").write_text(
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
        "Files: *\nCopyright: someone\nLicense: GPL-3+\n text of it\n\n"
        "Files: */*.ttf\n */*.otf\nCopyright: someone\nLicense: OFL-1.1\n text\n\n"
        "Files: debian/*\nLicense: GPL-2+\n")
    monkeypatch.setattr(font_catalogue, "DOC_ROOT", tmp_path)
    font_licence.cache_clear()
    # The last paragraph whose Files pattern matches the file gives its licence (DEP-5).
    assert font_licence("fonts-x", Path("/usr/share/fonts/x/X.otf")) == "OFL-1.1"
    assert font_licence("fonts-x", Path("/usr/share/fonts/x/X.pfb")) == "GPL-3+"
    assert font_licence("fonts-y", Path("/usr/share/fonts/y/Y.ttf")).startswith("unknown")
    font_licence.cache_clear()


@pytest.mark.parametrize(("args", "message"), [
    (["--height", "50"], "--height must be at least 200 px, not 50"),
    (["--count", "0"], "--count must be at least 1, not 0"),
    (["--decks", "font-99-nope"], "unknown font deck 'font-99-nope'"),
    (["--first-faces", "0"], "the first faces must number 1 to"),
])
def test_bad_options_get_one_clear_line(args: list[str], message: str, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert _tool().main(["--no-install", "--out", str(tmp_path), *args]) == 1
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "manifest.json").exists()


def test_a_seed_that_is_not_a_number_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _tool().main(["--seed", "one"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "render_font_decks: argument --seed: invalid int value: 'one'" in err
    assert "Traceback" not in err


def test_the_list_names_each_deck_with_its_font(capsys: pytest.CaptureFixture[str]) -> None:
    assert _tool().main(["--list", "--count", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [d.name for d in plan(SEED, 3)]


def test_the_font_group_names_the_decks_drawn(font_corpus: tuple[Path, list[str]],
                                               tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    out, decks = font_corpus
    monkeypatch.setenv(artwork.FONT_DECKS_ENV, str(out))
    resolved = dataset.resolve_designs(["font"])
    assert [d.name for d in resolved] == sorted(decks)
    assert all(isinstance(d, ArtworkDeck) and d.folder == out / d.name for d in resolved)
    assert design_named(decks[0]) == ArtworkDeck(decks[0], out / decks[0])
    monkeypatch.setenv(artwork.FONT_DECKS_ENV, str(tmp_path / "none"))
    with pytest.raises(ValueError, match="no font decks in .*render_font_decks.py"):
        dataset.resolve_designs(["font"])
    with pytest.raises(ValueError, match="render_font_decks.py --out"):
        design_named(decks[0])


def test_a_scene_of_a_font_deck_puts_truth_on_index_ink(font_corpus: tuple[Path, list[str]]
                                                        ) -> None:
    out, decks = font_corpus
    deck = ArtworkDeck.named(decks[0], corpus=out)
    spec = SceneSpec(boxes={"box1": ["TS", "4H"], "box2": ["KD", "QC", "JS"]}, dealer=["QH"],
                     card_width=120, felt_print=False)
    scene = render_scene(spec, deck, seed=5)
    points = [p for t in scene.truth for p in t.index_points]
    assert len(points) >= 6
    grey = scene.image.min(axis=2)
    for x, y in points:
        window = grey[int(y) - 8:int(y) + 9, int(x) - 8:int(x) + 9]
        assert (window < 120).mean() > 0.05, (x, y)  # index ink under the point
        assert (window > 180).mean() > 0.2, (x, y)  # on card stock


def test_the_docs_name_every_font_package_with_its_licence() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "vision.md").read_text()
    section = text.split("## Font-drawn training decks")[1].split("\n## ")[0]
    rows = dict(line.strip("| ").split(" | ") for line in section.splitlines()
                if line.startswith("| fonts-"))
    assert sorted(rows) == sorted(font_catalogue.PACKAGES)
    for face in (*FACES, *font_catalogue.VALIDATION_FACES,
                 *(s.face for s in font_catalogue.SUIT_FACES)):
        if face.installed:
            assert rows[face.package] == font_licence(face.package, face.path), face.package


def test_drawing_one_more_deck_keeps_the_others_in_the_manifest(
        font_corpus: tuple[Path, list[str]], tmp_path: Path) -> None:
    _, decks = font_corpus
    for name in decks:
        assert _tool().main(["--no-install", "--out", str(tmp_path), "--height", str(HEIGHT),
                             "--seed", str(SEED), "--count", str(COUNT), "--decks", name]) == 0
    assert deck_names(tmp_path) == sorted(decks)


def test_index_ink_is_of_a_colour_the_candidate_finder_takes_for_print() -> None:
    from vision.candidates import print_colour_mask

    for style in plan(SEED, len(FACES)):
        for colour in (style.red, style.black):
            b, g, r = (np.full((4, 4), c, np.uint8) for c in colour)
            assert print_colour_mask(b, g, np.maximum(np.maximum(b, g), r))[0, 0] == 255, (
                style.name, colour)


def test_missing_font_packages_are_installed_refreshing_the_lists_when_needed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []
    installed: set[str] = set()

    def run(args: list[str], **_: object) -> None:
        calls.append([a for a in args if a != "sudo"])
        if args[-1] == "fonts-y" and any(c[1] == "update" for c in calls):
            installed.add("fonts-y")  # found only once the package lists are fresh

    monkeypatch.setattr(font_catalogue.subprocess, "run", run)
    monkeypatch.setattr(font_catalogue.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(font_catalogue, "package_version",
                        lambda p: "1" if p in installed | {"fonts-x"} else None)
    assert font_catalogue.ensure_packages(False, ("fonts-x", "fonts-y")) == ["fonts-y"]
    assert calls == []
    assert font_catalogue.ensure_packages(True, ("fonts-x", "fonts-y")) == []
    assert [c[1] for c in calls] == ["install", "update", "install"]
    assert calls[0][-1] == "fonts-y"  # only what is missing


def test_a_deck_whose_font_is_missing_is_left_out_and_named(
        font_corpus: tuple[Path, list[str]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    _, decks = font_corpus
    real_missing = font_decks.missing_fonts
    monkeypatch.setattr(font_decks, "missing_fonts", lambda style: (
        [style.face] if style.name == decks[0] else real_missing(style)))
    doc = font_decks.render_font_decks(tmp_path, SEED, COUNT, HEIGHT, decks)
    assert list(doc["decks"]) == [decks[1]]
    face = next(s.face for s in plan(SEED, COUNT) if s.name == decks[0])
    assert doc["left_out"] == {decks[0]: f"font {face.path.name} not installed "
                                         f"(Debian package {face.package})"}
    assert not (tmp_path / decks[0]).exists()
    assert load_manifest(tmp_path)["left_out"] == doc["left_out"]
