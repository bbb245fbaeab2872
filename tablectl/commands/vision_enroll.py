"""`tablectl vision enroll`: teach the camera the deck the casino deals.

    tablectl vision enroll --cards FOLDER --out house-deck.npz [--config table.toml]
    tablectl vision enroll --sheet SHEET.jpg --out house-deck.npz

Writes the enrolled deck and, with `--config`, names it in that file's
`[camera]` section (`house_deck = "..."`). Cards missing, given twice,
unreadable or alike are named; the deck is written only when all 52 are
enrolled, unless `--partial` accepts fewer.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any


def register(commands: Any) -> None:
    """Add `enroll` to the `vision` group."""
    enroll = commands.add_parser(
        "enroll", help="enrol the house deck from pictures of its 52 cards",
        description="Enrol the deck the casino deals: one picture per card (named AS.jpg, "
                    "10H.png, ...) or one sheet of 4 rows (spades, hearts, diamonds, clubs) "
                    "of 13 cards (ace to king).")
    source = enroll.add_mutually_exclusive_group(required=True)
    source.add_argument("--cards", metavar="FOLDER", type=Path,
                        help="folder of card pictures named by the card")
    source.add_argument("--sheet", metavar="IMAGE", type=Path,
                        help="one picture of all 52 cards in 4 rows of 13")
    enroll.add_argument("--out", required=True, metavar="FILE", type=Path,
                        help="enrolled deck to write (.npz)")
    enroll.add_argument("--name", default=None, help="the deck's name (default: the file's)")
    enroll.add_argument("--config", metavar="FILE", type=Path,
                        help="also set [camera] house_deck in this config file")
    enroll.add_argument("--partial", action="store_true",
                        help="write the deck even when some cards could not be enrolled")
    enroll.set_defaults(func=run_enroll)


def run_enroll(args: argparse.Namespace) -> int:
    from vision.enrolment import (
        EnrolmentReport,
        enrol,
        pictures_in_folder,
        pictures_in_sheet,
    )
    from vision.images import ImageError, read_image
    from vision.recognizer import ModelError, Recognizer

    report = EnrolmentReport()
    if args.cards is not None:
        if not args.cards.is_dir():
            return _fail(f"{args.cards}: not a folder of card pictures")
        pictures = pictures_in_folder(args.cards, report)
    else:
        try:
            pictures = pictures_in_sheet(read_image(args.sheet))
        except ImageError as exc:
            return _fail(str(exc))
    try:
        recognizer = Recognizer()
        deck = enrol(recognizer, pictures, args.name or args.out.stem, report,
                     progress=_show_progress)
    except (ModelError, ValueError) as exc:
        return _fail(str(exc))
    for line in report.lines():
        print(line)
    if not report.complete and not args.partial:
        return _fail("the deck was not written: fix the input and enrol again, or accept "
                     "fewer cards with --partial")
    if not report.enrolled:
        return _fail("no card could be enrolled")
    try:
        written = deck.save(args.out)
        print(f"wrote {written}")
        if args.config is not None:
            set_house_deck(args.config, written)
            print(f"{args.config}: [camera] house_deck = \"{written}\"")
    except OSError as exc:
        return _fail(f"cannot write: {exc}")
    return 0


def _show_progress(done: int, total: int) -> None:
    """A line every 13 pictures (a suit of a full deck) and at the end: enrolment takes
    a while (about 16 s for 52 cards on an x86 core, several times that on a Pi)."""
    if done % 13 == 0 or done == total:
        print(f"enrolling: {done} of {total} card pictures done", flush=True)


_SECTION = re.compile(r"^\s*\[([^\]]+)\]\s*(#.*)?$")
_KEY = re.compile(r"^\s*house_deck\s*=")


def set_house_deck(config: Path, deck: Path) -> None:
    """Set `house_deck` in the `[camera]` section of a TOML config, keeping everything else.

    The config must already have a `[camera]` section (the camera's source and layout).
    """
    text = config.read_text(encoding="utf-8")
    lines = text.splitlines()
    value = f'house_deck = "{deck.as_posix()}"'
    start = next((k for k, line in enumerate(lines)
                  if (m := _SECTION.match(line)) and m.group(1).strip() == "camera"), None)
    if start is None:
        raise OSError(f"{config} has no [camera] section: add the camera (source, layout) "
                      "first, see docs/vision.md")
    end = next((k for k in range(start + 1, len(lines)) if _SECTION.match(lines[k])),
               len(lines))
    existing = next((k for k in range(start + 1, end) if _KEY.match(lines[k])), None)
    if existing is not None:
        lines[existing] = value
    else:
        insert = end
        while insert > start + 1 and not lines[insert - 1].strip():
            insert -= 1
        lines.insert(insert, value)
    temporary = config.with_name(config.name + ".tmp")
    temporary.write_text("\n".join(lines) + "\n", encoding="utf-8")
    temporary.replace(config)


def _fail(message: str) -> int:
    print(f"tablectl vision enroll: {message}", file=sys.stderr)
    return 1
