"""Fixtures shared by the whole suite."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

HilPlayer = Callable[[dict[str, Any]], Any]

# A suite started in the background by a non-interactive shell (`cmd &` in a
# script) inherits SIGINT ignored, and so would every process it starts. The
# tests that press Ctrl-C on a command (send it SIGINT) need SIGINT at its
# default there, as at a terminal: with a handler here, children start with it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def hil(tmp_path: Path) -> HilPlayer:
    """Play a scenario document through the whole stack (virtual shoe on a pty,
    the daemon, the local API, mock lamp pins, a journal in tmp_path); returns a
    `tablectl.hil.HilResult` listing every difference and lamp or journal problem."""
    from tablectl.hil import play_scenario

    def play(doc: dict[str, Any]) -> Any:
        folder = tmp_path / f"hil-{len(list(tmp_path.iterdir()))}"
        folder.mkdir()
        return play_scenario(doc, folder)

    return play
