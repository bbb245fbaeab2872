"""What a killed simulated table leaves behind, and naming how a process ended.

Each simulated table makes a temporary folder for its virtual shoe's link,
`tablectl-sim-PID-...`, removed when it stops. A table killed with SIGKILL
cannot remove it: the next one sweeps every such folder whose process is gone.
"""

from __future__ import annotations

import shutil
import signal
import tempfile
from pathlib import Path

from journal.file import process_alive

FOLDER_PREFIX = "tablectl-sim-"


def sweep_stale_folders(parent: str | None = None) -> list[Path]:
    """Remove the temporary folders earlier simulated tables left when they were
    killed (`tablectl-sim-PID-...` whose process is gone; an empty one of an older
    tablectl); returns what was removed."""
    removed: list[Path] = []
    root = Path(parent or tempfile.gettempdir())
    try:
        folders = [p for p in root.iterdir() if p.name.startswith(FOLDER_PREFIX)]
    except OSError:
        return removed
    for folder in folders:
        pid = folder.name[len(FOLDER_PREFIX):].split("-", 1)[0]
        try:
            if pid.isdigit() and "-" in folder.name[len(FOLDER_PREFIX):]:
                if process_alive(int(pid)):
                    continue
                shutil.rmtree(folder)
            else:
                folder.rmdir()  # only an empty one: it may belong to a running table
        except OSError:
            continue
        removed.append(folder)
    return removed


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
