"""Font-drawn training decks, written as a deck corpus folder.

`render_font_decks(out, seed, count)` draws the planned decks
(`hwsim.camera.font_deck_style`) into `OUT/<deck>/<CARD>.png` and `back.png`
with `OUT/manifest.json` in the "deck-corpus/1" format of
`hwsim.camera.deck_corpus`, so `hwsim.camera.artwork.ArtworkDeck.named(name,
corpus=OUT)` reads them like any real deck. Each deck's `deck.json` also keeps
the index boxes as drawn (fractions of the card), the fonts with their
package, version and licence, and the style, so a rerun with the same seed,
height and installed fonts skips what is done and gives the same images.
These decks are for training only: nothing of the held-out decks is used.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

import cv2
import PIL
from PIL import features

from foundation.cards import ALL_CARDS
from hwsim.camera.deck_corpus import FORMAT
from hwsim.camera.font_card_faces import DeckDrawer
from hwsim.camera.font_catalogue import FontFace, font_licence, package_version
from hwsim.camera.font_deck_style import (
    DEFAULT_COUNT,
    DEFAULT_SEED,
    FIRST_CATALOGUE,
    DeckStyle,
    plan,
)

DEFAULT_HEIGHT = 360
MIN_HEIGHT = 200
GENERATOR = "font-decks/1"
GROUP = "font"
VALIDATION_GROUP = "font-validation"  # faces never trained on


def deck_fonts(style: DeckStyle) -> list[FontFace]:
    faces = [style.face]
    if style.suit_face is not None and style.suit_face.face.path != style.face.path:
        faces.append(style.suit_face.face)
    return faces


def missing_fonts(style: DeckStyle) -> list[FontFace]:
    return [f for f in deck_fonts(style) if not f.installed]


def style_record(style: DeckStyle) -> dict[str, Any]:
    record = asdict(style)
    record["face"] = str(style.face.path)
    record["suit_face"] = str(style.suit_face.face.path) if style.suit_face else "polygon pips"
    return record


def style_digest(style: DeckStyle, height: int) -> str:
    text = json.dumps([style_record(style), height, _renderer()], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _renderer() -> dict[str, str]:
    return {"pillow": PIL.__version__, "freetype": str(features.version("freetype2")),
            "opencv": cv2.__version__}


def _font_entry(face: FontFace) -> dict[str, Any]:
    return {"file": str(face.path), "package": face.package,
            "version": package_version(face.package), "licence": font_licence(face.package,
                                                                               face.path)}


def render_deck(style: DeckStyle, out: Path, height: int = DEFAULT_HEIGHT,
                workers: int = 2) -> dict[str, Any]:
    """Draw the 52 faces and the back of one deck into out/<deck>/; returns its entry."""
    missing = missing_fonts(style)
    if missing:
        raise RuntimeError(f"{style.name}: font {missing[0].path} is not installed "
                           f"(Debian package {missing[0].package})")
    folder = out / style.name
    folder.mkdir(parents=True, exist_ok=True)
    drawer = DeckDrawer(style, height)

    def one(card: str) -> tuple[str, list[list[float]]]:
        image, drawn = drawer.face(card)
        if not cv2.imwrite(str(folder / f"{card}.png"), image):
            raise OSError(f"cannot write {folder / card}.png")
        w, h = drawer.width, drawer.height
        return card, [[round(b[0] / w, 5), round(b[1] / h, 5), round(b[2] / w, 5),
                       round(b[3] / h, 5)] for b in (drawn.rank, drawn.suit)]

    with ThreadPoolExecutor(max_workers=max(1, min(workers, 4))) as pool:
        boxes = dict(pool.map(one, ALL_CARDS))
    if not cv2.imwrite(str(folder / "back.png"), drawer.back()):
        raise OSError(f"cannot write {folder / 'back.png'}")
    fonts = [_font_entry(f) for f in deck_fonts(style)]
    entry: dict[str, Any] = {
        "package": ", ".join(dict.fromkeys(f["package"] for f in fonts)),
        "source_file": ", ".join(f["file"] for f in fonts),
        "licence": "; ".join(dict.fromkeys(f["licence"] for f in fonts)),
        "copyright": "drawn by the font deck generator; glyphs of the fonts named in "
                     "source_file (see each package's copyright file)",
        "cards": len(boxes), "back": True,
        "aspect": round(drawer.width / drawer.height, 4),
        "group": GROUP, "fonts": fonts,
    }
    record = {**entry, "height": height, "digest": style_digest(style, height),
              "style": style_record(style),
              "index_boxes": {card: {"rank": b[0], "suit": b[1]} for card, b in boxes.items()}}
    (folder / "deck.json").write_text(json.dumps(record, indent=1, ensure_ascii=False))
    return entry


def rendered_entry(out: Path, style: DeckStyle, height: int) -> dict[str, Any] | None:
    """The stored entry of a deck drawn before with the same style, height and renderer."""
    stamp = out / style.name / "deck.json"
    if not stamp.is_file():
        return None
    try:
        record: dict[str, Any] = json.loads(stamp.read_text())
    except ValueError:
        return None
    complete = all((out / style.name / f"{c}.png").is_file() for c in ALL_CARDS)
    if not complete or record.get("digest") != style_digest(style, height):
        return None
    return {k: v for k, v in record.items()
            if k not in ("height", "digest", "style", "index_boxes")}


def drawn_index_boxes(folder: Path) -> dict[str, dict[str, list[float]]]:
    """The index boxes a deck's cards were drawn with (from its deck.json)."""
    boxes: dict[str, dict[str, list[float]]] = json.loads(
        (folder / "deck.json").read_text())["index_boxes"]
    return boxes


def select(styles: list[DeckStyle], names: Iterable[str] | None) -> list[DeckStyle]:
    if names is None:
        return styles
    by_name = {s.name: s for s in styles}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise ValueError(f"unknown font deck {unknown[0]!r} for this seed and count "
                         "(`python tools/render_font_decks.py --list` lists the decks)")
    return [by_name[n] for n in names]


def render_font_decks(out: Path | str, seed: int = DEFAULT_SEED, count: int = DEFAULT_COUNT,
                      height: int = DEFAULT_HEIGHT, names: Iterable[str] | None = None,
                      log: Callable[[str], None] | None = None,
                      validation: bool = False,
                      first: int = FIRST_CATALOGUE) -> dict[str, Any]:
    """Draw the planned decks (all, or `names`) whose fonts are installed; write the manifest.

    The manifest lists every deck of the plan drawn in `out` at this height (by this run
    or an earlier one); decks whose fonts are missing are listed under "left_out" with
    the package to install.
    """
    if height < MIN_HEIGHT:
        raise ValueError(f"--height must be at least {MIN_HEIGHT} px, not {height}")
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    planned = plan(seed, count, validation, first)
    chosen = select(planned, names)
    decks: dict[str, Any] = {}
    left_out: dict[str, str] = {}
    for style in chosen:
        missing = missing_fonts(style)
        if missing:
            left_out[style.name] = (f"font {missing[0].path.name} not installed (Debian "
                                    f"package {missing[0].package})")
            continue
        entry = rendered_entry(root, style, height)
        if entry is None:
            entry = render_deck(style, root, height)
            if log:
                log(f"{style.name}: {entry['cards']} cards, aspect {entry['aspect']}, "
                    f"{entry['source_file']}")
        decks[style.name] = entry
    for style in planned:  # decks of the plan drawn by an earlier run stay in the manifest
        if style.name not in decks:
            earlier = rendered_entry(root, style, height)
            if earlier is not None:
                decks[style.name] = earlier
    decks = dict(sorted(decks.items()))
    packages = sorted({f["package"] for e in decks.values() for f in e["fonts"]})
    group = VALIDATION_GROUP if validation else GROUP
    doc = {"format": FORMAT, "card_height": height, "generator": GENERATOR, "group": group,
           "seed": seed, "count": count, "renderer": _renderer(),
           "font_packages": {p: package_version(p) for p in packages},
           "decks": decks, "left_out": left_out}
    (root / "manifest.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    return doc
