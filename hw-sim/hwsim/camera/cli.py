"""`python -m hwsim camera ...`: camera frames of a simulated table, and scene sets.

    camera frame --table '{"box1": ["AS", "7D"], "dealer": ["9C"]}' --out frame.png
                 [--layout layout.json] [--design NAME] [--seed N] [--arms N] [--moving KS ...]
    camera scenes --out DIR [--n 200] [--seed 7] [--designs held-out]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import cv2

from hwsim.camera import dataset
from hwsim.camera.designs import DESIGNS
from hwsim.camera.table_frames import DEFAULT_CARD_WIDTH, DEFAULT_DESIGN, render_table_frame


def _table(text: str) -> dict[str, list[str]]:
    """The --table value: JSON, or @FILE holding JSON."""
    source = "--table"
    if text.startswith("@"):
        source = text[1:]
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError as exc:
            raise argparse.ArgumentTypeError(f"cannot read {source}: {exc.strerror}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(
            f"{source} is not JSON ({exc.msg} at character {exc.pos}); give an object such as "
            '{"box1": ["AS", "7D"], "dealer": ["9C"]}') from None
    if not isinstance(doc, dict) or not all(
            isinstance(v, list) and all(isinstance(c, str) for c in v) for v in doc.values()):
        raise argparse.ArgumentTypeError(
            f"{source} must map places to lists of card codes, e.g. "
            '{"box1": ["AS", "7D"], "dealer": ["9C"]}')
    return doc


def run_frame(args: argparse.Namespace) -> int:
    try:
        image, layout = render_table_frame(args.table, args.design, args.seed, args.card_width,
                                           arms=args.arms, moving=args.moving)
    except ValueError as exc:
        print(f"error: {exc}")
        return 2
    if not cv2.imwrite(str(args.out), image):
        print(f"error: could not write {args.out} (use a .png or .jpg name in a folder that "
              "exists)")
        return 1
    print(f"wrote {args.out}")
    if args.layout is not None:
        args.layout.write_text(json.dumps(layout, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.layout}")
    return 0


def run_scenes(args: argparse.Namespace) -> int:
    argv = ["--out", str(args.out), "--n", str(args.n), "--seed", str(args.seed)]
    if args.designs:
        argv += ["--designs", *args.designs]
    return dataset.main(argv)


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add `camera` to a subcommand group."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "camera", help="render camera frames of the table",
        description="Render what the overhead camera sees: a frame of given cards, or a "
                    "set of random scenes with their truth.")
    commands = parser.add_subparsers(dest="camera_command", metavar="COMMAND", required=True)
    frame = commands.add_parser("frame", help="one frame of the cards on the table")
    frame.add_argument("--table", type=_table, required=True,
                       help='JSON (or @FILE) like {"box1": ["AS", "7D"], "dealer": ["9C"]}')
    frame.add_argument("--out", type=Path, required=True, help="image file to write")
    frame.add_argument("--layout", type=Path, default=None,
                       help="also write the table layout (vision.layout file) here")
    frame.add_argument("--design", default=DEFAULT_DESIGN,
                       help=f"a drawn design ({', '.join(sorted(DESIGNS))}) or a deck of real "
                            "artwork from the deck corpus, e.g. kde-standard")
    frame.add_argument("--seed", type=int, default=0)
    frame.add_argument("--card-width", type=int, default=DEFAULT_CARD_WIDTH)
    frame.add_argument("--arms", type=int, default=0, help="dealer's arms over the cards")
    frame.add_argument("--moving", nargs="*", default=[], metavar="CARD",
                       help="cards sliding across the felt")
    frame.set_defaults(func=run_frame)
    scenes = commands.add_parser("scenes", help="random scenes with truth (benchmark sets)")
    scenes.add_argument("--out", type=Path, required=True)
    scenes.add_argument("--n", type=int, default=200)
    scenes.add_argument("--seed", type=int, default=7)
    scenes.add_argument("--designs", nargs="+", default=None,
                        help="design or deck names, or tuning / held-out / all / real-training / "
                             "real-held-out (default held-out)")
    scenes.set_defaults(func=run_scenes)
    return parser
