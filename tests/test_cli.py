import subprocess
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


def test_after_a_reported_interrupt_the_last_wait_for_threads_says_nothing_more(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C inside Thread.start leaves a thread that never started, and the
    interpreter's last wait for threads (threading._shutdown) fails on it at exit.
    The interpreter reports that failure in the threading module."""
    import argparse
    import threading
    from types import SimpleNamespace

    from tablectl import cli

    failed_wait = SimpleNamespace(
        object=threading, exc_value=RuntimeError("cannot join thread before it is started"))
    monkeypatch.setattr(cli, "_interrupted", False)
    cli._quiet_unraisable(failed_wait)  # type: ignore[arg-type]
    assert "RuntimeError: cannot join thread" in capsys.readouterr().err  # no interrupt yet

    def pressed(_args: argparse.Namespace) -> int:
        raise KeyboardInterrupt

    parser = argparse.ArgumentParser(prog="tablectl")
    parser.set_defaults(func=pressed, verbose_all=False)
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    assert cli.main([]) == 1
    assert capsys.readouterr().err == "tablectl: interrupted\n"
    cli._quiet_unraisable(failed_wait)  # type: ignore[arg-type]
    assert capsys.readouterr().err == ""
    # Any other error is still said.
    cli._quiet_unraisable(SimpleNamespace(object=len,  # type: ignore[arg-type]
                                          exc_value=ValueError("bad state")))
    assert "ValueError: bad state" in capsys.readouterr().err


def test_after_a_reported_interrupt_a_half_built_device_s_finaliser_says_nothing(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C inside gpiozero's Button constructor leaves the button half built; its
    finaliser then fails on the hold thread it never got, after the interrupt was
    reported. A real half-built Button, dropped, raises that very error."""
    import argparse
    import gc
    from types import SimpleNamespace

    from gpiozero import Button

    from tablectl import cli

    def drop_a_half_built_button() -> None:
        button = Button.__new__(Button)  # the constructor never ran
        del button
        gc.collect()

    monkeypatch.setattr(sys, "unraisablehook", cli._quiet_unraisable)
    monkeypatch.setattr(cli, "_interrupted", False)
    drop_a_half_built_button()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "AttributeError" in err and "_hold_thread" in err

    def pressed(_args: argparse.Namespace) -> int:
        raise KeyboardInterrupt

    parser = argparse.ArgumentParser(prog="tablectl")
    parser.set_defaults(func=pressed, verbose_all=False)
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    assert cli.main([]) == 1
    assert capsys.readouterr().err == "tablectl: interrupted\n"
    drop_a_half_built_button()
    assert capsys.readouterr().err == ""
    # Another finaliser's other error is still said.
    cli._quiet_unraisable(SimpleNamespace(object=len,  # type: ignore[arg-type]
                                          exc_value=AttributeError("no such thing")))
    assert "AttributeError: no such thing" in capsys.readouterr().err


# A command whose Ctrl-C lands inside the start of one of gpiozero's threads, after
# gpiozero registered it for its exit handler (GPIOThread.start adds, then starts).
# The exit handler at the top runs after gpiozero's own (handlers run last first) and
# says whether gpiozero got as far as releasing its pins.
_CTRL_C_IN_GPIOZERO_START = """
import argparse, atexit, sys, threading
atexit.register(lambda: print("pins released:", Device.pin_factory is None, file=sys.stderr))
from gpiozero import Device, LED
from gpiozero.pins.mock import MockFactory
from gpiozero.threads import GPIOThread
from tablectl import cli

def pressed(_args):
    Device.pin_factory = MockFactory()
    LED(17)
    real_start = threading.Thread.start
    def interrupted_start(thread):
        raise KeyboardInterrupt
    threading.Thread.start = interrupted_start
    try:
        GPIOThread(target=lambda: None).start()
    finally:
        threading.Thread.start = real_start

parser = argparse.ArgumentParser(prog="tablectl")
parser.set_defaults(func=pressed, verbose_all=False)
cli.build_parser = lambda: parser
sys.exit(cli.main([]))
"""


def test_a_ctrl_c_inside_a_gpiozero_thread_start_still_releases_the_pins() -> None:
    result = subprocess.run([sys.executable, "-c", _CTRL_C_IN_GPIOZERO_START],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.splitlines() == ["tablectl: interrupted", "pins released: True"]
