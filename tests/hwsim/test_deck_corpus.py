"""The real deck corpus: deck table, element ids, the reserved decks, manifest, a real render."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from hwsim.camera import deck_corpus as dc

INSTALL = "sudo apt-get install -y gnome-cards-data kdegames-card-data-kf5 librsvg2-bin"
HAVE_PACKAGES = (
    (dc.AISLERIOT_DIR / "anglo.svgz").is_file()
    and (dc.KDE_DIR / "svg-standard").is_dir()
    and shutil.which("rsvg-convert") is not None
)
needs_packages = pytest.mark.skipif(
    not HAVE_PACKAGES, reason=f"the Debian card decks are not installed; install with: {INSTALL}"
)
REAL_DECKS = ["kde-standard", "aisleriot-simplistic", "aisleriot-tango", "cc0-kennard"]


def test_card_codes() -> None:
    assert len(dc.CARDS) == 52 == len(set(dc.CARDS))
    assert {"AS", "TD", "KC", "2H"} <= set(dc.CARDS)


@pytest.mark.parametrize(
    ("card", "aisleriot", "kde"),
    [("AS", "spade_1", "1_spade"), ("TD", "diamond_10", "10_diamond"),
     ("JH", "heart_jack", "jack_heart"), ("QC", "club_queen", "queen_club"),
     ("KS", "spade_king", "king_spade"), ("7H", "heart_7", "7_heart"),
     ("back", "back", "back")],
)
def test_element_ids(card: str, aisleriot: str, kde: str) -> None:
    assert dc.element_id("aisleriot", card) == aisleriot
    assert dc.element_id("kde", card) == kde


def test_deck_names_from_paths() -> None:
    assert dc.name_of(Path("/usr/share/aisleriot/cards/anglo.svgz")) == "aisleriot-anglo"
    assert dc.name_of(Path("/usr/share/carddecks/svg-standard/standard.svgz")) == "kde-standard"


def test_reserved_decks_are_left_out() -> None:
    for name in ["aisleriot-bellot", "aisleriot-ancient_french", "aisleriot-paris", "kde-gm-paris"]:
        assert dc.is_reserved(name)
        assert dc.LEFT_OUT[name].startswith(dc.RESERVED_REASON)
    assert dc.LEFT_OUT["aisleriot-bellot"] == "reserved for outside evaluation; never rendered"
    assert not dc.is_reserved("kde-standard")


def _fake_card_png(red: bool = False) -> bytes:
    """A 70x100 card with rounded corners in a larger transparent canvas."""
    img = np.zeros((140, 130, 4), np.uint8)
    img[20:120, 20:90] = 255
    for y, x in [(20, 20), (20, 88), (118, 20), (118, 88)]:
        img[y:y + 2, x:x + 2] = 0  # cut corners
    cv2.putText(img, "A", (24, 38), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                (0, 0, 200, 255) if red else (0, 0, 0, 255), 2)
    ok, png = cv2.imencode(".png", img)
    assert ok
    return png.tobytes()


def test_reserved_deck_never_opened(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Rendering everything never hands a reserved deck's file to a subprocess or to open()."""
    aisleriot, kde = tmp_path / "aisleriot", tmp_path / "carddecks"
    aisleriot.mkdir()
    (kde / "svg-standard").mkdir(parents=True)
    (kde / "svg-gm-paris").mkdir(parents=True)
    for path in [aisleriot / "bellot.svgz", aisleriot / "anglo.svgz",
                 aisleriot / "ancient_french.svgz", kde / "svg-standard" / "standard.svgz",
                 kde / "svg-gm-paris" / "paris.svgz"]:
        path.write_bytes(b"not read")
    reserved = {"bellot", "ancient_french", "paris"}
    seen: list[str] = []

    class Done:
        returncode = 0
        stderr = b""
        stdout = _fake_card_png()

    def fake_run(args: list[str], **_: object) -> Done:
        seen.extend(str(a) for a in args)
        return Done()

    real_open = open

    def guarded_open(file: object, *args: object, **kwargs: object) -> object:
        assert Path(str(file)).name.split(".")[0] not in reserved, f"opened {file}"
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(dc.subprocess, "run", fake_run)
    monkeypatch.setattr("builtins.open", guarded_open)
    decks = dc.discover(aisleriot, kde, shipped_dir=tmp_path / "none")
    assert {d.name for d in decks} >= {"aisleriot-bellot", "kde-gm-paris"}
    for deck in dc.kept(decks):
        dc.render_deck(deck, tmp_path / "out", height=50)
    doc = dc.write_manifest(tmp_path / "out", decks, 50)
    assert sorted(doc["decks"]) == ["aisleriot-anglo", "kde-standard"]
    assert doc["left_out"]["aisleriot-bellot"] == dc.RESERVED_REASON
    assert seen and not [a for a in seen if Path(a).name.split(".")[0] in reserved]
    bellot = dc.Deck("aisleriot-bellot", "aisleriot", "gnome-cards-data", aisleriot / "bellot.svgz")
    with pytest.raises(ValueError, match="left out"):
        dc.render_deck(bellot, tmp_path / "out", height=50)
    with pytest.raises(PermissionError):
        dc.run_rsvg(["-i", "spade_1", str(aisleriot / "bellot.svgz")])
    assert not [a for a in seen if "bellot" in a]


def test_fake_render_and_manifest_shape(tmp_path: Path) -> None:
    deck = dc.Deck("kde-standard", "kde", "kdegames-card-data-kf5", tmp_path / "standard.svgz")
    calls: list[list[str]] = []

    def runner(args: list[str]) -> bytes:
        calls.append(args)
        return _fake_card_png(red="heart" in args[1])

    entry = dc.render_deck(deck, tmp_path, height=100, run=runner)
    assert entry["cards"] == 52 and entry["back"] is True
    assert entry["aspect"] == pytest.approx(0.7, abs=0.02)
    assert sorted(p.stem for p in (tmp_path / "kde-standard").glob("*.png")) == sorted(
        [*dc.CARDS, "back"])
    assert {c[1] for c in calls} >= {"1_spade", "10_diamond", "king_club", "back"}
    img = cv2.imread(str(tmp_path / "kde-standard" / "TD.png"), cv2.IMREAD_UNCHANGED)
    assert img is not None and img.shape[0] == 100 and img.shape[2] == 4
    doc = dc.write_manifest(tmp_path, [deck], 100)
    assert doc == dc.load_manifest(tmp_path)
    assert set(doc) == {"format", "card_height", "decks", "left_out"}
    assert doc["format"] == "deck-corpus/1" and doc["card_height"] == 100
    assert set(doc["decks"]["kde-standard"]) == {
        "package", "source_file", "licence", "copyright", "cards", "back", "aspect"}
    assert doc["decks"]["kde-standard"]["licence"] == "GPL-2+"
    assert dc.deck_names(tmp_path) == ["kde-standard"]
    assert dc.rendered_entry(tmp_path, "kde-standard", 100) is not None
    assert dc.rendered_entry(tmp_path, "kde-standard", 120) is None  # other height: render again


def test_the_shipped_deck_is_listed_with_its_licence_and_all_its_files(tmp_path: Path) -> None:
    decks = dc.discover(tmp_path, tmp_path)  # no Debian decks: the shipped one alone
    assert [d.name for d in decks] == ["cc0-kennard"]
    deck = decks[0]
    assert deck.family == "cc0" and deck.reason is None and not dc.is_reserved(deck.name)
    assert dc.licence(deck)[0] == "CC0-1.0" and "Adrian Kennard" in dc.licence(deck)[1]
    assert "CC0" in (deck.source / "LICENCE.md").read_text()
    assert sorted(p.stem for p in deck.source.glob("*.svg")) == sorted([*dc.CARDS, "back"])
    assert dc.name_of(deck.source / "TD.svg") == "cc0-kennard" == dc.name_of(deck.source)
    assert dc.source_signature(deck, 2) == ("VSA", "SSA")  # the ace of spades' symbols


def test_a_shipped_deck_renders_each_card_from_its_own_file(tmp_path: Path) -> None:
    deck = dc.Deck("cc0-kennard", "cc0", "tablectl", dc.SHIPPED_DIR / "kennard")
    calls: list[list[str]] = []

    def runner(args: list[str]) -> bytes:
        calls.append(args)
        return _fake_card_png()

    entry = dc.render_deck(deck, tmp_path, height=100, run=runner)
    assert entry["cards"] == 52 and entry["licence"] == "CC0-1.0"
    assert not [c for c in calls if "-i" in c]  # whole files, no element ids
    assert {Path(c[-1]).name for c in calls} == {f"{card}.svg" for card in [*dc.CARDS, "back"]}
    reserved = dc.Deck("cc0-bellot", "cc0", "tablectl", tmp_path / "bellot")
    with pytest.raises(ValueError, match="left out"):
        dc.render_deck(reserved, tmp_path, height=100, run=runner)


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="needs librsvg2-bin")
def test_the_shipped_deck_needs_no_debian_deck_package(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[str, ...]] = []

    def deck_packages_missing(packages: tuple[str, ...] = dc.PACKAGES) -> list[str]:
        asked.append(tuple(packages))
        return [p for p in packages if p != dc.RENDERER_PACKAGE]

    monkeypatch.setattr(dc, "missing_packages", deck_packages_missing)
    dc.ensure_corpus(tmp_path, ["cc0-kennard"], height=120)
    assert asked == [("librsvg2-bin",)]
    assert dc.deck_names(tmp_path) == ["cc0-kennard"]
    with pytest.raises(RuntimeError, match="gnome-cards-data"):
        dc.ensure_corpus(tmp_path, ["cc0-kennard", "kde-standard"], height=120)
    with pytest.raises(RuntimeError, match="kdegames-card-data-kf5"):
        dc.ensure_corpus(tmp_path, None, height=120)


def test_unknown_and_left_out_names() -> None:
    decks = [dc.Deck("kde-standard", "kde", "p", Path("a.svgz")),
             dc.Deck("aisleriot-bellot", "aisleriot", "p", Path("bellot.svgz"))]
    assert dc.select(decks, None) == decks[:1]
    with pytest.raises(ValueError, match="unknown deck"):
        dc.select(decks, ["nope"])
    with pytest.raises(ValueError, match="left out"):
        dc.select(decks, ["aisleriot-bellot"])


def test_cli_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    tool = Path(__file__).resolve().parents[2] / "tools" / "render_deck_corpus.py"
    spec = importlib.util.spec_from_file_location("render_deck_corpus", tool)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if HAVE_PACKAGES:
        assert module.main(["--no-install", "--out", str(tmp_path), "--decks", "nope"]) == 1
        assert "unknown deck 'nope'" in capsys.readouterr().err
        assert module.main(["--no-install", "--list"]) == 0
        listing = capsys.readouterr().out
        assert "leave aisleriot-bellot" in listing and "keep  kde-standard" in listing


# --- real render ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not HAVE_PACKAGES:
        pytest.skip(f"the Debian card decks are not installed; install with: {INSTALL}")
    out = tmp_path_factory.mktemp("deck-corpus")
    return dc.ensure_corpus(out, REAL_DECKS, height=150)


def _load(corpus: Path, deck: str, card: str) -> np.ndarray:
    img = cv2.imread(str(corpus / deck / f"{card}.png"), cv2.IMREAD_UNCHANGED)
    assert img is not None and img.shape[2] == 4
    return img


def _red(img: np.ndarray) -> np.ndarray:
    b, g, r, a = (img[:, :, i].astype(int) for i in range(4))
    return (a > 200) & (r > 150) & (r - g > 80) & (r - b > 80)


def _dark(img: np.ndarray) -> np.ndarray:
    return (img[:, :, 3] > 200) & (img[:, :, :3].max(axis=2) < 90)


@needs_packages
@pytest.mark.parametrize("deck", REAL_DECKS)
def test_real_render(corpus: Path, deck: str) -> None:
    files = sorted(p.stem for p in (corpus / deck).glob("*.png"))
    assert [f for f in files if f != "back"] == sorted(dc.CARDS)
    entry = dc.load_manifest(corpus)["decks"][deck]
    assert entry["cards"] == 52 and 0.6 < entry["aspect"] < 0.8
    for card in ["AS", "TD", "KC", "QH", "back"]:
        img = _load(corpus, deck, card)
        assert img.shape[0] == 150 and 0.6 < img.shape[1] / img.shape[0] < 0.8
        assert img[0, 0, 3] < 60 and img[-1, -1, 3] < 60  # rounded corners: transparent
        assert img[75, img.shape[1] // 2, 3] == 255  # opaque card body


@needs_packages
@pytest.mark.parametrize("deck", REAL_DECKS)
def test_real_ink(corpus: Path, deck: str) -> None:
    for card in ["2H", "QH", "TD"]:
        assert _red(_load(corpus, deck, card)).sum() > 100, card
    for card in ["2S", "7C", "TS"]:  # pip cards: court art has red on black suits too
        assert _red(_load(corpus, deck, card)).sum() < 20, card
    for card, ink in [("KS", _dark), ("7C", _dark), ("QH", _red), ("9D", _red)]:
        img = _load(corpus, deck, card)
        h, w = img.shape[:2]
        corner = img[: int(0.22 * h), : int(0.22 * w)]
        assert ink(corner).sum() > 15, f"{deck} {card}: no index ink in the top-left corner"


@needs_packages
def test_rerun_skips_rendered_decks(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("rendered again")

    monkeypatch.setattr(dc, "render_deck", refuse)
    assert dc.ensure_corpus(corpus, REAL_DECKS, height=150) == corpus
    assert json.loads((corpus / "manifest.json").read_text())["card_height"] == 150


def test_source_signature_reads_gzipped_svg_and_refuses_reserved(tmp_path: Path) -> None:
    import gzip

    source = tmp_path / "orell.svgz"
    source.write_bytes(gzip.compress(b'<svg id="svg16481"><use id="use1"/><g id="g2"/></svg>'))
    deck = dc.Deck("aisleriot-orell", "aisleriot", "gnome-cards-data", source)
    assert dc.source_signature(deck, 3) == ("svg16481", "use1", "g2")
    reserved = dc.Deck("aisleriot-bellot", "aisleriot", "gnome-cards-data", tmp_path / "nope")
    with pytest.raises(PermissionError, match="never opened"):
        dc.source_signature(reserved)  # refused before the (missing) file is read


@needs_packages
def test_decks_built_on_a_held_out_source_are_of_its_family() -> None:
    """A deck file that keeps a held-out deck's first element ids is built on its source:
    it must be listed in that deck's family, so it is never trained on."""
    from hwsim.camera.artwork import DESIGN_FAMILIES, HELD_OUT_DECKS

    decks = [d for d in dc.discover() if not dc.is_reserved(d.name)]
    signatures = {d.name: dc.source_signature(d) for d in decks}
    family_of = {m: f for f, members in DESIGN_FAMILIES.items() for m in members}
    for held in HELD_OUT_DECKS:
        if held not in signatures:
            continue
        twins = [n for n, sig in signatures.items() if sig == signatures[held] and n != held]
        for twin in twins:
            assert twin in family_of and family_of[twin] == family_of.get(held), (held, twin)
    # Today's packages: four aisleriot themes share all of orell's first ids.
    orell = signatures["aisleriot-orell"]
    assert sorted(n for n, sig in signatures.items() if sig == orell) == [
        "aisleriot-lattmann", "aisleriot-orell", "aisleriot-rheinland", "aisleriot-tarocco"]
