"""Value types for command-line options (argparse `type=`): each turns the text
into a number or says in one line why it cannot, which argparse prints with the
command's usage. Shared by `tablectl`'s commands and `python -m hwsim`."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """A whole number, 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} must be at least 1")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def non_negative(text: str) -> float:
    """A number, 0 or more."""
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative; give 0 or more")
    return value


def chance(text: str) -> float:
    """A probability, 0 to 1."""
    value = _number(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not a chance between 0 and 1")
    return value
