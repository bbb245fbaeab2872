"""`python -m hwsim COMMAND ...`: start simulated devices from a shell.

Each command lives in a module with `register(subparsers)`; add new ones to
COMMAND_MODULES.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from hwsim import interrupts

COMMAND_MODULES = ("hwsim.shoe.cli", "hwsim.camera.cli")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m hwsim", description="Hardware simulator.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; Ctrl-C or a closed output ends it with one line (exit 1)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    name = f"python -m hwsim {args.command}"
    interrupts.install()
    try:
        result: int = func(args)
        sys.stdout.flush()
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 1
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the flush at exit must not fail again
        os.close(devnull)
        print(f"{name}: the output was closed before everything was written", file=sys.stderr)
        return 1
    return result


if __name__ == "__main__":
    sys.exit(main())
