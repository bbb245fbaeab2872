import sys

import pytest

from tablectl.cli import build_parser, main


def test_help_lists_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    assert "tablectl" in capsys.readouterr().out


def test_no_command_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert build_parser().prog == "tablectl"


def test_an_interrupt_in_a_finaliser_prints_no_traceback(capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """Ctrl-C can land in a weak reference's callback, where Python cannot raise it and
    prints 'Exception ignored in ...' with a traceback: the command says nothing more."""
    import gc
    import weakref

    from tablectl import cli

    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    with pytest.raises(SystemExit):
        cli.main(["--version"])  # argparse's --version exits once the hook is in place
    assert sys.unraisablehook is cli._quiet_unraisable
    capsys.readouterr()

    class Thing:
        pass

    def interrupted(_ref: object) -> None:
        raise KeyboardInterrupt

    thing = Thing()
    ref = weakref.ref(thing, interrupted)
    del thing
    gc.collect()
    assert ref() is None
    err = capsys.readouterr().err
    assert "Traceback" not in err and err == ""

    def broken(_ref: object) -> None:
        raise ValueError("bad state")

    other = Thing()
    ref = weakref.ref(other, broken)
    del other
    gc.collect()
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("\n") == 1 and "ValueError: bad state" in err
