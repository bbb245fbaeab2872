"""`tablectl vision check`: what reads the cards on this machine, and how fast.

    tablectl vision check [--config table.toml] [--frames 20] [--frame-size WxH]
                          [--real-deck]

Prints the runtime that runs the camera's networks and the verifier files it
runs (the int8 copies on onnxruntime, `vision.quantized`), the enrolled house
deck the config names and whether it fits them, and the time the recognizer
takes for simulated table frames on one thread, at the camera's resolution
(`--frame-size`, else the config's `[camera] width` and `height`, else
1280x720; the cards are as wide in pixels at any size): the figure to hold
against the camera's frame rate on the machine that will run the table (a Pi
is several times slower than a desktop core). Exit 1 when the networks or the
house deck cannot be used. `--real-deck` also reads scenes of the real deck
shipped in the package and says whether this machine reads them as the reference
machine does (`vision_check_deck`; exit 1 when it does not).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Any

from vision.images import MAX_IMAGE_SIDE

FRAMES = 20
# Frame sizes `--frame-size` takes: from a small webcam's to the largest frame the
# daemon reads.
MIN_SIDE, MAX_SIDE = 320, MAX_IMAGE_SIDE
# A drawn deck of the simulator: the frames' content moves the time little.
TIMING_DESIGN = "classic_duplex"


def register(commands: Any) -> None:
    """Add `check` to the `vision` group."""
    check = commands.add_parser(
        "check", help="the camera's networks on this machine: runtime, files, frame time")
    check.add_argument("--config", metavar="FILE",
                       help="the table's config: its [camera] house deck and frame rate")
    check.add_argument("--frames", type=_frame_count, default=FRAMES,
                       help=f"simulated frames to time (default {FRAMES})")
    check.add_argument("--frame-size", type=_frame_size, metavar="WxH",
                       help="time frames of this size (default: the config's camera "
                            "width and height, else 1280x720)")
    check.add_argument("--real-deck", action="store_true",
                       help="also read scenes of a real deck never trained on, shipped in "
                            "the package, and say whether this machine reads them as the "
                            "reference machine does (needs rsvg-convert: librsvg2-bin)")
    check.set_defaults(func=run_check)


def _frame_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"{value} is not from 1 to 1000")
    return value


def _frame_size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    try:
        size = (int(width), int(height))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a frame size such as 1920x1080") from None
    if not all(MIN_SIDE <= side <= MAX_SIDE for side in size):
        raise argparse.ArgumentTypeError(
            f"{text!r}: each side must be from {MIN_SIDE} to {MAX_SIDE} pixels")
    return size


def run_check(args: argparse.Namespace) -> int:
    import cv2

    from tablectl.config import ConfigError, load_config
    from vision.house_deck import HouseDeckError
    from vision.recognizer import ModelError, Recognizer

    cv2.setNumThreads(1)  # the figures are for one core, as the daemon reads a camera
    fps = None
    frame_size = (1280, 720)
    house_deck = None
    learnt = faint_passes = False
    proposer = True
    if args.config is not None:
        try:
            config = load_config(args.config)
        except ConfigError as exc:
            return _fail(str(exc))
        if config.camera is None:
            return _fail(f"{args.config} has no [camera] section")
        fps, house_deck = config.camera.fps, config.camera.house_deck
        frame_size = (config.camera.width, config.camera.height)
        learnt = config.camera.learn_house_deck
        faint_passes, proposer = config.camera.faint_passes, config.camera.proposer
    try:
        recognizer = Recognizer(faint_passes=faint_passes, proposer=proposer)
        if house_deck is not None:
            recognizer = Recognizer(house_deck=house_deck, faint_passes=faint_passes,
                                    proposer=proposer)
    except HouseDeckError as exc:
        if not learnt:
            return _fail(str(exc))
        # The daemon learns the deck from play: none yet, or one it sets aside.
        print(f"house deck: {house_deck}: learnt from play; not usable now ({exc}), "
              "learnt as the table plays")
        house_deck = None
    except ModelError as exc:
        return _fail(str(exc))
    print(f"networks: {describe_networks(recognizer)}"
          + (_proposer_note(recognizer.proposer.refiner is not None)
             if recognizer.proposer is not None else "")
          + ("; faint passes on" if recognizer.faint_passes else ""))
    if recognizer.verifier_path is not None:
        print("verifier, 32 crops: " + ", ".join(
            f"{name} {ms:.1f} ms" for name, ms in verifier_times(recognizer)))
    if house_deck is not None:
        deck = recognizer.house_deck
        print(f"house deck: {house_deck}: {deck.name if deck else '?'}, "
              f"{len(deck.cards) if deck else 0} cards, enrolled with these networks")
    if args.frame_size is not None:
        frame_size = args.frame_size
    times = frame_times(recognizer, args.frames, frame_size)
    median, slowest = statistics.median(times), max(times)
    print(f"frames: {len(times)} simulated {frame_size[0]}x{frame_size[1]} table frames, "
          f"one thread: median {median:.1f} ms, slowest {slowest:.1f} ms")
    if fps is not None:
        period = 1000.0 / fps
        verdict = ("keeps up" if median <= period else
                   f"does not keep up: about {1000.0 / median:.1f} frames a second are read")
        print(f"camera: {fps:g} frames a second, {period:.0f} ms a frame: the recognizer "
              f"{verdict}")
        if not recognizer.faint_passes:
            # What turning them on would cost here: the same frames read with them.
            recognizer.faint_passes = True
            with_faint = statistics.median(frame_times(recognizer, args.frames, frame_size))
            would = "would keep up" if with_faint <= period else "would not keep up"
            print(f"faint passes (off in the config): median {with_faint:.1f} ms with "
                  f"faint_passes = true: the recognizer {would}")
    status = _real_deck_check() if args.real_deck else 0
    for line in recognizer.int8_refused:
        print(f"int8 copy not run: {line}")
    return status


def _real_deck_check() -> int:
    """Read the shipped real deck with the shipped settings (no house deck: it is of
    another deck); 1 when it cannot be drawn here or reads otherwise than the reference."""
    from tablectl.commands.vision_check_deck import real_deck_lines
    from vision.recognizer import Recognizer

    try:
        lines, alike = real_deck_lines(Recognizer())
    except (RuntimeError, OSError, ValueError) as exc:
        return _fail(f"the real deck cannot be drawn here: {exc}")
    print("\n".join(lines))
    return 0 if alike else 1


def describe_networks(recognizer: Any) -> str:
    """The runtime and the verifier files it runs, in a line."""
    files = ", ".join(recognizer.verifier_files) or "none"
    if recognizer.runtime == "onnxruntime":
        import onnxruntime  # type: ignore[import-not-found]

        return f"onnxruntime {onnxruntime.__version__}; verifiers: {files}"
    return (f"OpenCV's dnn module; verifiers: {files} (onnxruntime is not installed: "
            "pip install 'tablectl[onnxruntime]' runs them faster, as int8 copies)")


def verifier_times(recognizer: Any, repeat: int = 30) -> list[tuple[str, float]]:
    """Median milliseconds of the verifier on a batch of 32 crops on each runtime that
    can run it here: the file the recognizer runs, its float file on onnxruntime where
    that differs, and the float file on OpenCV's dnn module."""
    import numpy as np

    from vision.networks import Network

    running = recognizer.verifier_path
    float_name = next((name for name, copy in recognizer.int8_copies.items()
                       if copy == running.name), running.name)
    float_path = running.parent / float_name
    runs = [(f"{recognizer.runtime} ({running.name})", Network(running, recognizer.runtime))]
    if recognizer.runtime == "onnxruntime" and running != float_path:
        runs.append((f"onnxruntime ({float_path.name})", Network(float_path, "onnxruntime")))
    if recognizer.runtime != "opencv":
        runs.append((f"opencv ({float_path.name})", Network(float_path, "opencv")))
    batch = np.random.default_rng(0).normal(0, 0.5, (32, 3, 36, 24)).astype(np.float32)
    times = []
    for name, network in runs:
        network.run(batch)
        spent = []
        for _ in range(repeat):
            started = time.perf_counter()
            network.run(batch)
            spent.append((time.perf_counter() - started) * 1000.0)
        times.append((name, statistics.median(spent)))
    return times


def frame_times(recognizer: Any, frames: int,
                frame_size: tuple[int, int] = (1280, 720)) -> list[float]:
    """Milliseconds the recognizer took for each of `frames` simulated table frames of
    `frame_size`, on one thread (the first frame, which warms the networks up, not
    counted)."""
    from hwsim.camera.dataset import generate_scenes

    times = []
    scenes = generate_scenes(frames + 1, seed=1, designs=[TIMING_DESIGN],
                             frame_size=frame_size)
    for k, scene in enumerate(scenes):
        started = time.perf_counter()
        recognizer.detect_all(scene.image)
        if k:
            times.append((time.perf_counter() - started) * 1000.0)
    return times


def _fail(message: str) -> int:
    print(f"tablectl vision check: {message}", file=sys.stderr)
    return 1


def _proposer_note(refined: bool) -> str:
    return "; learnt proposer and refiner on" if refined else "; learnt proposer on"
