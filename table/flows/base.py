"""A round flow: the events of one round, from the first bet to the settlement.

`RoundFlow` holds what every game shares (bets, the deal, cards, misdeals and their
resolution, the shoe); `CasinoFlow` and `BankerFlow` add what their game does
differently. The phase machine (`table.phases`) decides which event is legal when.
"""

from __future__ import annotations

from typing import Any

from table.cards import IMPOSSIBLE_CARD, TEN_VALUE_RANKS
from table.checks import Refused
from table.events import DEALER, Card, Do, Flag, Resolve
from table.flows.betting import Betting
from table.flows.playing import Playing
from table.flows.state import (
    CARD_OUT_OF_ORDER,
    CARD_TO_EMPTY_BOX,
    CUT_CARD,
    DEALER_STOOD_ON_DRAW,
    EXTRA_CARD,
    INTERNAL_ERROR,
    SHOE_RELOADED,
)
from table.hands import is_natural
from table.ledger import settle_hand, void
from table.payouts import bonus_blackjack, ratio, win_amount
from table.phases import IN_ROUND, PhaseMachine
from table.profiles import Rules
from table.round_state import Box, Halt, Round
from table.settlement import natural_payout, settle_side_bets
from table.views import Due

OPEN_FOR_BETS = ["betting", "settled", "void"]
HALTED = "the round is halted on a misdeal: resolve it (void or accept) first"


class RoundFlow(Betting, Playing):
    """The events of a round; a game's flow fills in the hooks at the end of the class."""

    def __init__(self, rules: Rules, keep_rounds: int | None = None) -> None:
        super().__init__(rules, keep_rounds)
        self.phases = PhaseMachine(self.transitions(), self.refusal)

    # -- the phase machine --------------------------------------------------------------

    def transitions(self) -> list[dict[str, Any]]:
        """Every trigger, the phases it is legal in, and what it does."""
        def event(trigger: str, source: str | list[str], *before: Any,
                  conditions: Any = ()) -> dict[str, Any]:
            return {"trigger": trigger, "source": source, "dest": None,
                    "before": list(before), "conditions": list(conditions)}

        def phase(trigger: str, source: str | list[str], dest: str) -> dict[str, Any]:
            return {"trigger": trigger, "source": source, "dest": dest}

        card_in = {
            "betting": self.card_in_betting, "void": self.card_in_void,
            "settled": self.card_in_settled, "dealing": self.card_in_dealing,
            "playing": self.card_in_playing, "dealer": self.card_in_dealer,
        }
        return [
            event("bet", OPEN_FOR_BETS, self.place_bet),
            event("deal", "betting", self.deal, conditions=[self.round_open]),
            *(event("card", source, handler) for source, handler in card_in.items()),
            event("decide", ["dealing", "playing", "dealer"], self.on_decision),
            event("dealer_decides", "dealer", self.dealer_action_is_stand, self.dealer_stands),
            event("dealer_decides", "settled", self.dealer_action_is_stand),
            event("resolve", "halted", self.resolve_misdeal),
            event("resolve", IN_ROUND, self.void_the_round, conditions=[self.is_void]),
            event("load_shoe", OPEN_FOR_BETS, self.load_shoe),
            event("load_shoe", IN_ROUND, self.load_shoe, self.reload_mid_round),
            event("load_shoe", "halted", self.load_shoe, self.reload_while_halted),
            event("cut_card", [*OPEN_FOR_BETS, *IN_ROUND, "halted"], self.cut_card),
            event("flag", ["betting", "settled", *IN_ROUND], self.flag,
                  conditions=[self.round_open]),
            phase("begin_round", OPEN_FOR_BETS, "betting"),
            phase("start_deal", "betting", "dealing"),
            phase("start_play", ["dealing", "insurance"], "playing"),
            phase("start_dealer", ["dealing", "insurance", "playing"], "dealer"),
            phase("finish", IN_ROUND, "settled"),
            phase("halt", ["betting", "settled"] + IN_ROUND, "halted"),
            phase("void_round", ["betting", "halted"] + IN_ROUND, "void"),
            *(phase(f"resume_{name}", "halted", name) for name in ["betting", "settled"]
              + IN_ROUND),
            *self.game_transitions(),
        ]

    def refusal(self, trigger: str, phase: str, event: Any) -> str:
        """Why an event is not taken in this phase."""
        if phase == "halted" and trigger in ("bet", "card", "decide", "dealer_decides"):
            return HALTED
        if trigger == "bet":
            return f"bets are closed ({phase}); wait for the next round"
        if trigger == "deal":
            if phase == "halted":
                return "the round is halted on a misdeal: resolve it first"
            return "no bets to deal to: place a bet first"
        if trigger == "decide":
            if phase in ("settled", "void"):
                return "the round is over: no decision is open"
            return f"box {event.box} has no hand in play"
        if trigger == "dealer_decides":
            if event.action != "stand":
                return f"the dealer's only decision is stand, not {event.action}"
            return f"the dealer is not playing now ({phase})"
        if trigger == "resolve":
            return "no misdeal is open: nothing to resolve"
        if trigger == "flag":
            return f"{event.code} outside a round: nothing to halt"
        return f"{trigger} is not taken while {phase}"

    def round_open(self, event: object) -> bool:
        return self.round is not None

    @staticmethod
    def is_void(event: Resolve) -> bool:
        return event.decision == "void"

    # -- cards --------------------------------------------------------------------------

    def possible(self, event: Card) -> bool:
        """A card the shoe cannot hold (one more than it was loaded with) halts the round."""
        if self.inventory.can_hold(event.card):
            return True
        self.misdeal(event, IMPOSSIBLE_CARD, self.phases.state, counted=False)
        return False

    def card_in_void(self, event: Card) -> None:
        self.open_round()
        self.card_in_betting(event)

    def card_in_betting(self, event: Card) -> None:
        if self.round is None:
            self.open_round()
        if self.possible(event):
            self.misdeal(event, self.wrong_place_code(event.box, EXTRA_CARD), "betting")

    def card_in_settled(self, event: Card) -> None:
        if not self.possible(event):
            return
        if isinstance(event.box, int):
            self.misdeal(event, self.wrong_place_code(event.box, CARD_OUT_OF_ORDER), "settled")
        else:
            self.misdeal(event, self.card_after_settling, "settled")

    def card_in_dealing(self, event: Card) -> None:
        if not self.inventory.can_hold(event.card):
            self.misdeal(event, IMPOSSIBLE_CARD, "dealing", counted=False)
            return
        rnd = self.round
        assert rnd is not None
        target = rnd.deal_queue[rnd.deal_pos]
        if event.box is not None and event.box != target:
            self.misdeal(event, self.wrong_place_code(event.box, CARD_OUT_OF_ORDER), "dealing")
            return
        self.inventory.take(event.card)
        self.deal_card(rnd, target, event.card)

    def card_in_playing(self, event: Card) -> None:
        if not self.possible(event):
            return
        box, _ = self.active()
        if event.box is not None and event.box != box.number:
            self.misdeal(event, self.wrong_place_code(event.box, CARD_OUT_OF_ORDER), "playing")
        elif not self.card_to_hand(event.card):
            self.misdeal(event, EXTRA_CARD, "playing")

    def card_in_dealer(self, event: Card) -> None:
        if not self.possible(event):
            return
        rnd = self.require_round()
        if event.box is not None and event.box != DEALER:
            self.misdeal(event, self.wrong_place_code(event.box, CARD_OUT_OF_ORDER), "dealer")
            return
        if self.dealer_card_refused(event):
            return
        self.inventory.take(event.card)
        rnd.dealer.append(event.card)
        self.after_dealer_card()

    def wrong_place_code(self, box: int | str | None, otherwise: str) -> str:
        rnd = self.round
        if isinstance(box, int) and (rnd is None or box not in rnd.boxes
                                     or not rnd.boxes[box].main):
            return CARD_TO_EMPTY_BOX
        return otherwise

    def misdeal(self, event: Card | None, code: str, resume: str, counted: bool = True) -> None:
        rnd = self.require_round()
        card = event.card if event is not None else None
        if card is not None and counted:
            self.inventory.take(card)
        rnd.flags.append(code)
        rnd.halt = Halt(code, card, resume)
        self.phases.fire("halt")

    def deal_card(self, rnd: Round, target: int | str, card: str) -> None:
        if target == DEALER:
            rnd.dealer.append(card)
        else:
            assert isinstance(target, int)
            box = rnd.boxes[target]
            box.hands[0].cards.append(card)
            box.dealt.append(card)
            if box.side and len(box.dealt) == 2 and rnd.dealer:
                settle_side_bets(self.rules, rnd, box, "deal")
        rnd.deal_pos += 1
        if rnd.deal_pos == len(rnd.deal_queue):
            self.judge_naturals(rnd)
            self.after_deal(rnd)

    def judge_naturals(self, rnd: Round) -> None:
        """Every box's natural, and what is paid on it before the dealer plays."""
        rules = self.rules
        up = rnd.dealer[0]
        for number in rnd.order:
            box = rnd.boxes[number]
            hand = box.hands[0]
            if not is_natural(hand.cards):
                continue
            hand.status, hand.done = "natural", True
            if rules.bonus_blackjack_pays != "none" and bonus_blackjack(hand.cards):
                odds = ratio(rules.bonus_blackjack_pays)
                for player in hand.open_players():
                    stake = hand.stakes[player]
                    settle_hand(rnd, hand, player, stake + win_amount(stake, odds),
                                f"Bonus Black Jack {rules.bonus_blackjack_pays} at once")
                hand.status, box.over = "paid", True
            elif rules.natural_paid == "at_once" or (
                    rules.natural_paid == "unless_ace_or_ten"
                    and up[0] != "A" and up[0] not in TEN_VALUE_RANKS):
                for player in hand.open_players():
                    payout, rule = natural_payout(rules, hand.stakes[player])
                    settle_hand(rnd, hand, player, payout, rule + " at once")
                hand.status = "paid"

    # -- decisions ----------------------------------------------------------------------

    def on_decision(self, do: Do) -> None:
        box, player = self.deciding_box(do)
        if do.action == "rescue":
            self.rescue(box, self.rescue_offer)
            return
        self.decide(box, player, do)

    def deciding_box(self, do: Do) -> tuple[Box, str]:
        rnd = self.require_round()
        assert isinstance(do.box, int)
        box = rnd.boxes.get(do.box)
        if box is None or not box.main:
            raise Refused(f"box {do.box} has no hand in play")
        player = do.player or box.owner
        if player not in box.main:
            raise Refused(f"{player} has no bet on box {do.box}")
        return box, player

    def dealer_action_is_stand(self, do: Do) -> None:
        if do.action != "stand":
            raise Refused(f"the dealer's only decision is stand, not {do.action}")

    # -- misdeals, the shoe, flags ------------------------------------------------------

    def resolve_misdeal(self, event: Resolve) -> None:
        rnd = self.require_round()
        halt = rnd.halt
        if halt is None:
            raise Refused("no misdeal is open: nothing to resolve")
        if event.decision == "void":
            self.void_the_round(event)
            return
        if "accept" not in self.rules.misdeal_resolutions:
            raise Refused("this table allows only void after a misdeal")
        if halt.card is not None:
            rnd.burned.append(halt.card)
        rnd.halt = None
        self.phases.fire(f"resume_{halt.resume}")
        if halt.code != DEALER_STOOD_ON_DRAW:
            self.after_resume()

    def void_the_round(self, event: Resolve | None = None) -> None:
        rnd = self.require_round()
        rnd.halt = None
        void(rnd)
        rnd.status = "void"
        self.phases.fire("void_round")

    def load_shoe(self, event: object = None) -> None:
        self.inventory.reload()
        self.new_shoe_due = False

    def reload_mid_round(self, event: object = None) -> None:
        """The cards still to come are from a shoe nobody has seen: one flag, and the pit
        voids the round or lets it go on from the new shoe."""
        self.misdeal(None, SHOE_RELOADED, self.phases.state)

    def reload_while_halted(self, event: object = None) -> None:
        rnd = self.require_round()
        if SHOE_RELOADED not in rnd.flags:
            rnd.flags.append(SHOE_RELOADED)

    def cut_card(self, event: object = None) -> None:
        self.new_shoe_due = True
        if self.round is not None and self.round.status == "open":
            self.round.notices.append(CUT_CARD)

    def flag(self, event: Flag) -> None:
        self.misdeal(None, event.code, self.phases.state)

    def fault(self) -> None:
        """A fault in the table itself: halt the round, keep the table."""
        rnd = self.round
        phase = self.phases.state
        if rnd is not None and phase != "halted":
            rnd.flags.append(INTERNAL_ERROR)
            rnd.halt = Halt(INTERNAL_ERROR, None, phase if phase != "void" else "betting")
            self.phases.force("halted")

    def finish_round(self) -> None:
        rnd = self.require_round()
        self.settle(rnd)
        rnd.status = "settled"
        self.phases.fire("finish")

    # -- what is due --------------------------------------------------------------------

    def due(self) -> Due:
        rnd = self.round
        number = rnd.number if rnd else 0
        phase = self.phases.state
        if rnd is not None and rnd.halt is not None:
            return Due(phase, number, None, None, (), None, True, (rnd.halt.code,), False, None,
                       self.rules.misdeal_resolutions)
        if rnd is None:
            return Due(phase, number, None, None, (), None, False, (), False, None)
        if phase == "dealing":
            target = rnd.deal_queue[rnd.deal_pos]
            return Due(phase, number, None, None, (), None, False, (), True, target)
        if phase == "insurance":
            offered = ("insurance", "even_money", "decline")
            return Due(phase, number, None, None, offered, None, False, (), False, None)
        if phase == "playing":
            box, hand = self.active()
            expects = self.takes_card(hand)
            legal = tuple(self.legal_actions())
            return Due(phase, number, box.number, box.hands.index(hand), legal, None, False, (),
                       expects, box.number if expects else None)
        if phase == "dealer":
            return self.dealer_due(number)
        return Due(phase, number, None, None, (), None, False, (), False, None)

    # -- what a game fills in -----------------------------------------------------------

    # The flag for a dealer card after the round settled.
    card_after_settling = EXTRA_CARD

    def game_transitions(self) -> list[dict[str, Any]]:
        """The game's own triggers and phases."""
        return []

    def after_deal(self, rnd: Round) -> None:
        raise NotImplementedError

    def dealer_card_refused(self, event: Card) -> bool:
        """Whether a card for the dealer now is a misdeal (it has been flagged)."""
        raise NotImplementedError

    def after_dealer_card(self) -> None:
        raise NotImplementedError

    def dealer_stands(self, do: Do) -> None:
        raise NotImplementedError

    def after_resume(self) -> None:
        """A misdeal accepted: the round goes on where it stopped."""

    def settle(self, rnd: Round) -> None:
        raise NotImplementedError

    def dealer_due(self, number: int) -> Due:
        raise NotImplementedError

    def banker_of(self, rnd: Round) -> str | None:
        """Who banks, for the round's result (None: the house)."""
        return None
