"""The command line the seeded training scripts share: scenes, steps, seed, jobs, a
cache of what they render, and the file they write."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def training_parser(doc: str, scenes: int, steps: int, out: Path, cache_holds: str
                    ) -> argparse.ArgumentParser:
    """A parser with the shared options (`cache_holds` says what the cache keeps)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--scenes", type=int, default=scenes)
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=None,
                        help=f"keep the rendered {cache_holds} in this .npz for the next run")
    parser.add_argument("--out", type=Path, default=out)
    return parser


def parse_counts(parser: argparse.ArgumentParser, argv: Sequence[str] | None,
                 counts: Sequence[str] = ("scenes", "steps", "jobs")) -> argparse.Namespace:
    """The arguments, or exit 2 naming a count under one."""
    args = parser.parse_args(argv)
    for name in counts:
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be 1 or more")
    return args


def shipped_design_names(root: Path, key: str = "designs") -> list[str]:
    """The designs the shipped networks were trained on (never a held-out one): the
    classifier's, or with `key` "verifier_designs" the own verifier's."""
    import json

    from train_vision import training_designs

    info = json.loads((root / "vision/models/index_classifier.json").read_text("utf-8"))
    _, names = training_designs(info[key])
    return list(names)


def name_in_settings(out: Path, updates: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Where `out` lies beside the other networks, add what `updates(settings)` gives to
    their settings file (index_classifier.json)."""
    import json

    settings = out.parent / "index_classifier.json"
    if settings.exists():
        info = json.loads(settings.read_text("utf-8"))
        info.update(updates(info))
        settings.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
