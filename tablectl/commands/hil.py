"""`tablectl hil SCENARIO...`: play scenario files through the whole stack."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from table.scenario import ScenarioError, load_scenario


def register(subparsers: Any) -> None:
    """Add this group's commands to the top-level parser."""
    parser = subparsers.add_parser(
        "hil", help="play scenario files through the whole stack on virtual devices",
        description="Hardware-in-the-loop: each scenario's cards leave a virtual ShoeLink "
                    "shoe on a pseudo-terminal, its other events go through the local API, "
                    "the lamps are read back from gpiozero mock pins and the journal is "
                    "checked. Prints pass or FAIL per file with every problem; exits 1 if "
                    "any fails. With --camera the daemon also films a simulated felt "
                    "through the real recognizer, tracker and fusion.",
    )
    parser.add_argument("scenarios", nargs="+", metavar="SCENARIO",
                        help="table-scenario/1 files (.json or .jsonl) or folders of them")
    parser.add_argument("--camera", choices=("witness", "only"), default=None,
                        help="witness: the shoe deals and the camera checks each card on "
                             "the felt; only: no shoe, every card is dealt from rendered "
                             "frames of the felt (about a second per card)")
    parser.add_argument("--camera-deck", metavar="NAME", default=None,
                        help="the cards the simulated camera sees: a deck of real artwork "
                             "from the deck corpus (e.g. kde-standard; rendered by "
                             "tools/render_deck_corpus.py) or a drawn design")
    parser.set_defaults(func=run)


def _files(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found += sorted(path.glob("*.json")) + sorted(path.glob("*.jsonl"))
        else:
            found.append(path)
    return found


def run(args: argparse.Namespace) -> int:
    from tablectl.hil import play_scenario

    failures = 0
    files = _files(args.scenarios)
    for path in files:
        try:
            doc = load_scenario(path)
            result = play_scenario(doc, camera=args.camera, camera_deck=args.camera_deck)
        except (OSError, ScenarioError, RuntimeError, ValueError) as error:
            print(f"FAIL {path}: {error}")
            failures += 1
            continue
        if result.passed:
            print(f"pass {path}")
            continue
        failures += 1
        print(f"FAIL {path}")
        for problem in result.problems():
            print(f"  {problem}")
    print(f"{len(files) - failures} of {len(files)} passed through the whole stack")
    return 1 if failures else 0
