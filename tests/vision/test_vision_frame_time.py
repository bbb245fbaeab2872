"""Frame times of sets of networks read in turn (`benchmarks/vision_frame_time.py`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "vision_frame_time.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    # In its own process: the script binds itself to one core.
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=300)


def test_each_set_reads_every_frame_and_the_differences_are_said() -> None:
    done = _run("shipped", "shipped", "--decks", "classic_duplex", "--n-per-deck", "2",
                "--rounds", "2")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    # 2 scenes of the one deck, each read twice by each set.
    assert lines[0].startswith("4 frame reads of each set (2 scenes of each of 1 decks, "
                               "seed 17, 2 each)")
    assert len(lines) == 3
    assert lines[1].startswith("  shipped: median ") and "over the first" not in lines[1]
    assert lines[2].startswith("  shipped: median ")
    assert "; over the first, median of the differences " in lines[2]


def test_bad_counts_and_a_missing_model_are_refused_in_one_line(tmp_path: Path) -> None:
    done = _run("shipped", "--rounds", "0")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--n-per-deck and --rounds must be at least 1" in done.stderr.splitlines()[-1]
    done = _run("shipped", "--decks", "nonsense", "--n-per-deck", "1")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "unknown card design 'nonsense'" in done.stderr.splitlines()[-1]
    done = _run(str(tmp_path / "index_classifier.onnx"), "--decks", "classic_duplex",
                "--n-per-deck", "1")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("the recognizer cannot start: index classifier "
                                  "index_classifier.onnx not found in ")
