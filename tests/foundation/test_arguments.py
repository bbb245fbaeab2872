"""Command-line value types: what they take, and the one line they give otherwise."""

from __future__ import annotations

import argparse

import pytest

from foundation.arguments import chance, non_negative, positive_int


def test_values_in_range_are_read() -> None:
    assert positive_int("1") == 1 and positive_int("64") == 64
    assert non_negative("0") == 0.0 and non_negative("2.5") == 2.5
    assert chance("0") == 0.0 and chance("1") == 1.0 and chance("0.25") == 0.25


@pytest.mark.parametrize(
    ("convert", "text", "message"),
    [(positive_int, "0", "0 must be at least 1"), (positive_int, "-3", "-3 must be at least 1"),
     (positive_int, "2.5", "'2.5' is not a whole number"),
     (non_negative, "-0.1", "-0.1 is negative; give 0 or more"),
     (non_negative, "fast", "'fast' is not a number"),
     (chance, "1.5", "1.5 is not a chance between 0 and 1"),
     (chance, "-0.01", "-0.01 is not a chance between 0 and 1")],
)
def test_a_value_out_of_range_says_why_in_one_line(
        convert: object, text: str, message: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as caught:
        convert(text)  # type: ignore[operator]
    assert str(caught.value) == message


def test_argparse_prints_the_reason_with_the_usage(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="demo")
    parser.add_argument("--decks", type=positive_int)
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(["--decks", "0"])
    assert exit_.value.code == 2
    assert "argument --decks: 0 must be at least 1" in capsys.readouterr().err
