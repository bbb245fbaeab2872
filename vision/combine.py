"""How the classifier's and the verifier's readings of a candidate are combined.

Both networks give rank probabilities (13 ranks, then "not an index") and
suit probabilities (4) for each candidate pair the verifier looks at. Their
reading together is the row-normalised geometric mean (`geometric_mean`), so a
read needs both networks' support; the settings' `classifier_weight` says how
much the classifier's reading counts (0.5: as much as the verifier's).
`disagree` says where the two name different cards: under an agreement rule
such a corner is reported as unknown instead of taking the combined guess (a
wrong card is worse than a missing one).
"""

from __future__ import annotations

import numpy as np

# "none": the combined reading alone. "cards": where each network's most likely
# class is a card, the two must name the same card (a network that most likely
# says "not an index" does not veto it). "strict": each network's most likely
# card, "not an index" left aside, must be the same.
AGREEMENT_RULES = ("none", "cards", "strict")


def geometric_mean(a: np.ndarray, b: np.ndarray, b_weight: float = 0.5) -> np.ndarray:
    """Row-normalised geometric mean of two probability tables, `b` with the weight
    `b_weight` (0 to 1) and `a` with the rest."""
    if b_weight == 0.5:  # to the last bit what the shipped thresholds were chosen on
        mean = np.sqrt(a * b)
    else:
        mean = np.power(a, 1.0 - b_weight) * np.power(b, b_weight)
    result: np.ndarray = mean / np.maximum(mean.sum(axis=1, keepdims=True), 1e-12)
    return result


def parse_weight(value: object) -> float:
    """The `classifier_weight` setting: a number from 0 to 1."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        raise ValueError(f"classifier_weight must be a number from 0 to 1, got {value!r}")
    return float(value)


def ensemble_mean(tables: list[np.ndarray]) -> np.ndarray:
    """One reading from several networks of the same kind (an ensemble's members): the
    row-normalised geometric mean of their probability tables; one table is kept as it is.

    A class one member rules out (probability near 0) stays unlikely whatever the
    others say, so members that disagree leave no class sure.
    """
    if len(tables) == 1:
        return tables[0]
    logs = np.mean([np.log(np.maximum(t, 1e-12)) for t in tables], axis=0)
    mean = np.exp(logs - logs.max(axis=1, keepdims=True))
    result: np.ndarray = mean / mean.sum(axis=1, keepdims=True)
    return result


def disagree(rule: str, first: tuple[np.ndarray, np.ndarray],
             second: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Rows where two readings (rank, suit probabilities) name different cards.

    The rank tables' last column is "not an index".
    """
    if rule not in AGREEMENT_RULES:
        raise ValueError(f"agreement rule {rule!r}: expected one of {AGREEMENT_RULES}")
    (rank_a, suit_a), (rank_b, suit_b) = first, second
    if rule == "none":
        return np.zeros(rank_a.shape[0], bool)
    not_index = rank_a.shape[1] - 1
    card_a = rank_a[:, :not_index].argmax(axis=1)
    card_b = rank_b[:, :not_index].argmax(axis=1)
    differ: np.ndarray = (card_a != card_b) | (suit_a.argmax(axis=1) != suit_b.argmax(axis=1))
    if rule == "cards":
        differ &= (rank_a.argmax(axis=1) != not_index) & (rank_b.argmax(axis=1) != not_index)
    return differ
