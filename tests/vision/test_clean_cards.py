"""Each card of a deck read alone on felt (`benchmarks/vision_clean_cards.py`)."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hwsim.camera.deck_corpus import ensure_corpus

from vision.detection import Detection

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SCRIPT = BENCHMARKS / "vision_clean_cards.py"
DECK = "kde-nicu-white"  # held out of training


def _clean_cards() -> ModuleType:
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module("vision_clean_cards")


def _white_card(width: int) -> np.ndarray:
    height = round(width * 88 / 63)
    card = np.full((height, width, 4), 255, np.uint8)
    return card


def test_the_card_lies_in_the_middle_of_the_felt_turned_as_asked() -> None:
    clean = _clean_cards()
    upright = clean.card_on_felt(_white_card(60), 0.0)
    turned = clean.card_on_felt(_white_card(60), 90.0)
    for canvas, (wide, tall) in ((upright, (60, 84)), (turned, (84, 60))):
        white = np.argwhere(canvas.min(axis=2) > 200)
        (top, left), (bottom, right) = white.min(axis=0), white.max(axis=0)
        assert (right - left + 1, bottom - top + 1) == pytest.approx((wide, tall), abs=1)
        assert (left + right) / 2 == pytest.approx(200, abs=1)
        assert tuple(canvas[5, 5]) == clean.FELT_BGR


class _ReadsEverythingAsTheAceOfSpades:
    def detect(self, frame: Any) -> list[Detection]:
        return [Detection("AS", 200.0, 200.0, 0.9)]


def test_each_card_is_tallied_right_or_misread_at_every_width_and_turn(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import hwsim.camera.artwork as artwork

    monkeypatch.setattr(artwork, "artwork_card", lambda card, deck, width: _white_card(width))
    tallies = _clean_cards().read_deck(_ReadsEverythingAsTheAceOfSpades(), None,
                                       widths=[80, 120], turns=[0.0, 45.0, 90.0])
    assert len(tallies) == 52
    assert (tallies["AS"].views, tallies["AS"].right, dict(tallies["AS"].wrong)) == (6, 6, {})
    assert (tallies["7H"].views, tallies["7H"].right, tallies["7H"].missed) == (6, 0, 6)
    assert dict(tallies["7H"].wrong) == {"AS": 6}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    try:
        ensure_corpus(folder, decks=[DECK])
    except RuntimeError as error:  # the Debian card packages are missing
        pytest.skip(str(error))
    return folder


def _run(*args: str, corpus: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TABLECTL_DECK_CORPUS": str(corpus)}
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=300, env=env, cwd=corpus)


def test_a_real_deck_never_trained_on_is_read_card_by_card(corpus: Path) -> None:
    done = _run("--decks", DECK, "--widths", "120", "--turns", "0", corpus=corpus)
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if DECK in line)
    read = int(line.split()[1])
    assert "of    52 views" in line
    # Sharp, flat and alone, nearly every card of an unseen design is read.
    assert read >= 50, line


@pytest.mark.parametrize(("args", "named"), [(["--widths", "10"], "--widths"),
                                             (["--decks", "no-such-deck"], "no-such-deck")])
def test_bad_arguments_get_one_line_and_no_traceback(corpus: Path, args: list[str],
                                                     named: str) -> None:
    done = _run(*args, corpus=corpus)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "error:" in last and named in last, last
