"""The verifier's second look: a likely read is read again on a crop cut a little turned and
nearer, and only what both readings support stays sure."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.vision.model_copies import model_copy
from tests.vision.stub_networks import (
    RANK_AT,
    SUIT_AT,
    read_with_stub_networks,
    reading,
    stub_frame,
)
from vision.features import cut_all, net_input
from vision.reads import UNKNOWN_CARD, UNSURE
from vision.recognizer import ModelError, Recognizer
from vision.second_look import SECOND_VIEWS, VIEW_CEILING, turned_pairs

# The classifier reads QS at 0.6 (rank and suit); with a cut read QS at 0.95 the
# combined reading (geometric mean) gives the queen and the spade 0.84 each: 0.71, sure.
CLASSIFIER_QUEEN = reading("QS", 0.6)


def _one_view(folder: Path) -> Recognizer:
    """The shipped networks with one second view, read by their own verifier."""
    return Recognizer(model_copy(folder, second_views=[[6.0, 0.94]]))


def _stub_view_verifier(monkeypatch: pytest.MonkeyPatch, recognizer: Recognizer, name: str,
                        card: str) -> list[np.ndarray]:
    """The view verifier `name` stubbed to read `card`; the batches it is given."""
    given: list[np.ndarray] = []

    def run(batch: np.ndarray) -> dict[str, np.ndarray]:
        given.append(batch.copy())
        rank, suit = reading(card)
        return {"rank": np.log(rank), "suit": np.log(suit)}  # logits of that reading

    monkeypatch.setattr(recognizer._view_verifiers[name], "run", run)
    return given


def test_a_read_the_turned_cut_supports_stays_sure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recognizer = _one_view(tmp_path)
    assert recognizer.second_views == ((6.0, 0.94, ""),) == SECOND_VIEWS
    reads, crops = read_with_stub_networks(monkeypatch, recognizer, CLASSIFIER_QUEEN,
                                    [reading("QS"), reading("QS")])
    assert reads == [("QS", "")]
    # The second call read the pair cut turned by 6 degrees and 6% nearer.
    expected = cut_all(stub_frame(), *turned_pairs(RANK_AT, SUIT_AT, 6.0, 0.94))
    assert len(crops) == 2 and np.array_equal(crops[1], expected)
    assert not np.array_equal(crops[0], crops[1])


def test_a_read_the_turned_cut_contradicts_is_unsure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The first cut with the classifier: 0.84 for the queen. The turned cut says TS at
    # 0.95; with the classifier's 0.6 for the queen that leaves her sqrt(0.6 x 0.05 / 13)
    # against the ten's sqrt(0.4 / 13 x 0.95) and twelve others' sqrt(0.4 / 13 x 0.05 /
    # 13): 0.14. Averaged, the queen has 0.49 (x 0.84 for spades): unsure, not guessed.
    reads, _ = read_with_stub_networks(monkeypatch, _one_view(tmp_path), CLASSIFIER_QUEEN,
                                [reading("QS"), reading("TS")])
    assert reads == [(UNKNOWN_CARD, UNSURE)]


def test_without_second_views_the_verifier_looks_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recognizer = Recognizer(model_copy(tmp_path, second_views=[]))
    reads, crops = read_with_stub_networks(monkeypatch, recognizer, CLASSIFIER_QUEEN,
                                    [reading("QS"), reading("TS")])
    assert reads == [("QS", "")] and len(crops) == 1


def test_a_second_verifier_reads_the_same_turned_cut(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The views of the shipped settings: the own verifier and another file on one cut.
    # Here the other file is a copy of the own verifier, its reading stubbed.
    path = model_copy(tmp_path, second_views=[[6.0, 0.94], [6.0, 0.94, "other.onnx"]])
    shutil.copy(tmp_path / "index_verifier.onnx", tmp_path / "other.onnx")
    recognizer = Recognizer(path)
    other_given = _stub_view_verifier(monkeypatch, recognizer, "other.onnx", "TS")
    # The own verifier reads QS on both cuts, the other one TS: the queen's average is
    # (0.84 + 0.84 + 0.14) / 3 = 0.61, times 0.84 for spades: unsure.
    reads, crops = read_with_stub_networks(monkeypatch, recognizer, CLASSIFIER_QUEEN,
                                    [reading("QS"), reading("QS")])
    assert reads == [(UNKNOWN_CARD, UNSURE)]
    # Both read the one turned cut.
    assert len(crops) == 2 and len(other_given) == 1
    assert np.array_equal(other_given[0], net_input(crops[1]))


def test_a_view_naming_a_missing_verifier_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="gone.onnx .named in index_classifier.json, "
                                         "second_views. not found: restore it"):
        Recognizer(model_copy(tmp_path, second_views=[[6.0, 0.94, "gone.onnx"]]))


def test_an_unlikely_pair_gets_no_second_look(monkeypatch: pytest.MonkeyPatch) -> None:
    # Rank 0.4 x suit 0.4 from each network: 0.16 together, under the 0.3 a second look
    # needs.
    faint = reading("QS", 0.4)
    reads, crops = read_with_stub_networks(monkeypatch, Recognizer(), faint, [faint, faint])
    assert reads == [(UNKNOWN_CARD, UNSURE)] and len(crops) == 1


# Both networks read QS at 0.999 on the first cut: 0.998 together, over a ceiling of 0.995.
ALL_BUT_CERTAIN = reading("QS", 0.999)


def test_a_read_over_the_ceiling_keeps_its_firstreading(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recognizer = Recognizer(model_copy(tmp_path, second_views=[[6.0, 0.94]],
                                       second_look_ceiling=0.995))
    reads, crops = read_with_stub_networks(monkeypatch, recognizer, ALL_BUT_CERTAIN,
                                    [ALL_BUT_CERTAIN, reading("TH", 0.999)])
    assert reads == [("QS", "")] and len(crops) == 1


def test_by_default_every_likely_read_gets_the_second_look(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The turned cut read TH at 0.999 against the classifier's QS at 0.999: their
    # geometric mean gives the queen sqrt(0.999 x 0.001 / 13) against the ten's as much
    # and twelve others' 0.001 / 13 each: 0.475; the spade 0.491 likewise. Averaged with
    # the first cut's 0.999: queen 0.737 x spade 0.745 = 0.55, under min_confidence 0.6.
    recognizer = _one_view(tmp_path)
    assert recognizer.second_look_ceiling == VIEW_CEILING == 1.0
    reads, crops = read_with_stub_networks(monkeypatch, recognizer, ALL_BUT_CERTAIN,
                                    [ALL_BUT_CERTAIN, reading("TH", 0.999)])
    assert reads == [(UNKNOWN_CARD, UNSURE)] and len(crops) == 2


@pytest.mark.parametrize("ceiling", [0.2, 1.5, "high", True, None])
def test_a_bad_second_look_ceiling_is_refused(tmp_path: Path, ceiling: object) -> None:
    with pytest.raises(ModelError, match="index_classifier.json: second_look_ceiling must be "
                                         "a number from 0.3 to 1"):
        Recognizer(model_copy(tmp_path, second_look_ceiling=ceiling))


def test_a_pair_is_turned_about_its_middle_and_scaled() -> None:
    rank_at, suit_at = np.array([[0.0, 0.0]]), np.array([[0.0, 10.0]])
    # A quarter turn clockwise in the picture (y down): "down" becomes "left".
    first, second = turned_pairs(rank_at, suit_at, 90.0, 1.0)
    assert np.allclose(first, [[5.0, 5.0]]) and np.allclose(second, [[-5.0, 5.0]])
    first, second = turned_pairs(rank_at, suit_at, 0.0, 0.5)
    assert np.allclose(first, [[0.0, 2.5]]) and np.allclose(second, [[0.0, 7.5]])


@pytest.mark.parametrize(("views", "message"), [
    ("6", "must be a list of \\[degrees, scale\\] pairs"),
    ([[6.0]], "is not a \\[degrees, scale\\] pair"),
    ([[6.0, 0.94, ""]], "is not a \\[degrees, scale\\] pair"),
    ([[6.0, "near"]], "is not a \\[degrees, scale\\] pair"),
    ([[90.0, 1.0]], "out of range"),
    ([[6.0, 0.1]], "out of range"),
])
def test_bad_second_views_in_the_settings_are_refused(
        tmp_path: Path, views: object, message: str) -> None:
    with pytest.raises(ModelError, match=f"index_classifier.json: second_views.*{message}|"
                                         f"index_classifier.json: {message}"):
        Recognizer(model_copy(tmp_path, second_views=views))


def test_a_view_verifier_of_a_finer_cut_reads_that_cut(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `view_crops` names the crop a view's verifier reads: the same pair, the same extent,
    # at 72x48 pixels instead of 36x24.
    path = model_copy(tmp_path, second_views=[[0.0, 1.0, "fine.onnx"]],
                      view_crops={"fine.onnx": [72, 48]})
    shutil.copy(tmp_path / "index_verifier.onnx", tmp_path / "fine.onnx")
    recognizer = Recognizer(path)
    fine_given = _stub_view_verifier(monkeypatch, recognizer, "fine.onnx", "QS")
    reads, crops = read_with_stub_networks(monkeypatch, recognizer, CLASSIFIER_QUEEN,
                                           [reading("QS")])
    assert reads == [("QS", "")]
    expected = cut_all(stub_frame(), RANK_AT, SUIT_AT, (72, 48))
    assert len(fine_given) == 1 and fine_given[0].shape == (1, 3, 72, 48)
    assert np.array_equal(fine_given[0], net_input(expected))


@pytest.mark.parametrize(("gate", "fine_reads", "expected"), [
    # The first cut and the turned cut read QS with the classifier: 0.842 for the queen
    # and for spades (see above), 0.709 so far. Under a gate of 0.75 the fine view reads
    # the pair, TS, and the queen falls to (0.842 + 0.842 + 0.14) / 3 = 0.61, times 0.842
    # for spades: unsure. Over a gate of 0.65 the pair is spared and QS stays sure.
    (0.75, 1, (UNKNOWN_CARD, UNSURE)),
    (0.65, 0, ("QS", "")),
])
def test_a_gated_view_reads_only_the_pairs_not_yet_sure_enough(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gate: float, fine_reads: int,
        expected: tuple[str, str]) -> None:
    path = model_copy(tmp_path, second_views=[[6.0, 0.94], [0.0, 1.0, "fine.onnx"]],
                      view_crops={"fine.onnx": [72, 48]}, view_gates={"fine.onnx": gate})
    shutil.copy(tmp_path / "index_verifier.onnx", tmp_path / "fine.onnx")
    recognizer = Recognizer(path)
    fine_given = _stub_view_verifier(monkeypatch, recognizer, "fine.onnx", "TS")
    reads, crops = read_with_stub_networks(monkeypatch, recognizer, CLASSIFIER_QUEEN,
                                           [reading("QS"), reading("QS")])
    assert reads == [expected]
    assert len(crops) == 2 and len(fine_given) == fine_reads


@pytest.mark.parametrize(("gates", "message"), [
    ([0.9], "must map verifier files"),
    ({"fine.onnx": 1.5}, "is not a confidence from 0.3 to 1"),
    ({"fine.onnx": 0.1}, "is not a confidence from 0.3 to 1"),
    ({"fine.onnx": True}, "is not a confidence"),
])
def test_bad_view_gates_in_the_settings_are_refused(
        tmp_path: Path, gates: object, message: str) -> None:
    path = model_copy(tmp_path, second_views=[[0.0, 1.0, "fine.onnx"]],
                      view_crops={"fine.onnx": [72, 48]}, view_gates=gates)
    shutil.copy(tmp_path / "index_verifier.onnx", tmp_path / "fine.onnx")
    with pytest.raises(ModelError, match=f"index_classifier.json: view_gates: .*{message}|"
                                         f"index_classifier.json: view_gates {message}"):
        Recognizer(path)


@pytest.mark.parametrize("crops", [[72, 48], {"fine.onnx": [70, 48]}, {"fine.onnx": [72]},
                                   {"fine.onnx": [512, 48]}, {"fine.onnx": [72.0, 48]}])
def test_bad_view_crops_in_the_settings_are_refused(tmp_path: Path, crops: object) -> None:
    with pytest.raises(ModelError, match="index_classifier.json: view_crops"):
        Recognizer(model_copy(tmp_path, view_crops=crops))
