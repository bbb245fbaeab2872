"""The precision rules: the two networks naming different cards, and a card's two corners
read as different cards, end as an unknown corner instead of a guess."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from foundation.cards import RANKS, SUITS
from tests.vision.model_copies import model_copy
from vision.combine import disagree
from vision.detection import Detection
from vision.features import FEATURE_SIZE
from vision.pip_colour import PIP_COLS, PIP_ROWS, RANK_COLS, RANK_ROWS
from vision.reads import (
    CORNERS_DISAGREE,
    INK_COLOUR,
    NETWORKS_DISAGREE,
    SURE_PAIR,
    UNKNOWN_CARD,
    UNSURE,
    _Read,
    merge_corners,
    settle_conflicts,
)
from vision.recognizer import ModelError, Recognizer


def _reading(card: str | None, rank_p: float = 0.9, suit_p: float = 0.95,
             runner_up: tuple[str, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One row of (rank, suit) probabilities naming `card` (None: "not an index"), with
    `runner_up`'s rank given its probability (of the same suit)."""
    rest = 1.0 - rank_p - (runner_up[1] if runner_up else 0.0)
    rank = np.full((1, len(RANKS) + 1), rest / (len(RANKS) - (1 if runner_up else 0)))
    if runner_up:
        rank[0, RANKS.index(runner_up[0][0])] = runner_up[1]
    suit = np.full((1, len(SUITS)), (1.0 - suit_p) / (len(SUITS) - 1))
    if card is None:
        rank[0, len(RANKS)] = rank_p
        suit[0, 0] = suit_p
    else:
        rank[0, RANKS.index(card[0])] = rank_p
        suit[0, SUITS.index(card[1])] = suit_p
    return rank, suit


@pytest.mark.parametrize("rule", ["cards", "strict"])
def test_two_networks_naming_different_cards_disagree(rule: str) -> None:
    assert disagree(rule, _reading("QS"), _reading("TS")).tolist() == [True]  # rank
    assert disagree(rule, _reading("7S"), _reading("7C")).tolist() == [True]  # suit
    assert disagree(rule, _reading("QS"), _reading("QS", 0.6, 0.7)).tolist() == [False]


def test_without_an_agreement_rule_nothing_disagrees() -> None:
    assert disagree("none", _reading("QS"), _reading("TS")).tolist() == [False]


def test_not_an_index_vetoes_only_under_the_strict_rule() -> None:
    # The verifier most likely says "not an index"; its best card (rank row 0: an ace of
    # spades, as the uniform rest is tied and argmax takes the first) is not the QS.
    mlp, verifier = _reading("QS"), _reading(None)
    assert disagree("cards", mlp, verifier).tolist() == [False]
    assert disagree("strict", mlp, verifier).tolist() == [True]


def test_an_unknown_agreement_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="agreement rule"):
        disagree("majority", _reading("QS"), _reading("QS"))


def _read(card: str, x: float, y: float, down: tuple[float, float],
          confidence: float, scale: float = 15.0) -> _Read:
    return _Read(card, x, y, confidence, scale, down)


# One card's two corners: the top-left index at (100, 100) facing down, the bottom-right
# one turned half round. Both estimate the card's centre at (130, 137.5) (2 scales right,
# 2.5 down, in each corner's own directions), so (160, 175) for the turned one.
def _corners(top: str, bottom: str) -> list[_Read]:
    return [_read(top, 100.0, 100.0, (0.0, 1.0), 0.9),
            _read(bottom, 160.0, 175.0, (0.0, -1.0), 0.7)]


def test_corners_read_alike_are_one_card_under_either_rule() -> None:
    merged = merge_corners(_corners("6S", "6S"))
    for rule in ("better", "unknown"):
        kept, unknown = settle_conflicts(merged, rule)
        assert [r.card for r in kept] == ["6S"] and unknown == []


def test_corners_of_one_suit_read_as_two_ranks_keep_the_better_read() -> None:
    kept, unknown = settle_conflicts(merge_corners(_corners("6S", "5S")), "better")
    assert [r.card for r in kept] == ["6S"] and unknown == []


def test_two_sure_reads_where_one_card_would_lie_are_two_cards() -> None:
    # A card turned round in a fan of spades: its corner lies where the 6's bottom
    # corner would. Both read surely: two cards, under either rule.
    pair = [_read("6S", 100.0, 100.0, (0.0, 1.0), SURE_PAIR),
            _read("5S", 160.0, 175.0, (0.0, -1.0), 0.995)]
    for rule in ("better", "unknown"):
        kept, unknown = settle_conflicts(merge_corners(pair), rule)
        assert sorted(r.card for r in kept) == ["5S", "6S"] and unknown == []


def test_one_read_under_the_sure_bar_still_settles_the_conflict() -> None:
    pair = [_read("6S", 100.0, 100.0, (0.0, 1.0), 0.999),
            _read("5S", 160.0, 175.0, (0.0, -1.0), SURE_PAIR - 0.01)]
    kept, unknown = settle_conflicts(merge_corners(pair), "better")
    assert [r.card for r in kept] == ["6S"] and unknown == []
    kept, unknown = settle_conflicts(merge_corners(pair), "unknown")
    assert kept == [] and [r.reason for r in unknown] == [CORNERS_DISAGREE]


def test_corners_read_as_two_cards_become_one_unknown() -> None:
    for top, bottom in (("6S", "5S"), ("7S", "7C"), ("QH", "TD")):
        kept, unknown = settle_conflicts(merge_corners(_corners(top, bottom)), "unknown")
        assert kept == []
        assert [(r.card, r.x, r.y) for r in unknown] == [(UNKNOWN_CARD, 100.0, 100.0)]
        assert unknown[0].reason == CORNERS_DISAGREE


def test_a_weaker_read_of_a_corner_merged_into_its_card_goes_too() -> None:
    # The queen's two corners read "QC" (the bottom one surer); another blob pair of the
    # top-left index reads it "8C", weaker, a pixel away from that index's "QC" read.
    reads = [_read("QC", 160.0, 175.0, (0.0, -1.0), 0.97),
             _read("QC", 100.0, 100.0, (0.0, 1.0), 0.96),
             _read("8C", 101.0, 101.0, (0.0, 1.0), 0.68)]
    for rule in ("better", "unknown"):
        kept, unknown = settle_conflicts(merge_corners(reads), rule)
        assert [r.card for r in kept] == ["QC"] and unknown == []
        # One card, both corners read: its centre is their midpoint.
        assert kept[0].centre == (130.0, 137.5)


def test_cards_of_a_fanned_hand_are_no_conflict() -> None:
    # The next card of the hand, 3 index scales to the right, faces the same way.
    hand = [_read("6S", 100.0, 100.0, (0.0, 1.0), 0.9),
            _read("5S", 145.0, 100.0, (0.0, 1.0), 0.7)]
    # A card turned half round whose centre, (250, 137.5), is 5 index scales from the
    # hand's last card's, (175, 137.5).
    apart = _read("9D", 280.0, 175.0, (0.0, -1.0), 0.8)
    for rule in ("better", "unknown"):
        kept, unknown = settle_conflicts(merge_corners([*hand, apart]), rule)
        assert sorted(r.card for r in kept) == ["5S", "6S", "9D"] and unknown == []


Reading = tuple[np.ndarray, np.ndarray]
# The classifier takes a queen for a "10" (the queen its second thought), the verifier
# reads the queen surely: together, the queen surely enough.
MLP_TEN, VERIFIER_QUEEN = _reading("TS", 0.6, runner_up=("QS", 0.35)), _reading("QS", 0.95)


def _black_index() -> np.ndarray:
    """An upright crop of white stock with a black rank glyph and a black pip."""
    crop = np.full((1, 36, 24, 3), 235, np.uint8)
    for rows, cols in ((PIP_ROWS, PIP_COLS), (RANK_ROWS, RANK_COLS)):
        crop[0, rows.start + 3:rows.stop - 3, cols.start + 4:cols.stop - 4] = 25
    return crop


def _candidate_reads(monkeypatch: pytest.MonkeyPatch, recognizer: Recognizer,
                     mlp: Reading, verifier: Reading) -> list[_Read]:
    """Read a frame holding one candidate pair the two networks read as given (its crop
    a black index: `_black_index`). The recognizers here take no second look
    (`second_views: []`, tested in test_second_look.py): the rules alone decide."""
    import vision.recognizer as module

    crops = _black_index()
    monkeypatch.setattr(module, "candidate_features", lambda frame, look, pairs=None: (
        np.zeros((1, FEATURE_SIZE), np.float32), np.array([[50.0, 40.0]]),
        np.array([[50.0, 55.0]]), crops))
    monkeypatch.setattr(recognizer, "classify",
                        lambda features: (mlp[0].copy(), mlp[1].copy()))
    monkeypatch.setattr(recognizer, "verify_and_embed", lambda crops: (*verifier, None))
    frame = np.zeros((100, 100, 3), np.uint8)
    return recognizer.read_candidates(frame, keep_unsure=True)


def _one_candidate(monkeypatch: pytest.MonkeyPatch, recognizer: Recognizer,
                   mlp: Reading, verifier: Reading) -> list[str]:
    return [r.card for r in _candidate_reads(monkeypatch, recognizer, mlp, verifier)]


def test_a_disagreement_is_an_unknown_corner_under_the_agreement_rule(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recognizer = Recognizer(model_copy(tmp_path, agreement="cards", second_views=[]))
    assert _one_candidate(monkeypatch, recognizer, _reading("QS"), VERIFIER_QUEEN) == ["QS"]
    assert _one_candidate(monkeypatch, recognizer, MLP_TEN, VERIFIER_QUEEN) == [UNKNOWN_CARD]


def test_without_the_rule_the_combined_reading_decides(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recognizer = Recognizer(model_copy(tmp_path, agreement="none", second_views=[]))
    assert _one_candidate(monkeypatch, recognizer, MLP_TEN, VERIFIER_QUEEN) == ["QS"]


def test_an_unknown_rule_in_the_model_settings_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="conflicts 'coin' is none of better, unknown"):
        Recognizer(model_copy(tmp_path, conflicts="coin"))


def test_an_unknown_corner_says_why_it_is_not_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def why(recognizer: Recognizer, mlp: Reading, verifier: Reading) -> list[tuple[str, str]]:
        return [(r.card, r.reason)
                for r in _candidate_reads(monkeypatch, recognizer, mlp, verifier)]

    agreeing = Recognizer(model_copy(tmp_path, agreement="cards", second_views=[]))
    assert why(agreeing, _reading("QS"), VERIFIER_QUEEN) == [("QS", "")]
    assert why(agreeing, MLP_TEN, VERIFIER_QUEEN) == [(UNKNOWN_CARD, NETWORKS_DISAGREE)]
    # 0.5 x 0.6 from each network: 0.3 together, under min_confidence (0.6).
    faint = _reading("QS", 0.5, 0.6)
    assert why(agreeing, faint, faint) == [(UNKNOWN_CARD, UNSURE)]
    # Both networks surely read a heart where the ink is black.
    heart = _reading("QH", 0.95, 0.95)
    checked = tmp_path / "checked"
    checked.mkdir()
    assert why(Recognizer(model_copy(checked, second_views=[])), heart, heart) == [
        (UNKNOWN_CARD, INK_COLOUR)]
    unchecked = tmp_path / "unchecked"
    unchecked.mkdir()
    unchecked_recognizer = Recognizer(model_copy(unchecked, pip_colour="off", second_views=[]))
    assert why(unchecked_recognizer, heart, heart) == [("QH", "")]


def test_only_an_unknown_corner_carries_a_reason_in_json() -> None:
    read = Detection("QS", 10.0, 20.0, 0.9, "box1").to_json()
    unknown = Detection(UNKNOWN_CARD, 10.0, 20.0, 0.3, "box1", UNSURE).to_json()
    assert set(read) == {"card", "x", "y", "box", "confidence"}
    assert unknown["reason"] == "unsure" and unknown["card"] == "??"
    doubtful = Detection("6D", 10.0, 20.0, 0.7, "box1", None,
                         (("9D", 0.21234), ("8D", 0.0014))).to_json()
    assert doubtful["alternatives"] == [["9D", 0.212], ["8D", 0.001]]
    assert "alternatives" not in read
