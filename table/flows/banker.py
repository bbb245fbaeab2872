"""The banker game (British pontoon): a player banks and plays at will; cards are bought
or twisted, the stake may be raised after the first card, the bank passes on a pontoon."""

from __future__ import annotations

from typing import Any

from table.checks import Refused, check_buy
from table.events import DEALER, Bet, Do
from table.flows.base import RoundFlow
from table.hands import hard_total, is_natural
from table.ledger import pay
from table.round_state import Hand, Round
from table.settlement import settle_banker
from table.views import Due


class BankerFlow(RoundFlow):
    """A player banks: no draw rule to enforce, the banker stands when they choose."""

    def game_transitions(self) -> list[dict[str, Any]]:
        return [{"trigger": "bet", "source": "dealing", "dest": None,
                 "before": [self.raise_stake]}]

    def raise_stake(self, bet: Bet) -> None:
        """A seated player raises the stake after the first card, before the second."""
        rnd = self.require_round()
        box = rnd.boxes.get(bet.box)
        player = bet.player or f"box{bet.box}"
        if bet.spot != "main" or box is None or player not in box.main:
            raise Refused(f"only a seated player may raise a stake; box {bet.box} has no bet")
        if len(box.dealt) != 1:
            raise Refused("a stake may be raised only after the first card, before the second")
        box.main[player] += bet.amount
        hand = box.hands[0]
        hand.stakes[player] += bet.amount
        hand.originals[player] += bet.amount

    def deals_second_dealer_card(self) -> bool:
        return True

    def after_deal(self, rnd: Round) -> None:
        if is_natural(rnd.dealer):
            for number in rnd.order:
                hand = rnd.boxes[number].hands[0]
                for player in hand.open_players():
                    pay(rnd, player, "main", number, 0, hand.stakes[player],
                        -hand.stakes[player], "banker's pontoon collects double")
                    hand.settled.add(player)
            self.finish_round()
            return
        self.start_play()

    # -- the banker ---------------------------------------------------------------------

    def enter_dealer(self) -> None:
        rnd = self.require_round()
        for box in rnd.boxes.values():
            box.pending.clear()
        self.phases.fire("start_dealer")
        if not any(h.open_players() for b in rnd.boxes.values() for h in b.hands
                   if h.status != "bust"):
            self.finish_round()

    def dealer_card_refused(self, event: object) -> bool:
        return False

    def after_dealer_card(self) -> None:
        rnd = self.require_round()
        if hard_total(rnd.dealer) > 21 or len(rnd.dealer) >= (self.rules.max_hand_cards or 99):
            self.finish_round()

    def dealer_stands(self, do: Do) -> None:
        self.finish_round()

    def settle(self, rnd: Round) -> None:
        settle_banker(self.rules, rnd)
        rnd.next_banker = self.next_banker(rnd)
        self.banker = rnd.next_banker

    def next_banker(self, rnd: Round) -> str:
        if is_natural(rnd.dealer):
            return self.banker
        for number in rnd.order:
            hand = rnd.boxes[number].hands[0]
            if not hand.from_split and hand.status == "natural":
                return rnd.boxes[number].owner
        return self.banker

    def banker_of(self, rnd: Round) -> str | None:
        return self.banker

    def dealer_due(self, number: int) -> Due:
        # The banker plays at will: no draw rule to announce.
        return Due("dealer", number, None, None, ("stand",), None, False, (), True, DEALER)

    # -- the hands' decisions -----------------------------------------------------------

    def takes_card(self, hand: Hand) -> bool:
        if hand.done:
            return False
        return hand.owed > 0 or hand.autoplay or hand.card_asked

    def check_card_request(self, hand: Hand, action: str, amount: int | None) -> None:
        if action == "hit":
            raise Refused("in pontoon a card is bought or twisted: use buy or twist")
        if hand.card_asked:
            raise Refused("a card is already asked for")
        if len(hand.cards) >= (self.rules.max_hand_cards or 99):
            raise Refused("the hand has its five cards")
        if action == "buy":
            if hand.twisted:
                raise Refused("no buying after a twist")
            check_buy(hand, amount)

    def check_stand(self, hand: Hand) -> None:
        if hand.total() < self.rules.stick_minimum:
            raise Refused(f"sticking needs {self.rules.stick_minimum} or more; the hand has "
                          f"{hand.total()}: buy or twist")

    def check_double(self, hand: Hand) -> None:
        raise Refused("British pontoon has no double: buy a card instead")
