"""`tablectl vision ...`: read cards in pictures, preview what was read, calibrate the layout.

Every `tablectl` command builds this parser, so OpenCV and numpy are imported
only when a vision command runs: `tablectl run` without a camera starts
without them.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from tablectl.commands.vision_check import register as register_check
from tablectl.commands.vision_enroll import register as register_enroll

if TYPE_CHECKING:
    import numpy as np

    from vision.detection import Detection
    from vision.layout import Layout


def register(subparsers: Any) -> None:
    """Add this group's commands to the top-level parser."""
    parser = subparsers.add_parser(
        "vision", help="camera: read cards, preview, calibrate, enrol the deck, check")
    commands = parser.add_subparsers(dest="vision_command", metavar="SUBCOMMAND")
    parser.set_defaults(func=lambda _args: _usage(parser))

    detect = commands.add_parser("detect", help="read the cards in still images")
    detect.add_argument("images", nargs="+", metavar="IMAGE")
    detect.add_argument("--json", action="store_true",
                        help="one JSON object per image and line: image, cards")
    detect.add_argument("--layout", metavar="FILE", help="layout file: name each card's box")
    detect.add_argument("--house-deck", metavar="FILE",
                        help="read the cards as this enrolled deck (tablectl vision enroll)")
    detect.add_argument("--faint-passes", action="store_true",
                        help="look again for pale index glyphs once the first pairs are read "
                             "([camera] faint_passes)")
    detect.add_argument("--no-proposer", action="store_true",
                        help="read only the candidate finder's pairs, not the learnt "
                             "proposer's corners ([camera] proposer = false)")
    detect.set_defaults(func=_detect)

    preview = commands.add_parser("preview", help="draw every card read onto the picture")
    preview.add_argument("image", metavar="IMAGE")
    preview.add_argument("--out", required=True, metavar="FILE", help="picture to write")
    preview.add_argument("--layout", metavar="FILE", help="layout file: draw and name the boxes")
    preview.set_defaults(func=_preview)

    calibrate = commands.add_parser(
        "calibrate", help="make the layout file from a picture of the empty table")
    calibrate.add_argument("image", metavar="IMAGE")
    calibrate.add_argument("--out", required=True, metavar="FILE", help="layout file to write")
    calibrate.add_argument(
        "--corners", nargs=4, metavar="X,Y",
        help="pixel positions of the table's reference corners (top-left, top-right, "
             "bottom-right, bottom-left) instead of finding the ArUco markers")
    calibrate.add_argument("--boxes", type=int, default=7, help="boxes on the table (1-7)")
    calibrate.add_argument("--template", metavar="FILE",
                           help="the site's own template (table-template/1) of the areas")
    calibrate.set_defaults(func=_calibrate)

    markers = commands.add_parser("markers", help="write the four corner markers for printing")
    markers.add_argument("--out", required=True, metavar="PREFIX",
                         help="files PREFIX0.png ... PREFIX3.png")
    markers.add_argument("--size", type=int, default=400, help="marker side in pixels")
    markers.set_defaults(func=_markers)

    register_enroll(commands)
    register_check(commands)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _fail(message: str) -> int:
    print(f"tablectl vision: {message}", file=sys.stderr)
    return 1


def _load_layout(path: str | None) -> Layout | None:
    from vision.layout import load_layout

    return load_layout(path) if path else None


def _read_image(path: str, *, check_frame: bool = False) -> np.ndarray:
    """The picture, or OSError naming the file and what is wrong with it: not a picture,
    truncated, larger than `vision.images.MAX_IMAGE_SIDE` a side (refused before it is
    decoded), or with `check_frame` no picture to read cards from (black, flat).
    A grey picture is read, with a warning on stderr."""
    from vision.images import GREY_WARNING, ImageError, frame_problem, has_colour, read_image

    try:
        image = read_image(path)
    except ImageError as exc:
        raise OSError(str(exc)) from None
    problem = frame_problem(image) if check_frame else None
    if problem is not None:
        raise OSError(f"{path}: {problem}")
    if not has_colour(image):
        print(f"tablectl vision: warning: {path}: {GREY_WARNING}", file=sys.stderr)
    return image


def _read_cards(recognizer: Any, path: str, layout: Layout | None
                ) -> tuple[np.ndarray, list[Detection], list[Detection]]:
    """The picture, the cards read in it and the index corners seen but not read surely
    (card "??"); OSError with a one-line reason."""
    image = _read_image(path, check_frame=True)
    try:
        cards, unknown = recognizer.detect_all(image, layout)
        return image, list(cards), list(unknown)
    except Exception as exc:  # whatever the picture does to the recognizer: one line
        raise OSError(f"{path}: the cards cannot be read ({type(exc).__name__}: "
                      f"{exc})") from None


def _detect(args: argparse.Namespace) -> int:
    from vision.house_deck import HouseDeckError
    from vision.layout import LayoutError
    from vision.recognizer import ModelError, Recognizer

    try:
        layout = _load_layout(args.layout)
        recognizer = Recognizer(house_deck=args.house_deck, faint_passes=args.faint_passes,
                                proposer=not args.no_proposer)
    except (LayoutError, ModelError, HouseDeckError) as exc:
        return _fail(str(exc))
    failures = 0
    for path in args.images:
        try:
            _image, detections, unknown = _read_cards(recognizer, path, layout)
        except OSError as exc:
            failures += 1
            print(f"tablectl vision: {exc}; skipped", file=sys.stderr)
            continue
        if args.json:
            print(json.dumps({"image": path, "cards": [d.to_json() for d in detections],
                              "unknown": [d.to_json() for d in unknown]}))
        else:
            cards = " ".join(_describe(d) for d in [*detections, *unknown]) or "(no cards)"
            print(f"{path}: {cards}")
    return 1 if failures else 0


def _describe(detection: Detection) -> str:
    where = f"@{detection.box}" if detection.box else ""
    return f"{detection.card}{where}"


def _preview(args: argparse.Namespace) -> int:
    import cv2

    from vision.layout import LayoutError
    from vision.recognizer import ModelError, Recognizer

    try:
        layout = _load_layout(args.layout)
        recognizer = Recognizer()
        image, detections, _unknown = _read_cards(recognizer, args.image, layout)
    except (LayoutError, ModelError, OSError) as exc:
        return _fail(str(exc))
    canvas = draw_preview(image, detections, layout)
    if not cv2.imwrite(args.out, canvas):
        return _fail(f"{args.out}: cannot write the picture (folder missing, or no image "
                     "suffix such as .png or .jpg)")
    print(f"{args.out}: {len(detections)} cards{index_size_note(detections)}")
    return 0


# Indices (rank glyph centre to suit pip centre) smaller than this lose several times
# more cards than larger ones on the benchmark's decks (docs/vision.md, "Installing the
# camera").
SMALL_INDEX_PX = 14.0


def index_size_note(detections: list[Detection]) -> str:
    """How large the indices read are, for the installer: "" where none says."""
    import statistics

    sizes = [d.index_px for d in detections if d.index_px is not None]
    if not sizes:
        return ""
    median = statistics.median(sizes)
    note = (f"; index size {median:.1f} px (median rank-to-pip distance; "
            f"{min(sizes):.1f} to {max(sizes):.1f})")
    if median < SMALL_INDEX_PX:
        note += (f": under {SMALL_INDEX_PX:.0f} px, more cards are missed; bring the camera "
                 "closer or use a higher resolution")
    return note


def draw_preview(image: np.ndarray, detections: list[Detection],
                 layout: Layout | None) -> np.ndarray:
    """The frame with the layout's areas and every card read outlined and labelled."""
    import cv2
    import numpy as np

    canvas = image.copy()
    if layout is not None:
        if tuple(layout.image_size) != (image.shape[1], image.shape[0]):
            layout = layout.scaled_to(image.shape[1], image.shape[0])
        for name, polygon in layout.areas.items():
            points = np.asarray(polygon, np.float32).round().astype(np.int32)
            cv2.polylines(canvas, [points], True, (255, 200, 0), 2, cv2.LINE_AA)
            x, y = points.min(axis=0)
            cv2.putText(canvas, name, (int(x) + 4, int(y) + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                        (255, 200, 0), 2, cv2.LINE_AA)
    for det in detections:
        centre = (round(det.x), round(det.y))
        cv2.rectangle(canvas, (centre[0] - 14, centre[1] - 20), (centre[0] + 14, centre[1] + 20),
                      (0, 0, 255), 2, cv2.LINE_AA)
        label = f"{det.card} {det.confidence:.2f}"
        origin = (centre[0] - 14, centre[1] - 26)
        cv2.putText(canvas, label, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 4,
                    cv2.LINE_AA)
        cv2.putText(canvas, label, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 255, 255), 1,
                    cv2.LINE_AA)
    return canvas


def _calibrate(args: argparse.Namespace) -> int:
    from vision.calibrate import (
        CORNER_MARKER_IDS,
        CalibrationError,
        calibrate_image,
        default_template,
        load_template,
        parse_corners,
    )
    from vision.layout import save_layout

    try:
        image = _read_image(args.image)
        template = (load_template(args.template) if args.template
                    else default_template(args.boxes))
        corners = parse_corners(args.corners) if args.corners else None
        layout = calibrate_image(image, corners, template)
        save_layout(layout, args.out)
    except (CalibrationError, OSError) as exc:
        return _fail(str(exc))
    how = "the given corners" if corners else f"ArUco markers {list(CORNER_MARKER_IDS)}"
    print(f"{args.out}: {len(layout.areas)} areas from {how}")
    return 0


def _markers(args: argparse.Namespace) -> int:
    import cv2

    from vision.calibrate import CORNER_MARKER_IDS, marker_image

    if not 50 <= args.size <= 4000:
        return _fail(f"--size {args.size}: give 50 to 4000 pixels")
    for marker_id in CORNER_MARKER_IDS:
        path = f"{args.out}{marker_id}.png"
        if not cv2.imwrite(path, marker_image(marker_id, args.size)):
            return _fail(f"{path}: cannot write the picture")
        print(path)
    return 0
