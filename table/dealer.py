"""The dealer's draw rule and how far the dealer's hand must go."""

from __future__ import annotations

from collections.abc import Sequence

from table.cards import TEN_VALUE_RANKS
from table.hands import hand_value, is_natural
from table.profiles import Rules
from table.round_state import Round
from table.sidebets import SIDE_BETS

FULL = "full"
SECOND = "second"
NONE = "none"


def must_draw(rules: Rules, cards: Sequence[str]) -> bool:
    """Draw on 16 or less; on soft 17 only under H17."""
    total, soft = hand_value(cards)
    return total < 17 or (total == 17 and soft and rules.dealer_hits_soft_17)


def dealer_need(rules: Rules, rnd: Round) -> str:
    """How far an open bet depends on the dealer's hand: 'full', 'second' or 'none'.

    A standing hand or a side bet on the dealer's hand (Dealer Bust) needs the
    whole hand; a natural, a late surrender or insurance against a card that can
    make blackjack needs only the dealer's second card; nothing open needs no
    dealer card at all.
    """
    if rules.dealer_plays_out == "always":
        return FULL
    up = rnd.dealer[0]
    up_can_natural = up[0] == "A" or up[0] in TEN_VALUE_RANKS
    need = NONE
    for box in rnd.boxes.values():
        if any(SIDE_BETS[spot].needs_dealer_hand for _, spot in box.side):
            return FULL
        if box.insurance:
            need = SECOND
        for hand in box.hands:
            if not hand.open_players():
                continue
            if hand.status in ("stood", "playing"):
                return FULL
            if hand.status in ("natural", "late_surrender") and up_can_natural:
                need = SECOND
    return need


def dealer_complete(rules: Rules, cards: Sequence[str], need: str) -> bool:
    """Whether the dealer's hand is complete for what the open bets need."""
    if need == NONE:
        return True
    if len(cards) < 2:
        return False
    if need == SECOND or is_natural(cards[:2]):
        return True
    return not must_draw(rules, cards)
