"""Why a decision is not allowed: one check per action, each raising `Refused` with the reason.

The checks read the hand and the rules and change nothing, so the machine can
ask them for the legal actions as well as before performing one.
"""

from __future__ import annotations

from typing import Protocol

from table.hands import hard_total, is_natural, is_pair
from table.profiles import Rules
from table.round_state import Box, Hand, Round


class Refused(Exception):
    """A decision or event the rules do not allow now; the message says why."""


class GameChecks(Protocol):
    """What a game decides about asking for cards, standing and doubling (see table.flows)."""

    def takes_card(self, hand: Hand) -> bool:
        """Whether a card leaving the shoe now may go to this hand."""

    def check_card_request(self, hand: Hand, action: str, amount: int | None) -> None:
        """Raise `Refused` unless `action` (hit, buy or twist) may ask for a card now."""

    def check_stand(self, hand: Hand) -> None: ...

    def check_double(self, hand: Hand) -> None: ...


def casino_takes_card(rules: Rules, hand: Hand) -> bool:
    """Whether a card may go to a hand of the casino game."""
    if hand.done:
        return False
    if hand.owed > 0 or hand.autoplay:
        return True
    if hand.doubles and not rules.hit_after_double:
        return False
    if hand.split_ace and len(hand.cards) >= 2:
        return False
    return True


def split_room(rules: Rules, box: Box) -> bool:
    return len(box.hands) < rules.max_split_hands


def check_action(rules: Rules, game: GameChecks, rnd: Round | None, box: Box, hand: Hand,
                 action: str, amount: int | None) -> None:
    """Raise `Refused` when the rules do not allow the owner's `action` on `hand` now."""
    if rnd is None:
        raise Refused("no round is open")
    if hand.done:
        raise Refused("this hand is finished")
    if hand.owed and action != "timeout":
        raise Refused("the hand must receive its card first")
    if action in ("hit", "buy", "twist"):
        game.check_card_request(hand, action, amount)
        return
    if action == "stand":
        game.check_stand(hand)
        return
    if action == "timeout":
        if rules.decision_timeout == "none":
            raise Refused("this profile has no decision timer: the dealer waits for the player")
        if hand.autoplay:
            raise Refused("the system already plays this hand")
        return
    if action == "double":
        game.check_double(hand)
        return
    if action == "split":
        check_split(rules, box, hand)
        return
    if action == "surrender":
        check_surrender(rules, rnd.dealer[0], hand)
        return
    raise Refused(f"{action} is not a decision for a hand in play")


def original_stake(hand: Hand) -> int:
    """The owner's stake as first placed on this hand (the owner bets first)."""
    return next(iter(hand.originals.values()))


def check_buy(hand: Hand, amount: int | None) -> None:
    """British pontoon: the third card is bought for the stake to twice it; the 4th and 5th
    for the stake to the previous buy."""
    original = original_stake(hand)
    chips = amount if amount is not None else original
    high = 2 * original if not hand.buys else hand.buys[-1]
    if not original <= chips <= high:
        raise Refused(f"a buy on this card is {original} to {high}; {chips} is not")


def check_double(rules: Rules, hand: Hand) -> None:
    if hand.doubles >= rules.doubles_per_hand:
        raise Refused("this hand has doubled already")
    if rules.double_cards == "two" and len(hand.cards) != 2:
        raise Refused("doubling is allowed only on the first two cards")
    if hand.status == "natural" or (not hand.from_split and is_natural(hand.cards)):
        raise Refused("a blackjack is not doubled")
    if hand.from_split and not rules.double_after_split:
        raise Refused("no doubling after a split at this table")
    if hand.split_ace and not rules.double_split_aces:
        raise Refused("split aces are not doubled")
    if rules.double_totals == "9-11":
        total = hard_total(hand.cards) if rules.double_ace_counts_one else hand.total()
        if not 9 <= total <= 11:
            raise Refused(f"doubling is allowed only on 9 to 11; this hand counts {total}"
                          + (" (an ace counts one)" if rules.double_ace_counts_one else ""))


def check_split(rules: Rules, box: Box, hand: Hand) -> None:
    if len(hand.cards) != 2 or hand.doubles:
        raise Refused("only the first two cards of a hand can be split")
    if not is_pair(hand.cards, rules.split_by == "rank"):
        kind = "rank" if rules.split_by == "rank" else "value"
        raise Refused(f"{hand.cards[0]} and {hand.cards[1]} are not a pair of the same {kind}")
    if hand.cards[0][0] not in rules.split_ranks:
        raise Refused(f"only {', '.join(rules.split_ranks)} may be split at this table")
    if not split_room(rules, box):
        raise Refused(f"this table allows {rules.max_split_hands} hands in all after splitting")
    if hand.split_ace and not rules.resplit_aces:
        raise Refused("split aces cannot be split again here")


def check_surrender(rules: Rules, dealer_up: str, hand: Hand) -> None:
    if rules.surrender == "none":
        raise Refused("this table has no surrender")
    if hand.from_split or len(hand.cards) != 2 or hand.doubles:
        raise Refused("surrender is allowed only on the first two cards of an unsplit hand")
    if rules.surrender_first_decision_only and hand.decisions:
        raise Refused("surrender is allowed only as the first decision")
    if dealer_up[0] not in rules.surrender_against:
        raise Refused(f"no surrender against a dealer {dealer_up} (allowed against "
                      f"{', '.join(rules.surrender_against)})")
