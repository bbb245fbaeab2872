"""Ctrl-C for long loops: a press is remembered, not only raised.

Python turns SIGINT into a KeyboardInterrupt wherever the main thread happens
to be. Raised inside code that catches and drops it (a library's callback, a
finaliser), it is lost, and a loop of many minutes runs on. With `install()`,
the handler also remembers the press, and `check()` between steps raises it
again, so the loop stops at the next step at the latest.
"""

from __future__ import annotations

import signal
from types import FrameType

_pressed = False


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    global _pressed
    _pressed = True
    raise KeyboardInterrupt


def install() -> None:
    """Remember Ctrl-C presses from now on (only where Python handles SIGINT: an
    ignored SIGINT stays ignored)."""
    global _pressed
    _pressed = False
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_interrupt)


def check() -> None:
    """Raise KeyboardInterrupt if Ctrl-C was pressed since `install()`."""
    if _pressed:
        raise KeyboardInterrupt
