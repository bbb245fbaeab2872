"""The casino game: the house deals and draws by its rule; insurance against an ace."""

from __future__ import annotations

from typing import Any

from table import dealer
from table.checks import Refused, casino_takes_card, check_action, check_double
from table.events import DEALER, Card, Do
from table.flows.base import RoundFlow
from table.flows.state import DEALER_DREW_ON_STAND, DEALER_STOOD_ON_DRAW
from table.hands import is_natural
from table.ledger import settle_hand
from table.round_state import Box, Halt, Hand, Round
from table.settlement import settle_casino
from table.views import Due

INSURANCE_ANSWERS = ("insurance", "even_money", "decline")
# Decisions of the first box's owner that close the insurance window.
OWNER_PLAYS = ("hit", "stand", "double", "split", "rescue", "buy", "twist", "timeout",
               "surrender")


class CasinoFlow(RoundFlow):
    """The house plays the dealer's hand; the profile says how far it must draw."""

    card_after_settling = DEALER_DREW_ON_STAND

    def game_transitions(self) -> list[dict[str, Any]]:
        return [
            {"trigger": "open_insurance", "source": "dealing", "dest": "insurance"},
            {"trigger": "card", "source": "insurance", "dest": None,
             "before": [self.card_in_insurance]},
            {"trigger": "decide", "source": "insurance", "dest": None,
             "before": [self.decide_in_insurance]},
        ]

    # -- the deal and insurance ---------------------------------------------------------

    def deals_second_dealer_card(self) -> bool:
        return self.rules.hole_card == "peek"

    def after_deal(self, rnd: Round) -> None:
        if self.rules.insurance and rnd.dealer[0][0] == "A" and any(
                hand.open_players() for box in rnd.boxes.values() for hand in box.hands):
            self.phases.fire("open_insurance")
            return
        self.close_insurance()

    def close_insurance(self) -> None:
        """No answer is a decline: the first box plays (or a peeked blackjack settles)."""
        rnd = self.require_round()
        if self.rules.hole_card == "peek" and is_natural(rnd.dealer):
            # Only the original bets are at stake against a blackjack found by the peek.
            self.phases.fire("start_dealer")
            self.finish_round()
            return
        self.start_play()

    def card_in_insurance(self, event: Card) -> None:
        if not self.possible(event):
            return
        self.close_insurance()
        self.phases.fire("card", event)

    def decide_in_insurance(self, do: Do) -> None:
        box, player = self.deciding_box(do)
        action = do.action
        if action == "rescue":
            self.rescue(box, self.rescue_offer)
            return
        if action in INSURANCE_ANSWERS and not (
                action == "decline" and self.pending_for(box, player)):
            self.answer_insurance(box, player, action, do.amount)
            return
        if player == box.owner and action in OWNER_PLAYS:
            self.check_first_to_play(box, action, do.amount)
        self.close_insurance()
        self.rescue_offer = None
        self.phases.fire("decide", do)

    def check_first_to_play(self, box: Box, action: str, amount: int | None) -> None:
        """Check a play decision that would close the insurance window, changing nothing."""
        rnd = self.require_round()
        for number in rnd.order:
            first = rnd.boxes[number]
            hand = next((h for h in first.hands if not h.done), None)
            if first.over or hand is None:
                continue
            if first is not box:
                raise Refused(f"box {box.number} is not up: box {number} plays first")
            check_action(self.rules, self, rnd, box, hand, action, amount)
            return
        raise Refused("no box has a hand to play")

    def answer_insurance(self, box: Box, player: str, action: str, amount: int | None) -> None:
        rules = self.rules
        rnd = self.require_round()
        hand = box.hands[0]
        if action == "insurance":
            if not rules.insurance:
                raise Refused("this table offers no insurance")
            if player in box.insurance:
                raise Refused(f"{player} is insured already")
            if hand.status == "natural" and not rules.insure_naturals:
                raise Refused("a blackjack is not insured: take even money instead")
            if player in hand.settled:
                raise Refused(f"{player}'s bet on this hand is settled already")
            half = box.main[player] // 2
            stake = amount if amount is not None else half
            if stake > half:
                raise Refused(f"insurance is at most half the main bet ({half}); {stake} is more")
            if stake <= 0:
                raise Refused("the main bet is too small to insure")
            box.insurance[player] = stake
        elif action == "even_money":
            if not rules.even_money:
                raise Refused("this table offers no even money")
            if hand.status != "natural":
                raise Refused("even money is for a blackjack against a dealer ace")
            if player in hand.settled:
                raise Refused(f"{player} has taken even money already")
            players = [player]
            if player == box.owner and rules.owner_even_money_carries:
                players = hand.open_players()
            for payee in players:
                settle_hand(rnd, hand, payee, hand.stakes[payee] * 2,
                            "even money, booked on the main bet")
        if player == box.owner:
            box.insurance_answered = True
        if all(rnd.boxes[n].insurance_answered for n in rnd.order):
            self.close_insurance()

    # -- the dealer ---------------------------------------------------------------------

    def enter_dealer(self) -> None:
        rnd = self.require_round()
        for box in rnd.boxes.values():
            box.pending.clear()
        self.phases.fire("start_dealer")
        self.need = dealer.dealer_need(self.rules, rnd)
        if self.dealer_done():
            self.finish_round()

    def dealer_done(self) -> bool:
        rnd = self.round
        assert rnd is not None
        need = self.need if self.need is not None else dealer.dealer_need(self.rules, rnd)
        return dealer.dealer_complete(self.rules, rnd.dealer, need)

    def dealer_card_refused(self, event: Card) -> bool:
        if self.dealer_done():
            self.misdeal(event, DEALER_DREW_ON_STAND, "dealer")
            return True
        return False

    def after_dealer_card(self) -> None:
        if self.dealer_done():
            self.finish_round()

    def dealer_stands(self, do: Do) -> None:
        if self.dealer_done():
            return
        rnd = self.require_round()
        rnd.flags.append(DEALER_STOOD_ON_DRAW)
        rnd.halt = Halt(DEALER_STOOD_ON_DRAW, None, "dealer")
        self.phases.fire("halt")

    def after_resume(self) -> None:
        if self.phases.state == "dealer" and self.dealer_done():
            self.finish_round()

    def after_rescue(self) -> None:
        self.after_resume()

    def settle(self, rnd: Round) -> None:
        settle_casino(self.rules, rnd)

    def dealer_due(self, number: int) -> Due:
        instruction = "stand" if self.dealer_done() else "draw"
        return Due("dealer", number, None, None, (), instruction, False, (),
                   instruction == "draw", DEALER if instruction == "draw" else None)

    # -- the hands' decisions -----------------------------------------------------------

    def takes_card(self, hand: Hand) -> bool:
        return casino_takes_card(self.rules, hand)

    def check_card_request(self, hand: Hand, action: str, amount: int | None) -> None:
        if action != "hit":
            raise Refused(f"{action} belongs to British pontoon; use hit")
        if hand.autoplay:
            raise Refused("the system is playing this hand (timeout)")
        if not self.takes_card(hand):
            raise Refused("this hand takes no more cards")

    def check_stand(self, hand: Hand) -> None:
        return None

    def check_double(self, hand: Hand) -> None:
        check_double(self.rules, hand)
