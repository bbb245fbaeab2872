"""What the journal's tests share."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from journal import Journal

REPO = Path(__file__).resolve().parents[2]

BET = {"bet": {"box": 1, "amount": 100}}
DEAL: dict[str, Any] = {"deal": {}}


def files_in(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def run_killed(code: str, *args: str) -> None:
    """Run `code` in a fresh interpreter; it must end by SIGKILLing itself."""
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, timeout=60,
                          capture_output=True, text=True)
    assert done.returncode == -signal.SIGKILL, done.stderr


WRITE_AND_DIE = """
import os, signal, sys
from journal import Journal
journal = Journal(sys.argv[1], profile="casinos-austria")
for i in range(1, 2001):
    journal.append({"note": f"marker-{i:05d}"}, "shoe", f"1:{i}")
    if i % 50 == 0:
        journal.commit()
os.kill(os.getpid(), signal.SIGKILL)
"""


def damaged_journal(tmp_path: Path) -> tuple[Path, int]:
    """A checkpointed journal of 2,000 events with the page holding event 1000
    overwritten; returns its path and how many pages it has."""
    path = tmp_path / "journal.sqlite"
    run_killed(WRITE_AND_DIE, str(path))
    Journal(path).close()  # a clean close folds the WAL into the file
    assert not Path(f"{path}-wal").exists()
    data = bytearray(path.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    at = data.index(b"marker-01000")
    page = at // page_size
    data[page * page_size:(page + 1) * page_size] = b"\xa5" * page_size
    path.write_bytes(bytes(data))
    return path, len(data) // page_size


def commit_then_exit(path: Path, committed: int, pending: int = 0) -> None:
    """A writer in another process commits `committed` shoe cards (refs 1:0 up),
    appends `pending` more and exits without closing: its commits sit in the WAL."""
    script = (
        "import os, sys\n"
        "from journal import Journal\n"
        "j = Journal(sys.argv[1], profile='casinos-austria')\n"
        f"for i in range({committed}):\n"
        "    j.append({'card': 'AS'}, 'shoe', f'1:{i}')\n"
        "j.commit()\n"
        f"for i in range({committed}, {committed + pending}):\n"
        "    j.append({'card': 'KS'}, 'shoe', f'1:{i}')\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(path)], cwd=REPO, check=True)
