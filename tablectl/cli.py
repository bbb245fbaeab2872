"""The `tablectl` command line: one entry point, one module per command group."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import threading
import traceback
import warnings
from collections.abc import Sequence
from importlib import metadata

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
    parser.add_argument("--version", action="version", version=f"tablectl {_version()}")
    parser.add_argument(
        "--verbose", dest="verbose_all", action="store_true",
        help="show the libraries' warnings, debug logging, and the traceback of an "
        "unexpected error",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(name)
        module.register(subparsers)
    return parser


def _version() -> str:
    try:
        return metadata.version("tablectl")
    except metadata.PackageNotFoundError:
        return "(not installed)"


def _quiet_libraries() -> None:
    """Warnings of the libraries (gpiozero's pin factory fallbacks, numpy, OpenCV's
    own log) are for --verbose: each command says what went wrong in its words."""
    warnings.simplefilter("ignore")
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Whatever happens, a user sees one line about it, never a
    traceback (unless --verbose): exit status 2 for a usage error, 1 for a failure."""
    verbose = "--verbose" in (sys.argv[1:] if argv is None else argv)
    command = "tablectl"
    try:
        if not verbose:
            _quiet_libraries()
            sys.unraisablehook = _quiet_unraisable
        parser = build_parser()
        args, extra = parser.parse_known_args(argv)
        if extra:  # said by the command's own parser, with its usage
            _parser_of(parser, _command_words(args)).error(
                f"unrecognized arguments: {' '.join(extra)}")
        if args.verbose_all and hasattr(args, "verbose"):
            args.verbose = True  # `run` and others with their own -v
        command = " ".join(["tablectl", *_command_words(args)])
        func = getattr(args, "func", None)
        if func is None:
            parser.print_help()
            return 2
        result: int = func(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return result
    except KeyboardInterrupt:
        global _interrupted
        _interrupted = True
        _forget_threads_never_started()
        _say(f"{command}: interrupted")
        return 1
    except BrokenPipeError:
        # The reader went away (`| head`): nothing more can be written there.
        _drop_stdout()
        _say(f"{command}: the output was closed before everything was written")
        return 1
    except Exception as error:
        if verbose:
            traceback.print_exc()
        detail = " ".join(str(error).split())  # one line, whatever the library wrote
        _say(f"{command}: unexpected error: {type(error).__name__}: {detail}"
             + ("" if verbose else " (--verbose shows where)"))
        return 1


# Set once the command has reported a Ctrl-C.
_interrupted = False


def _quiet_unraisable(unraisable: sys.UnraisableHookArgs) -> None:
    """An error Python cannot raise (in a finaliser, a weak reference's callback or an
    exit handler): a Ctrl-C or a closed output landing there is the interrupt the command
    already reports; anything else is one line, not the interpreter's traceback.

    After a reported Ctrl-C, an exit-time wait failing on a thread that never started is
    part of that interrupt too: a Ctrl-C landing inside `Thread.start` leaves the thread
    registered but not started, and the wait says "cannot join thread before it is
    started". So is a finaliser failing on an attribute its object never got: a Ctrl-C
    landing inside a device's constructor (gpiozero's `Button`) leaves it half built,
    and its `__del__` finds no `_hold_thread` to close."""
    error = unraisable.exc_value
    if isinstance(error, KeyboardInterrupt | BrokenPipeError):
        return
    if _interrupted and isinstance(error, RuntimeError) and _NEVER_STARTED in str(error):
        return
    if (_interrupted and isinstance(error, AttributeError)
            and getattr(unraisable.object, "__name__", "") == "__del__"):
        return
    _say(f"tablectl: ignored an error in {unraisable.object!r}: "
         f"{type(error).__name__}: {error}")


_NEVER_STARTED = "cannot join thread before it is started"


def _forget_threads_never_started() -> None:
    """gpiozero joins its own threads at exit, then releases the pins; a thread a Ctrl-C
    caught inside its start would stop that at the join, leaving the pins held."""
    gpiozero_threads = sys.modules.get("gpiozero.threads")
    registered = getattr(gpiozero_threads, "_THREADS", None)
    if not isinstance(registered, set):
        return
    for thread in list(registered):
        if isinstance(thread, threading.Thread) and thread.ident is None:
            registered.discard(thread)


def _command_words(args: argparse.Namespace) -> list[str]:
    words = []
    for key, value in vars(args).items():
        if key == "command" or (key.endswith("_command") and isinstance(value, str)):
            words.append(value)
    return [word for word in words if word]


def _parser_of(parser: argparse.ArgumentParser, words: list[str]) -> argparse.ArgumentParser:
    """The parser of the command `words` names (`journal`, `export`)."""
    for word in words:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction) and word in action.choices:
                parser = action.choices[word]
                break
    return parser


def _say(line: str) -> None:
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass  # stderr is gone too


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so the flush at exit does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
