"""The casino's own deck, enrolled: what each of its 52 index corners looks like.

Enrolment (`vision.enrolment`, `tablectl vision enroll`) stores, per card, the
verifier network's embeddings (its last hidden layer, unit length) of that
card's index corners seen at several sizes, turns and spoilings. Reading a
corner of that deck then means finding the enrolled corner it is most like:
the card whose best exemplar is nearest wins when it is near enough and
clearly nearer than any other card; otherwise the corner is unknown. Where
the networks read the corner surely as another card (`network_veto`), the two
readers disagree and the corner is unknown too: a wrong card is worse than a
missing one.

File: `NAME.npz` with `embeddings` (n x d float32), `labels` (n card indices)
and a JSON string `info` (format, cards, the model it was made with, the
thresholds).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from foundation.cards import ALL_CARDS

FORMAT = "house-deck/1"
CARDS: tuple[str, ...] = ALL_CARDS
MIN_SIMILARITY = 0.75  # cosine similarity to the best exemplar
MIN_MARGIN = 0.04  # over the best exemplar of any other card
# The networks' confidence in another card at which they veto the enrolled deck's read
# (their own threshold of a sure read, `min_confidence`).
NETWORK_VETO = 0.5


class HouseDeckError(ValueError):
    """The enrolled deck file is missing, damaged or made for another model."""


@dataclass
class HouseDeck:
    """Enrolled exemplars of a deck's index corners, one label per row."""

    embeddings: np.ndarray  # (n, d) float32, unit rows
    labels: np.ndarray  # (n,) int: index into CARDS
    name: str = "house deck"
    model: str = ""  # the verifier file the embeddings came from
    min_similarity: float = MIN_SIMILARITY
    min_margin: float = MIN_MARGIN
    network_veto: float = NETWORK_VETO
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.embeddings.ndim != 2 or self.embeddings.shape[0] != self.labels.shape[0]:
            raise HouseDeckError("house deck: embeddings and labels do not match")

    @property
    def cards(self) -> list[str]:
        return sorted({CARDS[int(k)] for k in self.labels}, key=CARDS.index)

    def match(self, embeddings: np.ndarray) -> tuple[list[str | None], np.ndarray]:
        """For each embedding: the enrolled card it is, or None when unsure; and the score.

        The score is the best cosine similarity when a card is named, else 0.
        """
        nearest, best, sure = self.nearest(embeddings)
        names: list[str | None] = [card if ok else None
                                   for card, ok in zip(nearest, sure, strict=True)]
        return names, np.where(sure, best, 0.0).astype(np.float32)

    def nearest(self, embeddings: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
        """For each embedding: the nearest enrolled card, its similarity, and whether that
        is sure (near enough and clearly nearer than any other card)."""
        if embeddings.shape[0] == 0:
            return [], np.zeros(0, np.float32), np.zeros(0, bool)
        similarity = embeddings @ self.embeddings.T  # (m, n)
        per_card = np.full((embeddings.shape[0], len(CARDS)), -1.0, np.float32)
        for card in np.unique(self.labels):
            per_card[:, card] = similarity[:, self.labels == card].max(axis=1)
        order = np.argsort(-per_card, axis=1)
        rows = np.arange(per_card.shape[0])
        best = per_card[rows, order[:, 0]]
        second = per_card[rows, order[:, 1]]
        sure = (best >= self.min_similarity) & (best - second >= self.min_margin)
        return [CARDS[int(k)] for k in order[:, 0]], best, sure

    def save(self, path: Path | str) -> Path:
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_suffix(".npz")
        info = {"format": FORMAT, "name": self.name, "model": self.model,
                "cards": self.cards, "min_similarity": self.min_similarity,
                "min_margin": self.min_margin, "network_veto": self.network_veto,
                **self.extra}
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".part.npz")
        np.savez_compressed(temporary, embeddings=self.embeddings.astype(np.float32),
                            labels=self.labels.astype(np.int16), info=json.dumps(info))
        temporary.replace(path)
        return path


def load_house_deck(path: Path | str, model: str | None = None) -> HouseDeck:
    """Read an enrolled deck; HouseDeckError says what is wrong and what to do."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            embeddings = np.asarray(data["embeddings"], np.float32)
            labels = np.asarray(data["labels"], np.int64)
            info = json.loads(str(data["info"]))
    except FileNotFoundError:
        raise HouseDeckError(f"{path}: no enrolled deck there; make one with "
                             "`tablectl vision enroll`") from None
    except (OSError, KeyError, ValueError) as exc:
        raise HouseDeckError(f"{path}: not an enrolled deck file ({exc}); enrol the deck "
                             "again with `tablectl vision enroll`") from None
    if not isinstance(info, dict) or info.get("format") != FORMAT:
        found = info.get("format") if isinstance(info, dict) else None
        raise HouseDeckError(f"{path}: format {found!r}, expected {FORMAT!r}")
    if model is not None and info.get("model") and info["model"] != model:
        raise HouseDeckError(f"{path}: enrolled with the model {info['model']}, the camera "
                             f"now uses {model}; enrol the deck again")
    if labels.size and (labels.min() < 0 or labels.max() >= len(CARDS)):
        raise HouseDeckError(f"{path}: card labels out of range")
    known = {"format", "name", "model", "cards", "min_similarity", "min_margin",
             "network_veto"}
    return HouseDeck(embeddings, labels, str(info.get("name", path.stem)),
                     str(info.get("model", "")),
                     _threshold(info, "min_similarity", MIN_SIMILARITY, path),
                     _threshold(info, "min_margin", MIN_MARGIN, path),
                     _threshold(info, "network_veto", NETWORK_VETO, path),
                     {k: v for k, v in info.items() if k not in known})


def _threshold(info: dict[str, Any], key: str, default: float, path: Path) -> float:
    value = info.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise HouseDeckError(f"{path}: {key} is {value!r}, not a number; enrol the deck "
                             "again with `tablectl vision enroll`")
    return float(value)
