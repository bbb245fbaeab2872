"""How much the classifier's reading counts against the verifier's (`classifier_weight`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.vision.model_copies import model_copy
from tests.vision.stub_networks import read_with_stub_networks, reading
from vision.combine import geometric_mean
from vision.reads import UNKNOWN_CARD, UNSURE
from vision.recognizer import ModelError, Recognizer


def test_the_weighted_geometric_mean_leans_towards_the_weightier_table() -> None:
    verifier = np.array([[0.8, 0.2]])
    classifier = np.array([[0.2, 0.8]])
    # Weight w on the classifier: the first class's odds are 4^(1-w) x (1/4)^w = 4^(1-2w).
    assert np.allclose(geometric_mean(verifier, classifier), [[0.5, 0.5]])
    assert np.allclose(geometric_mean(verifier, classifier, 0.25), [[2 / 3, 1 / 3]])
    assert np.allclose(geometric_mean(verifier, classifier, 0.0), verifier)
    assert np.allclose(geometric_mean(verifier, classifier, 1.0), classifier)


# The classifier reads TS at 0.9, the verifier QS at 0.9; no second look.
CLASSIFIER_TEN, VERIFIER_QUEEN = reading("TS", 0.9), reading("QS", 0.9)


def _reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **settings: object
           ) -> list[tuple[str, str]]:
    recognizer = Recognizer(model_copy(tmp_path, second_views=[], **settings))
    reads, _ = read_with_stub_networks(monkeypatch, recognizer, CLASSIFIER_TEN,
                                       [VERIFIER_QUEEN])
    return reads


def test_at_equal_weights_two_networks_naming_different_ranks_leave_the_read_unsure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Queen and ten each sqrt(0.9 x 0.1 / 13) = 0.083, the twelve other classes 0.1 / 13
    # each: the queen has 0.32 of the rank, far under min_confidence 0.6.
    assert _reads(tmp_path, monkeypatch, classifier_weight=0.5) == [(UNKNOWN_CARD, UNSURE)]


def test_with_the_classifier_weighing_less_the_verifier_decides(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Weight 0.25: queen 0.9^0.75 x (0.1 / 13)^0.25 = 0.274, ten (0.1 / 13)^0.75 x 0.9^0.25
    # = 0.025, twelve others 0.1 / 13 each: the queen has 0.70; the spade, read 0.9 by
    # both, 0.9: 0.63, sure.
    assert _reads(tmp_path, monkeypatch, classifier_weight=0.25) == [("QS", "")]


@pytest.mark.parametrize("weight", [-0.1, 1.5, "half", True, None])
def test_a_bad_classifier_weight_is_refused(tmp_path: Path, weight: object) -> None:
    with pytest.raises(ModelError, match="index_classifier.json: classifier_weight must be a "
                                         "number from 0 to 1"):
        Recognizer(model_copy(tmp_path, classifier_weight=weight))
