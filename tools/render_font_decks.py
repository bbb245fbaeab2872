"""Draw synthetic training decks with TrueType/OpenType fonts from Debian packages.

    python tools/render_font_decks.py [--out var/font-decks] [--height 360] [--seed 1]
                                      [--count N] [--decks NAME ...] [--no-install] [--list]
    python tools/render_font_decks.py --validation   # into var/font-val-decks

Writes OUT/<deck>/<CARD>.png (CARD = rank in "A23456789TJQK" + suit in "SHDC",
e.g. TD.png), OUT/<deck>/back.png, OUT/<deck>/deck.json (with the index boxes
as drawn) and OUT/manifest.json in the deck corpus format, so these decks are
read like the real decks of tools/render_deck_corpus.py. Each deck takes its
rank glyphs from one font; the same seed and installed fonts give the same
images. Missing font packages are installed with apt-get (not with
--no-install; decks whose fonts are then missing are left out and listed).
The generator and deck table live in `hwsim.camera.font_decks`. With
--validation it draws the `fontval-` decks of the faces no training deck uses
(`font_catalogue.VALIDATION_FACES`), to choose between trained networks on
glyph shapes they never saw.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from hwsim.camera import font_catalogue as catalogue
from hwsim.camera import font_decks
from hwsim.camera.font_deck_style import DEFAULT_COUNT, DEFAULT_SEED, FIRST_CATALOGUE, plan


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"render_font_decks: {message}\n")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = _Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=None,
                        help="default var/font-decks (var/font-val-decks with --validation)")
    parser.add_argument("--height", type=int, default=font_decks.DEFAULT_HEIGHT,
                        help=f"card height in pixels (at least {font_decks.MIN_HEIGHT})")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--count", type=int, default=None,
                        help=f"decks to plan (default one a face: {DEFAULT_COUNT}, "
                             f"{len(catalogue.VALIDATION_FACES)} with --validation)")
    parser.add_argument("--first-faces", type=int, default=FIRST_CATALOGUE, metavar="N",
                        help="decks 0 to N-1 take the catalogue's first N faces in one "
                             f"seeded order (default {FIRST_CATALOGUE}: the shipped networks' "
                             "decks; 98 with --count 98: the decks the fonts98 ensemble "
                             "member and the 98-face verifier were trained on)")
    parser.add_argument("--validation", action="store_true",
                        help="the decks of the faces kept out of training")
    parser.add_argument("--decks", nargs="+", metavar="NAME", help="only these planned decks")
    parser.add_argument("--no-install", action="store_true",
                        help="do not apt-get install the missing font packages")
    parser.add_argument("--list", action="store_true",
                        help="print the planned decks and their fonts, draw nothing")
    args = parser.parse_args(argv)
    if args.out is None:
        args.out = Path("var/font-val-decks" if args.validation else "var/font-decks")
    if args.count is None:
        args.count = len(catalogue.VALIDATION_FACES) if args.validation else DEFAULT_COUNT
    return args


def print_list(seed: int, count: int, validation: bool, first: int) -> None:
    for style in plan(seed, count, validation, first):
        suit = style.suit_face.face.path.name if style.suit_face else "polygon pips"
        missing = font_decks.missing_fonts(style)
        state = f"missing {missing[0].package}" if missing else "ready"
        print(f"{style.name:40} {style.face.package:24} suits: {suit:26} {state}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if args.count < 1:
            raise ValueError(f"--count must be at least 1, not {args.count}")
        if args.height < font_decks.MIN_HEIGHT:
            raise ValueError(f"--height must be at least {font_decks.MIN_HEIGHT} px, "
                             f"not {args.height}")
        if args.list:
            print_list(args.seed, args.count, args.validation, args.first_faces)
            return 0
        styles = font_decks.select(plan(args.seed, args.count, args.validation,
                                        args.first_faces), args.decks)
        packages = tuple(sorted({f.package for s in styles for f in font_decks.deck_fonts(s)}))
        still_missing = catalogue.ensure_packages(not args.no_install, packages)
        if still_missing:
            print(f"render_font_decks: font packages not installed: {' '.join(still_missing)}; "
                  f"their decks are left out (install: apt-get install -y "
                  f"{' '.join(still_missing)})", file=sys.stderr)
        start = time.monotonic()
        doc = font_decks.render_font_decks(args.out, args.seed, args.count, args.height,
                                           args.decks, log=print, validation=args.validation,
                                           first=args.first_faces)
        print(f"{len(doc['decks'])} font decks in {args.out} "
              f"({time.monotonic() - start:.0f} s), {len(doc['left_out'])} left out")
        if not doc["decks"]:
            raise RuntimeError("no deck could be drawn: no font of the plan is installed")
    except (RuntimeError, ValueError, OSError) as exc:
        print(f"render_font_decks: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
