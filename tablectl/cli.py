"""The `tablectl` command line: one entry point, one module per command group."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Each module exposes `register(subparsers)` and sets `func` on its parsers.
COMMAND_MODULES = (
    "tablectl.commands.rules",
    "tablectl.commands.shoe",
    "tablectl.commands.panel",
    "tablectl.commands.vision",
    "tablectl.commands.run",
    "tablectl.commands.journal",
    "tablectl.commands.hil",
    "tablectl.commands.odds",
    "tablectl.commands.users",
    "tablectl.commands.floor",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tablectl",
        description="Controller of an electronic blackjack table.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(name)
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    result: int = func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
