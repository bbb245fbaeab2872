"""A killed simulated table leaves nothing behind for long, and a devices'
process that dies is named in one line: its temporary folder is swept by the
next start; a devices' process killed while starting ends the start with one
line that names it, no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from multiprocessing.context import SpawnProcess
from pathlib import Path

import pytest

from tablectl.cli import main
from tablectl.sim import SimulatedTable
from tablectl.sim_cleanup import sweep_stale_folders
from tests.tablectl.helpers import OutputLines

REPO = Path(__file__).resolve().parents[2]


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(done.stdout)


def test_folders_of_killed_tables_are_swept_and_others_kept(tmp_path: Path) -> None:
    dead = tmp_path / f"tablectl-sim-{_dead_pid()}-abc"
    dead.mkdir()
    (dead / "virtual-shoe").symlink_to("/dev/pts/nowhere")
    alive = tmp_path / f"tablectl-sim-{os.getpid()}-def"
    alive.mkdir()
    (alive / "virtual-shoe").touch()
    old_empty = tmp_path / "tablectl-sim-q1w2e3"
    old_empty.mkdir()
    old_busy = tmp_path / "tablectl-sim-r4t5y6"
    old_busy.mkdir()
    (old_busy / "virtual-shoe").touch()
    other = tmp_path / "something-else"
    other.mkdir()
    assert sorted(sweep_stale_folders(str(tmp_path))) == sorted([dead, old_empty])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [alive.name, old_busy.name, other.name])


def test_a_sigkilled_simulated_table_leaves_no_folder_after_the_next_run(
        tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp), "GPIOZERO_PIN_FACTORY": "mock"}
    command = [sys.executable, "-m", "tablectl", "run", "--sim", "--api-port", "off",
               "--view", "rounds", "--journal", str(tmp_path / "journal.sqlite")]
    first = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    assert first.stdout is not None
    try:
        # Its first line names the virtual shoe, in the sim's folder.
        OutputLines(first.stdout).wait_for_line(
            lambda line: line.startswith("simulated table:"), "the sim's first line", 60)
        assert any(temp.glob("tablectl-sim-*/virtual-shoe"))
    finally:
        os.killpg(first.pid, signal.SIGKILL)  # the table and its devices' process
        first.wait(10)
    assert list(temp.glob("tablectl-sim-*"))  # what a SIGKILL leaves
    second = subprocess.run([*command, "--rounds", "1"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stderr
    assert list(temp.glob("tablectl-sim-*")) == []


def test_a_devices_process_killed_while_starting_is_named_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    start_devices = SimulatedTable._start_devices
    started = threading.Event()
    start_process = SpawnProcess.start

    def start_and_tell(process: SpawnProcess) -> None:
        start_process(process)
        started.set()

    monkeypatch.setattr(SpawnProcess, "start", start_and_tell)

    def start_and_kill(sim: SimulatedTable, options: object) -> str:
        def kill() -> None:
            assert started.wait(30)  # the devices' process is there; it is not ready yet
            assert sim._devices is not None and sim._devices.pid is not None
            os.kill(sim._devices.pid, signal.SIGKILL)

        threading.Thread(target=kill, daemon=True).start()
        return start_devices(sim, options)  # type: ignore[arg-type]

    monkeypatch.setattr(SimulatedTable, "_start_devices", start_and_kill)
    status = main(["run", "--sim", "--rounds", "1", "--api-port", "off",
                   "--journal", str(tmp_path / "journal.sqlite")])
    err = capsys.readouterr().err.strip()
    assert status == 2, err
    assert "\n" not in err and "Traceback" not in err and "unexpected" not in err
    assert "tablectl-sim-devices" in err and "killed by SIGKILL while starting" in err
