"""Render real card artwork (aisleriot, KDE and shipped CC0 decks) into a training/eval corpus.

    python tools/render_deck_corpus.py [--out var/deck-corpus] [--height 360]
                                       [--decks NAME ...] [--no-install] [--list]

Writes OUT/<deck>/<CARD>.png (CARD = rank in "A23456789TJQK" + suit in "SHDC",
e.g. TD.png), OUT/<deck>/back.png and OUT/manifest.json. Decks already rendered
at the same height are skipped. The deck table, the rendering and the manifest
live in `hwsim.camera.deck_corpus`; this is its command line. The decks of
David Bellot's SVG-cards (and decks derived from it) are reserved for an outside
evaluation and are never opened.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from hwsim.camera import deck_corpus as dc


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("var/deck-corpus"))
    parser.add_argument("--height", type=int, default=dc.DEFAULT_HEIGHT,
                        help="card height in pixels (at least 300)")
    parser.add_argument("--decks", nargs="+", metavar="NAME", help="only these kept decks")
    parser.add_argument("--no-install", action="store_true",
                        help="do not apt-get install the missing Debian packages")
    parser.add_argument("--list", action="store_true",
                        help="print the kept and left-out decks, render nothing")
    return parser.parse_args(argv)


def print_list() -> None:
    decks = dc.discover()
    for deck in dc.kept(decks):
        print(f"keep  {deck.name:34} {deck.package}")
    for name, reason in sorted(dc.left_out(decks).items()):
        print(f"leave {name:34} {reason}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        dc.ensure_packages(install=not args.no_install)
        if args.list:
            print_list()
            return 0
        if args.height < 300:
            raise ValueError("--height must be at least 300")
        start = time.monotonic()
        out = dc.ensure_corpus(args.out, args.decks, args.height, log=print)
        count = len(dc.deck_names(out))
        print(f"{count} decks in {out} ({time.monotonic() - start:.0f} s)")
    except (RuntimeError, ValueError, OSError) as exc:
        print(f"render_deck_corpus: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
