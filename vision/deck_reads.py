"""Where a house deck reads: the networks say whether a pair is an index, the enrolled
(or learnt) deck which card (`Recognizer._read_pairs`)."""

from __future__ import annotations

import numpy as np

from foundation.cards import RANKS, SUITS
from vision.house_deck import HouseDeck
from vision.reads import DECK_DISAGREES, DECK_UNSURE
from vision.second_look import NOT_INDEX


def read_by_house_deck(deck: HouseDeck, look: np.ndarray, embedding: np.ndarray | None,
                       rank_p: np.ndarray, rank: np.ndarray, suit: np.ndarray,
                       confidence: np.ndarray, bar: float) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's card and confidence as the deck reads them (`rank`, `suit` and
    `confidence` are changed in place; the rows of `look` are those the verifier
    embedded), and for each pair why the deck stopped the networks' sure read (or "")
    and the deck's nearest card there (or "")."""
    stopped_by_deck = np.full(rank.shape[0], "", object)
    deck_cards = np.full(rank.shape[0], "", object)
    network_confidence = confidence.copy()
    confidence[:] = 0.0
    if not look.size or embedding is None:
        return stopped_by_deck, deck_cards
    nearest, similarity, sure = deck.nearest(embedding)
    known = set(deck.cards)
    for k, row in enumerate(look):
        if rank[row] == NOT_INDEX:
            continue
        card = nearest[k]
        read = RANKS[rank[row]] + SUITS[suit[row]]
        vetoed = card != read and network_confidence[row] >= deck.network_veto
        if sure[k] and not vetoed:
            # Surely this card, and as sure as the networks of an index.
            confidence[row] = similarity[k] * (1.0 - rank_p[row, NOT_INDEX])
        elif card == read:  # the networks read it surely, and the deck agrees
            confidence[row] = network_confidence[row]
        elif read not in known and not sure[k]:
            # A card the deck lacks (not enrolled, not learnt yet), and the deck names
            # no other surely: the networks' read stands.
            confidence[row] = network_confidence[row]
            continue
        elif network_confidence[row] >= bar:
            stopped_by_deck[row] = DECK_DISAGREES if sure[k] else DECK_UNSURE
            deck_cards[row] = card
        rank[row], suit[row] = RANKS.index(card[0]), SUITS.index(card[1])
    return stopped_by_deck, deck_cards
