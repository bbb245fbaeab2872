"""The command line of `vision_real_decks.py`, and the recognizer it asks for.

The options say which recognizer reads the scenes (another classifier, proposer or
refiner, the faint passes, the finder's passes, the second chances' bar) and which
decks and house decks are scored; `recognizer_for(args)` builds that recognizer.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench_vision import load_recognizer

from vision.networks import Network
from vision.proposer import (
    DEFAULT_THRESHOLD,
    MAX_SPAN_PX,
    MIN_SPAN_PX,
    PROPOSER_FILE,
    IndexProposer,
)
from vision.refiner import IndexRefiner

ROOT = Path(__file__).resolve().parent.parent
PROPOSER = ROOT / "vision" / "models" / PROPOSER_FILE


def parse_options(description: str, argv: Sequence[str] | None
                  ) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    """The parser and the arguments, or exit 2 naming what is wrong."""
    from hwsim.camera.artwork import HELD_OUT_DECKS

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--n-per-deck", type=int, default=40, help="scenes per deck")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--decks", nargs="+", default=list(HELD_OUT_DECKS),
                        help="decks of the corpus (default: the held-out decks), or "
                             "font-drawn decks of $TABLECTL_FONT_DECKS")
    parser.add_argument("--model", type=Path, default=None,
                        help="classifier .onnx (default: the shipped one)")
    parser.add_argument("--faint-passes", action="store_true",
                        help="look again for pale glyphs once the finder's pairs are read "
                             "(the camera's faint_passes setting, vision.faint_glyphs)")
    parser.add_argument("--proposer", type=Path, default=None, metavar="ONNX",
                        help="another learnt proposer in the shipped one's place (its corners "
                             "away from the finder's reads are read: vision.proposer)")
    parser.add_argument("--no-proposer", action="store_true",
                        help="read the finder's pairs alone, without the learnt proposer "
                             "([camera] proposer = false)")
    parser.add_argument("--proposer-threshold", type=float, default=DEFAULT_THRESHOLD)
    parser.add_argument("--proposer-zoom-below", type=float, default=None, metavar="PX",
                        help="show the proposer frames whose indices are read smaller than "
                             "this index scale (frame px) larger (vision.proposer.input_scale)")
    parser.add_argument("--proposer-recut-unsure", action="store_true",
                        help="the proposer's corners at unsure reads are read again too")
    parser.add_argument("--refiner", type=Path, default=None, metavar="ONNX",
                        help="another learnt refiner of the proposer's places in the shipped "
                             "one's place (vision.refiner)")
    parser.add_argument("--refine-unsure", action="store_true",
                        help="refine the unsure corners and read them again (the settings' "
                             "refine_unsure, on where they say so)")
    parser.add_argument("--full-finder", action="store_true",
                        help="run all three of the finder's passes beside the proposer (the "
                             "settings' lean_finder off)")
    parser.add_argument("--second-chance-confidence", type=float, default=None, metavar="P",
                        help="the confidence the proposer's reads and the unsure corners read "
                             "again need (default: the settings' second_chance_confidence)")
    parser.add_argument("--no-refiner", action="store_true",
                        help="read the proposer's places as it gives them, not refined")
    parser.add_argument("--no-candidates", action="store_true",
                        help="skip counting the candidate finder's proposals")
    parser.add_argument("--jpeg-qualities", type=int, nargs=2, default=None,
                        metavar=("LOWEST", "HIGHEST"),
                        help="draw the compressed scenes' JPEG quality from this range "
                             "(default 50 95, the training sets'; the camera's issue asks "
                             "for 60 95); every other draw of a scene stays the same")
    parser.add_argument("--worst", type=int, default=12, help="confusions to list")
    parser.add_argument("--wrong-crops", type=Path, default=None, metavar="DIR",
                        help="write a picture of each wrong read into DIR, named by scene, "
                             "card read and where it lies")
    parser.add_argument("--losses", action="store_true",
                        help="also say where each card not read was lost: read wrong, "
                             "unknown, dropped in merging, called not an index, never "
                             "proposed (reads every frame's pairs again, untimed)")
    parser.add_argument("--by-size", action="store_true",
                        help="also break the figures down by the cards' width in the frame, "
                             "by their index size and by what spoils the frame (glare, "
                             "tilt, blur, ...)")
    parser.add_argument("--only-enrolled", action="store_true",
                        help="score only the enrolled house decks (implies --enrolled)")
    parser.add_argument("--only-learnt", action="store_true",
                        help="score only the learnt house decks (needs --learnt)")
    parser.add_argument("--enrolled", action="store_true",
                        help="also enrol each deck from photos of its cards and score it read "
                             "as the house deck")
    parser.add_argument("--learnt", type=int, default=0, metavar="N",
                        help="also learn each deck from N scenes of play, every visible "
                             "corner named by its card as the shoe names it, and score it "
                             "read as the house deck (in the scenes --enrolled reads)")
    parser.add_argument("--learn-from", choices=("shoe", "agreeing", "eliminating"),
                        default="shoe",
                        help="with --learnt: every corner the shoe names (shoe), only "
                             "those the networks read as the shoe's card, as the daemon "
                             "learns (agreeing), or those and the corners named by "
                             "elimination in a box (eliminating)")
    args = parser.parse_args(argv)
    if args.n_per_deck < 1:
        parser.error("--n-per-deck must be 1 or more")
    if args.jpeg_qualities is not None:
        from hwsim.camera.dataset import check_jpeg_qualities

        args.jpeg_qualities = tuple(args.jpeg_qualities)
        try:
            check_jpeg_qualities(args.jpeg_qualities)
        except ValueError as error:
            parser.error(str(error))
    if args.learnt < 0:
        parser.error("--learnt must be 0 (off) or more scenes")
    if args.only_learnt and not args.learnt:
        parser.error("--only-learnt needs --learnt N")
    if args.proposer is not None and not args.proposer.is_file():
        parser.error(f"--proposer: no such file {args.proposer}")
    if args.refiner is not None and not args.refiner.is_file():
        parser.error(f"--refiner: no such file {args.refiner}")
    if args.refiner is not None and args.no_refiner:
        parser.error("--refiner and --no-refiner ask for opposite things: give one")
    if not 0.0 < args.proposer_threshold < 1.0:
        parser.error("--proposer-threshold must be a probability between 0 and 1")
    if args.proposer_zoom_below is not None and not (
            MIN_SPAN_PX <= args.proposer_zoom_below <= MAX_SPAN_PX):
        parser.error(f"--proposer-zoom-below must be {MIN_SPAN_PX:g} to {MAX_SPAN_PX:g} px")
    if args.second_chance_confidence is not None and not 0.0 < args.second_chance_confidence <= 1.0:
        parser.error("--second-chance-confidence must be a probability above 0 and at most 1")
    if args.wrong_crops is not None:
        try:
            args.wrong_crops.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            parser.error(f"--wrong-crops: cannot make the folder {args.wrong_crops} "
                         f"({error.strerror or error})")
        if not os.access(args.wrong_crops, os.W_OK):
            parser.error(f"--wrong-crops: cannot write into {args.wrong_crops}")
    return parser, args


def recognizer_for(args: argparse.Namespace) -> Any:
    """The recognizer the options ask for."""
    recognizer = load_recognizer(args.model, args.faint_passes, not args.no_proposer)
    if recognizer.proposer is not None and (
            args.proposer is not None or args.proposer_recut_unsure or args.no_refiner
            or args.refiner is not None or args.proposer_threshold != DEFAULT_THRESHOLD):
        refiner = (None if args.no_refiner else
                   IndexRefiner(Network(args.refiner)) if args.refiner is not None
                   else recognizer.proposer.refiner)
        recognizer.proposer = IndexProposer(Network(args.proposer or PROPOSER),
                                            args.proposer_threshold,
                                            recut_unsure=args.proposer_recut_unsure,
                                            refiner=refiner,
                                            zoom_below=recognizer.proposer.zoom_below)
    if recognizer.proposer is not None and args.proposer_zoom_below is not None:
        recognizer.proposer.zoom_below = args.proposer_zoom_below
    if args.refine_unsure:
        recognizer.refine_unsure = True
    if args.full_finder:
        recognizer.lean_finder = False
    if args.second_chance_confidence is not None:
        recognizer.second_chance_confidence = max(args.second_chance_confidence,
                                                  recognizer.min_confidence)
    return recognizer
