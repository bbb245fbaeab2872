"""Real card artwork from the Debian card-deck packages, rendered to PNG.

The corpus is a folder `OUT/<deck>/<CARD>.png` (52 faces, CARD = the code
`foundation.cards` writes, e.g. `TD.png`) plus `OUT/<deck>/back.png` when the
deck has a back, and `OUT/manifest.json` (format "deck-corpus/1"). Decks come
from the aisleriot themes (`gnome-cards-data`) and the KDE card decks
(`kdegames-card-data-kf5`), and the public-domain decks shipped in this package
(`decks/<name>/<CARD>.svg`, one file a card, named `cc0-<name>`); `LEFT_OUT`
says which are left out and why. Rendering uses `rsvg-convert` (`librsvg2-bin`).

Reserved decks (David Bellot's SVG-cards, Chris Aguilar's Vectorized Playing
Cards and anything derived from them) are kept for an outside evaluation: they
are skipped by name before any file is opened and never rendered.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from foundation.cards import ALL_CARDS

CARDS = list(ALL_CARDS)
FORMAT = "deck-corpus/1"
DEFAULT_HEIGHT = 360
RENDERER_PACKAGE = "librsvg2-bin"
PACKAGES = ("gnome-cards-data", "kdegames-card-data-kf5", RENDERER_PACKAGE)
AISLERIOT_DIR = Path("/usr/share/aisleriot/cards")
KDE_DIR = Path("/usr/share/carddecks")
SHIPPED_DIR = Path(__file__).resolve().parent / "decks"
SHIPPED_PREFIX = "cc0-"
RESERVED_REASON = "reserved for outside evaluation; never rendered"
RESERVED_WORDS = ("bellot", "aguilar")

_RANK_WORDS = {"A": "1", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
_SUIT_WORDS = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}

AISLERIOT_LICENCE = ("GPL-3+", "1998-2011 J. Blandford, A. Carlsson, N. Roberts, C. Persch "
                     "(aisleriot; no per-deck entry in the package copyright file)")
KDE_LICENCE = ("GPL-2+", "1996-2013 The K Desktop Environment project")
KDE_LICENCES = {
    "kde-standard": ("GPL-2+", "1997 J. Fitzgibbon, J. Tuchbreiter; 1998 M. Oberhumer; "
                     "2009 P. Coates"),
    "kde-tigullio-international": ("LGPL-2+", "2004-2009 Luciano Montanaro"),
    "kde-penguins": ("GPL-3+", "1998 DJ Delorie, M. Oberhumer; 2009 M. Woehlke; Tux by "
                     "L. Ewing, S. Budig, A. Gerwinski"),
    "kde-oxygen-air": ("GPL-2+", "The K Desktop Environment project; Eugene Trounev"),
}
# Where each shipped deck's files come from; decks/<name>/LICENCE.md says the same.
SHIPPED_LICENCES = {
    "cc0-kennard": ("CC0-1.0", "Adrian Kennard (public-domain dedication); the files of "
                    "src/images/2color of the npm package @heruka_urgyen/react-playing-cards "
                    "0.5.0, unchanged"),
}

GERMAN_COURTS = "non-English court indices (German B/D/K)"
# Decks built on held-out aisleriot-orell's SVG source (hwsim.camera.artwork.DESIGN_FAMILIES).
ON_ORELLS_SOURCE = ("; drawn from the source of aisleriot-orell (held out), its numerals "
                    "the same glyphs")

# Reviewed decks that are left out, with the reason (kept decks are absent).
LEFT_OUT: dict[str, str] = {
    "aisleriot-bellot": RESERVED_REASON,
    "aisleriot-ancient_french": RESERVED_REASON + " (documented upstream as a modified "
    "version of David Bellot's SVG-cards)",
    "aisleriot-paris": RESERVED_REASON + " (upstream documents the deck of this name as "
    "derived from David Bellot's SVG-cards)",
    "kde-gm-paris": RESERVED_REASON + " (Paris pattern of undocumented origin, like the "
    "aisleriot deck of that name derived from SVG-cards; not opened as a precaution)",
    "aisleriot-berlin": GERMAN_COURTS + ON_ORELLS_SOURCE,
    "aisleriot-lattmann": GERMAN_COURTS + ON_ORELLS_SOURCE,
    "aisleriot-rheinland": GERMAN_COURTS + ON_ORELLS_SOURCE,
    "aisleriot-tarocco": "non-English court indices (Italian F/D/R)" + ON_ORELLS_SOURCE,
    "aisleriot-slavic_costumes": "non-English indices (Russian: T for the ace, B/D/K courts)",
    "aisleriot-Атласные": "non-English indices (Russian: T for the ace, B/D/K courts); "
    "otherwise the design of aisleriot-atlasnye (kept)",
    "aisleriot-atlasnye_skat": "skat deck (32 cards, four-colour suits)",
    "aisleriot-swiss-xvii": "Swiss-suited (shields, roses, bells, acorns)",
    "aisleriot-guyenne-classic": "index-less court cards (suit sign only, no J/Q/K letter)",
    "aisleriot-anglo_modern_4_color": "four-colour recolouring of aisleriot-anglo_modern",
    "aisleriot-neoclassical_4_color": "four-colour recolouring of aisleriot-neoclassical",
    "aisleriot-ornamental": "same design as kde-nicu-ornamental (kept)",
    "aisleriot-anglo_bitmap": "bitmap duplicate of aisleriot-anglo (same design)",
    "aisleriot-gnomangelo": "same faces as aisleriot-anglo (kept); only the back differs",
    "aisleriot-gnomangelo_bitmap": "bitmap duplicate of aisleriot-gnomangelo / aisleriot-anglo",
    "kde-future": "abstract circuit-board design: no suit signs, non-standard rank glyphs "
    "(C for the king), landscape",
    "kde-dondorf": "same design as aisleriot-dondorf (kept)",
    "kde-xskat-german": "German-suited skat deck (32 cards)",
    "kde-xskat-french": "72x112 px bitmap skat deck (32 cards) with German B/D/K indices",
    "kde-konqi-modern": "72x96 px bitmap deck (far below 300 px), four-colour suits",
}


@dataclass(frozen=True)
class Deck:
    """One deck: `name` is `aisleriot-<theme>`, `kde-<dir without svg->` or `cc0-<dir>`.

    `source` is the deck's one SVG file, or for a shipped deck ("cc0") its folder of one
    SVG a card."""

    name: str
    family: str  # "aisleriot", "kde" or "cc0"
    package: str
    source: Path

    @property
    def reason(self) -> str | None:
        """Why the deck is left out, None when it is kept."""
        if is_reserved(self.name):
            return LEFT_OUT.get(self.name, RESERVED_REASON)
        return LEFT_OUT.get(self.name)


def is_reserved(name: str) -> bool:
    """A deck reserved for the outside evaluation (decided from its name only)."""
    low = name.lower()
    reserved = any(w in low for w in RESERVED_WORDS)
    return reserved or LEFT_OUT.get(name, "").startswith(RESERVED_REASON)


def name_of(source: Path) -> str:
    """The deck name of a deck file path (from the path only)."""
    for folder in (source, source.parent):
        if folder.parent == SHIPPED_DIR:
            return f"{SHIPPED_PREFIX}{folder.name}"
    if source.parent.name.startswith("svg-"):
        return f"kde-{source.parent.name[4:]}"
    return f"aisleriot-{source.name.split('.')[0]}"


def element_id(deck: Deck | str, card: str) -> str:
    """The SVG element id of CARD ("TD", "AS", "back") in a deck of that family.

    aisleriot themes use `diamond_10`, `spade_1`, `club_jack`; KDE decks use
    `10_diamond`, `1_spade`, `jack_club`; both call the back `back`."""
    family = deck.family if isinstance(deck, Deck) else deck
    if card == "back":
        return "back"
    rank = _RANK_WORDS.get(card[0], card[0])
    suit = _SUIT_WORDS[card[1]]
    return f"{suit}_{rank}" if family == "aisleriot" else f"{rank}_{suit}"


def discover(aisleriot_dir: Path = AISLERIOT_DIR, kde_dir: Path = KDE_DIR,
             shipped_dir: Path = SHIPPED_DIR) -> list[Deck]:
    """Every deck of both packages and of this package (listed only; no file is opened)."""
    decks = [Deck(f"aisleriot-{p.name[:-5]}", "aisleriot", "gnome-cards-data", p)
             for p in sorted(aisleriot_dir.glob("*.svgz"))]
    for folder in sorted(kde_dir.glob("svg-*")):
        files = sorted(folder.glob("*.svgz")) + sorted(folder.glob("*.svg"))
        if files:
            decks.append(Deck(f"kde-{folder.name[4:]}", "kde", "kdegames-card-data-kf5", files[0]))
    decks += [Deck(f"{SHIPPED_PREFIX}{folder.name}", "cc0", "tablectl (hwsim/camera/decks)", folder)
              for folder in sorted(shipped_dir.glob("*")) if (folder / "AS.svg").is_file()]
    return decks


def kept(decks: Iterable[Deck]) -> list[Deck]:
    return [d for d in decks if d.reason is None]


def left_out(decks: Iterable[Deck]) -> dict[str, str]:
    return {d.name: d.reason for d in decks if d.reason is not None}


def licence(deck: Deck) -> tuple[str, str]:
    if deck.family == "aisleriot":
        return AISLERIOT_LICENCE
    if deck.family == "cc0":
        return SHIPPED_LICENCES.get(deck.name, ("CC0-1.0", "see its LICENCE.md"))
    return KDE_LICENCES.get(deck.name, KDE_LICENCE)


def source_signature(deck: Deck, ids: int = 4) -> tuple[str, ...]:
    """The ids of the first `ids` elements of the deck's SVG (the root's first).

    Decks built on one source keep its ids: four aisleriot themes share all of
    aisleriot-orell's. A reserved deck is refused before its file is opened."""
    if is_reserved(deck.name):
        raise PermissionError(f"reserved deck, never opened: {deck.name}")
    raw = card_file(deck, "AS").read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    head = raw[:20000].decode("utf-8", "replace")
    return tuple(re.findall(r'\sid="([^"]+)"', head)[:ids])


# --- rendering ------------------------------------------------------------------------------

Runner = Callable[[list[str]], bytes]


def run_rsvg(args: list[str]) -> bytes:
    """Run rsvg-convert; the last argument is the file. Returns the PNG bytes."""
    if is_reserved(name_of(Path(args[-1]))):
        raise PermissionError(f"reserved deck, never rendered: {args[-1]}")
    done = subprocess.run(["rsvg-convert", *args], capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode(errors="replace").strip() or "rsvg-convert failed")
    return done.stdout


def _card_box(alpha: np.ndarray) -> tuple[int, int, int, int]:
    """x, y, w, h of the largest mostly-opaque blob (the card; leaves out shadows
    and stray ink from elements whose bounding box is wider than the card)."""
    mask = (alpha >= 128).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count < 2:
        raise RuntimeError("empty card")
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h = (int(v) for v in stats[best, :4])
    return x, y, w, h


def card_file(deck: Deck, card: str) -> Path:
    """The SVG file that holds CARD ("TD", "back") of the deck."""
    return deck.source / f"{card}.svg" if deck.family == "cc0" else deck.source


def render_element(source: Path, ident: str | None, zoom: float, run: Runner = run_rsvg
                   ) -> np.ndarray:
    """The element (the whole file when `ident` is None) rendered at `zoom`, cropped to
    the card outline (BGRA)."""
    element = ["-i", ident] if ident is not None else []
    png = run([*element, "-z", f"{zoom:.5f}", str(source)])
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        raise RuntimeError(f"{source.name}: no image for {ident}")
    x, y, w, h = _card_box(img[:, :, 3])
    return img[y:y + h, x:x + w]


def _fit(img: np.ndarray, height: int) -> np.ndarray:
    width = max(1, round(img.shape[1] * height / img.shape[0]))
    return cv2.resize(img, (width, height), interpolation=cv2.INTER_AREA)


def render_deck(deck: Deck, out: Path, height: int = DEFAULT_HEIGHT, workers: int = 2,
                run: Runner = run_rsvg) -> dict[str, Any]:
    """Render the 52 faces (and the back) of a kept deck into out/<deck>/."""
    if deck.reason is not None:
        raise ValueError(f"{deck.name} is left out: {deck.reason}")
    folder = out / deck.name
    folder.mkdir(parents=True, exist_ok=True)

    def element(card: str) -> tuple[Path, str | None]:
        # A shipped deck's file is the card; a package deck's file holds it by id.
        return card_file(deck, card), None if deck.family == "cc0" else element_id(deck, card)

    probe = render_element(*element("AS"), 1.0, run)
    zoom = 1.02 * height / probe.shape[0]  # a hair larger, then shrunk to `height`

    def one(card: str) -> float | None:
        try:
            img = render_element(*element(card), zoom, run)
        except RuntimeError:
            if card == "back":
                return None
            raise
        img = _fit(img, height)
        cv2.imwrite(str(folder / f"{card}.png"), img)
        return img.shape[1] / img.shape[0]

    with ThreadPoolExecutor(max_workers=max(1, min(workers, 2))) as pool:
        aspects = list(pool.map(one, [*CARDS, "back"]))
    faces = [a for a in aspects[:52] if a is not None]
    lic, who = licence(deck)
    entry = {"package": deck.package, "source_file": str(deck.source), "licence": lic,
             "copyright": who, "cards": len(faces), "back": aspects[52] is not None,
             "aspect": round(float(np.median(faces)), 4), "height": height}
    (folder / "deck.json").write_text(json.dumps(entry, indent=1, ensure_ascii=False))
    return entry


def rendered_entry(out: Path, name: str, height: int) -> dict[str, Any] | None:
    """The stored entry of a deck already rendered at `height` with all its files."""
    stamp = out / name / "deck.json"
    if not stamp.is_file():
        return None
    entry: dict[str, Any] = json.loads(stamp.read_text())
    complete = all((out / name / f"{c}.png").is_file() for c in CARDS)
    return entry if complete and entry.get("height") == height else None


# --- manifest, packages, the whole corpus ---------------------------------------------------

def write_manifest(out: Path, decks: list[Deck], height: int) -> dict[str, Any]:
    entries = {}
    for deck in kept(decks):
        entry = rendered_entry(out, deck.name, height)
        if entry is not None:
            entries[deck.name] = {k: v for k, v in entry.items() if k != "height"}
    doc = {"format": FORMAT, "card_height": height, "decks": entries,
           "left_out": left_out(decks)}
    (out / "manifest.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    return doc


def load_manifest(folder: Path | str) -> dict[str, Any]:
    """The corpus manifest of `folder` (raises FileNotFoundError/ValueError)."""
    doc: dict[str, Any] = json.loads((Path(folder) / "manifest.json").read_text())
    if doc.get("format") != FORMAT:
        raise ValueError(f"{folder}: not a {FORMAT} manifest")
    return doc


def deck_names(folder: Path | str) -> list[str]:
    """The rendered decks of a corpus folder, sorted."""
    return sorted(load_manifest(folder)["decks"])


def packages_for(decks: Iterable[str] | None) -> tuple[str, ...]:
    """The Debian packages rendering `decks` needs (None: every deck): the shipped decks'
    files are in this package, so they need the renderer alone."""
    if decks is not None and all(name.startswith(SHIPPED_PREFIX) for name in decks):
        return (RENDERER_PACKAGE,)
    return PACKAGES


def missing_packages(packages: Iterable[str] = PACKAGES) -> list[str]:
    missing = []
    for pkg in packages:
        done = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg], capture_output=True,
                              text=True, check=False)
        if "install ok installed" not in done.stdout:
            missing.append(pkg)
    return missing


def install_command(packages: Iterable[str] = PACKAGES) -> list[str]:
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    return [*sudo, "apt-get", "install", "-y", *packages]


def ensure_packages(install: bool = True, packages: tuple[str, ...] = PACKAGES) -> None:
    """Install the Debian packages when missing (RuntimeError when that is not allowed)."""
    missing = missing_packages(packages) if shutil.which("dpkg-query") else list(packages)
    if missing and install and shutil.which("apt-get"):
        subprocess.run(install_command(packages), check=False)
        missing = missing_packages(packages)
    if missing:
        raise RuntimeError(f"missing Debian package(s) {' '.join(missing)}; install with: "
                           f"sudo apt-get install -y {' '.join(packages)}")


def select(decks: list[Deck], names: Iterable[str] | None) -> list[Deck]:
    """The kept decks to render: all, or the named ones (ValueError for unknown/left out)."""
    if names is None:
        return kept(decks)
    by_name = {d.name: d for d in decks}
    chosen = []
    for name in names:
        if name not in by_name:
            raise ValueError(f"unknown deck {name!r} (`python tools/render_deck_corpus.py --list` "
                             "lists the decks)")
        if by_name[name].reason is not None:
            raise ValueError(f"deck {name!r} is left out: {by_name[name].reason}")
        chosen.append(by_name[name])
    return chosen


def ensure_corpus(folder: Path | str, decks: Iterable[str] | None = None,
                  height: int = DEFAULT_HEIGHT, install: bool = False,
                  log: Callable[[str], None] | None = None) -> Path:
    """Render what is missing of the corpus in `folder` and write its manifest."""
    out = Path(folder)
    decks = None if decks is None else list(decks)
    ensure_packages(install, packages_for(decks))
    everything = discover()
    chosen = select(everything, decks)
    out.mkdir(parents=True, exist_ok=True)
    if not os.access(out, os.W_OK):
        raise PermissionError(f"cannot write to {out}")
    for deck in chosen:
        if rendered_entry(out, deck.name, height) is not None:
            continue
        entry = render_deck(deck, out, height)
        if log:
            log(f"{deck.name}: {entry['cards']} cards, back={entry['back']}, "
                f"aspect {entry['aspect']}")
    write_manifest(out, everything, height)
    return out
