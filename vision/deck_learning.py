"""A house deck learnt from play: the card a corner belongs to, named by the shoe.

Where a shoe reports every card dealt and the camera watches it land, the
shoe's card names the index corners the camera sees at that place, whatever
the networks made of them. The own verifier's embeddings of those corners
(what `vision.enrolment` keeps from photos of the cards) are the card's
exemplars; once every card of the deck has a few, they make a `HouseDeck` that
reads the deck by likeness, as an enrolled one does, with no photo session.

    learner = DeckLearner(recognizer, "house deck")
    learner.add(frame, [("QH", 412.0, 233.5), ("7C", 640.0, 251.0)], radius=12.0)
    if not learner.missing():
        learner.house_deck().save("house-deck.npz")
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

import numpy as np

from foundation.cards import CardError, parse_card
from vision.house_deck import CARDS, HouseDeck
from vision.recognizer import NOT_INDEX, Recognizer, candidate_features

MIN_EXEMPLARS = 3  # exemplars a card needs before the learnt deck counts it as learnt
MAX_EXEMPLARS = 60  # a card's exemplars kept (the first seen); bounds memory and time


class DeckLearner:
    """Collects labelled index-corner embeddings of one deck, frame by frame."""

    def __init__(self, recognizer: Recognizer, name: str = "learnt deck",
                 max_exemplars: int = MAX_EXEMPLARS) -> None:
        if recognizer.verifier_path is None:
            raise ValueError("learning a deck needs the verifier network, and this model "
                             "has none")
        if max_exemplars < 1:
            raise ValueError(f"max_exemplars must be 1 or more, not {max_exemplars}")
        self.recognizer = recognizer
        self.name = name
        self.max_exemplars = max_exemplars
        self._exemplars: dict[str, list[np.ndarray]] = {}

    def add(self, frame: np.ndarray, corners: Sequence[tuple[str, float, float]],
            radius: float) -> int:
        """Learn from one BGR frame: each of `corners` is (card, x, y), an index corner
        the card is known to show there (the rank-suit midpoint, in pixels). Every
        candidate pair the networks take for an index within `radius` pixels of it is
        an exemplar of that card. Returns how many exemplars were added."""
        if radius <= 0:
            raise ValueError(f"radius must be above 0 pixels, not {radius}")
        labelled = [(_card_code(card), float(x), float(y)) for card, x, y in corners]
        if not labelled:
            return 0
        points, embeddings = self.index_embeddings(frame)
        added = 0
        for card, x, y in labelled:
            near = np.flatnonzero(np.hypot(points[:, 0] - x, points[:, 1] - y) <= radius)
            kept = self._exemplars.setdefault(card, [])
            for row in near[:max(0, self.max_exemplars - len(kept))]:
                kept.append(embeddings[row])
                added += 1
        return added

    def index_embeddings(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The midpoints (n, 2) of the candidate pairs in `frame` that the networks take
        for an index (the classifier passes them to the verifier, the verifier gives
        "not an index" under even odds) and the verifier's embeddings of them (n, d)."""
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"expected a BGR uint8 frame (HxWx3), got {frame.dtype} "
                             f"{frame.shape}")
        recognizer = self.recognizer
        features, rank_at, suit_at, crops = candidate_features(frame,
                                                               recognizer.looks_like_index)
        none = np.zeros((0, 2), np.float32), np.zeros((0, 1), np.float32)
        if features.shape[0] == 0:
            return none
        rank_p, _ = recognizer.classify(features)
        look = np.flatnonzero(rank_p[:, NOT_INDEX] < recognizer.verify_below)
        if look.size == 0:
            return none
        verified, _, embedding = recognizer.verify_and_embed(crops[look])
        if embedding is None:
            raise ValueError("this model's verifier has no embedding output: retrain it "
                             "with tools/train_vision.py")
        index = verified[:, NOT_INDEX] < 0.5
        middle = (rank_at[look] + suit_at[look]) / 2.0
        return middle[index].astype(np.float32), embedding[index].astype(np.float32)

    def seed(self, deck: HouseDeck) -> None:
        """Start from the exemplars of `deck` (a deck learnt before), up to the cap."""
        for embedding, label in zip(deck.embeddings, deck.labels, strict=True):
            kept = self._exemplars.setdefault(CARDS[int(label)], [])
            if len(kept) < self.max_exemplars:
                kept.append(np.asarray(embedding, np.float32))

    def full(self, card: str) -> bool:
        """Whether `card` has all the exemplars it may keep."""
        return len(self._exemplars.get(card, [])) >= self.max_exemplars

    def counts(self) -> dict[str, int]:
        """Exemplars kept per card, in deck order (cards never seen have 0)."""
        return {card: len(self._exemplars.get(card, [])) for card in CARDS}

    def missing(self, at_least: int = MIN_EXEMPLARS) -> list[str]:
        """The cards with fewer than `at_least` exemplars, in deck order."""
        return [card for card, count in self.counts().items() if count < at_least]

    def house_deck(self) -> HouseDeck:
        """The deck learnt so far (cards not yet seen are simply not in it)."""
        rows = [(CARDS.index(card), e) for card, kept in self._exemplars.items() for e in kept]
        if not rows:
            raise ValueError("nothing learnt yet: no index corner was seen at the places "
                             "given")
        labels = np.array([label for label, _ in rows], np.int64)
        embeddings = np.stack([e for _, e in rows]).astype(np.float32)
        return HouseDeck(embeddings, labels, self.name, self.recognizer.verifier_id,
                         extra={"learnt_from_play": True})


def agreeing_corners(named: Sequence[tuple[str, float, float]],
                     reads: Sequence[tuple[str, float, float]],
                     radius: float) -> list[tuple[str, float, float]]:
    """The corners of `named` (card, x, y: what the shoe says lies there) where the
    camera read that same card within `radius` pixels (`reads`: card, x, y), at the
    camera's point. Two sources agreeing is what a daemon learns from: the shoe alone
    cannot say which of the corners seen in a box is its card."""
    agreed = []
    for card, x, y in named:
        near = [(math.hypot(rx - x, ry - y), rx, ry) for read, rx, ry in reads
                if read == card and math.hypot(rx - x, ry - y) <= radius]
        if near:
            _, rx, ry = min(near)
            agreed.append((card, rx, ry))
    return agreed


def eliminated_corners(places: Mapping[str, tuple[Collection[str], Sequence[str]]],
                       corners: Sequence[tuple[str, float, float, str | None]]
                       ) -> list[tuple[str, float, float]]:
    """Corners named by elimination: `places` maps a place (a layout area) to the cards
    the shoe dealt there and those of them the camera has not read there; `corners` are
    the frame's index corners (card or "??", x, y, area). Where one card of a place is
    not read there and one corner alone in that place is a stray, that corner is named
    that card. A stray is an unknown corner or a read of a card the shoe dealt nowhere:
    a read of a card dealt to another place may be that card, moved there."""
    named = []
    anywhere = {card for dealt, _ in places.values() for card in dealt}
    for place, (_, unread) in places.items():
        if len(unread) != 1:
            continue
        strays = [(x, y) for card, x, y, area in corners
                  if area == place and card not in anywhere]
        if len(strays) == 1:
            named.append((unread[0], *strays[0]))
    return named


def _card_code(card: str) -> str:
    try:
        return parse_card(card)
    except CardError as exc:
        raise ValueError(f"a corner's card: {exc}") from None
