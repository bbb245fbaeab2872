"""The finer verifier's training (`tools/train_fine_verifier.py`): how its pairs are
labelled, which designs its scenes take, and its arguments."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from hwsim.camera.render import CardTruth

from foundation.cards import RANKS, SUITS
from vision.recognizer import NOT_INDEX

TOOLS = Path(__file__).resolve().parents[2] / "tools"


def _tool() -> ModuleType:
    if str(TOOLS) not in sys.path:
        sys.path.insert(0, str(TOOLS))
    return importlib.import_module("train_fine_verifier")


# The queen of hearts, her index open with the rank glyph's centre at (100, 100) and the
# pip's 20 px below; a card beside it with an index corner only partly open at (300, 300).
TRUTH = [CardTruth("QH", "box1", [(100.0, 110.0)], [],
                   [((100.0, 100.0), (100.0, 120.0))]),
         CardTruth("5C", "box1", [], [(300.0, 300.0)], [])]


@pytest.mark.parametrize(("first", "second", "label"), [
    ((100, 100), (100, 120), "QH"),  # on the rank and the pip
    ((105, 102), (101, 123), "QH"),  # within 0.3 and 0.2 index scales of them
    ((100, 108), (100, 120), None),  # the first point 0.4 scales off: left out
    ((100, 100), (106, 120), None),  # the second 0.3 scales off: left out
    ((100, 120), (100, 100), None),  # read the other way round: left out
    ((300, 290), (300, 310), None),  # on the partly open corner: left out
    ((600, 500), (600, 520), "-"),  # far from every index: not an index
])
def test_a_pair_is_the_card_only_on_its_rank_and_pip(
        first: tuple[int, int], second: tuple[int, int], label: str | None) -> None:
    tool = _tool()
    rank, suit = tool.label_pairs(np.array([first], np.float32),
                                  np.array([second], np.float32), TRUTH)
    if label is None:
        assert rank[0] == tool.UNSURE
    elif label == "-":
        assert rank[0] == NOT_INDEX and suit[0] == tool.NO_SUIT
    else:
        assert (rank[0], suit[0]) == (RANKS.index(label[0]), SUITS.index(label[1]))


def test_half_the_scenes_are_of_the_real_decks() -> None:
    designs = _tool().interleaved(["a", "b"], ["x", "y", "z"])
    assert designs == ["a", "x", "b", "y", "a", "z"]


@pytest.mark.parametrize(("size", "message"), [("72", "is not HEIGHTxWIDTH"),
                                               ("70x48", "multiples of 8")])
def test_a_bad_crop_size_is_refused_before_anything_is_rendered(
        size: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _tool().main(["--size", size])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_the_own_verifiers_designs_are_taken_where_asked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    tool = _tool()
    asked: list[str] = []

    def design_names(root: object, key: str = "designs") -> list[str]:
        asked.append(key)
        raise SystemExit(0)  # nothing is rendered here

    monkeypatch.setattr(tool, "shipped_design_names", design_names)
    for argv in ([], ["--verifier-designs"]):
        with pytest.raises(SystemExit):
            tool.main(argv)
    # The classifier's designs by default; the 98-face verifier's where asked.
    assert asked == ["designs", "verifier_designs"]
