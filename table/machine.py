"""The round machine: one table, many rounds, driven by events.

`transitions` models the phases only (betting, dealing, insurance, playing,
dealer, settled, halted, void); each card and decision is handled by plain
methods, so a round costs a handful of triggers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from transitions import Machine

from table import checks, dealer, settlement
from table.cards import IMPOSSIBLE_CARD, TEN_VALUE_RANKS, ShoeInventory
from table.checks import Refused
from table.events import (
    DEALER,
    Bet,
    Card,
    Deal,
    Do,
    Event,
    Flag,
    Resolve,
    ScenarioError,
    ShoeStatus,
    parse_event,
)
from table.hands import hand_value, hard_total, is_natural
from table.payouts import (
    bonus_blackjack,
    is_super_bonus,
    is_triple_seven,
    pontoon_21_bonus,
    ratio,
    sevens_prize,
    win_amount,
)
from table.profiles import Rules
from table.results import hand_results, round_result
from table.round_state import Box, Halt, Hand, Pending, Round
from table.views import BoxView, Due, HandView, Outcome, TableView

# The library logs every trigger at INFO; that alone triples the cost of a round.
logging.getLogger("transitions").setLevel(logging.WARNING)

PHASES = ["betting", "dealing", "insurance", "playing", "dealer", "settled", "halted", "void"]
IN_ROUND = ["dealing", "insurance", "playing", "dealer"]

CARD_TO_EMPTY_BOX = "CARD_TO_EMPTY_BOX"
CARD_OUT_OF_ORDER = "CARD_OUT_OF_ORDER"
EXTRA_CARD = "EXTRA_CARD"
DEALER_DREW_ON_STAND = "DEALER_DREW_ON_STAND"
DEALER_STOOD_ON_DRAW = "DEALER_STOOD_ON_DRAW"
CUT_CARD = "CUT_CARD"
SHOE_RELOADED = "SHOE_RELOADED"
INTERNAL_ERROR = "INTERNAL_ERROR"

OWNER_ONLY = ("hit", "stand", "double", "split", "rescue", "buy", "twist", "timeout")


def _is_seat_name(player: str) -> bool:
    """Box owners are named after their box: `box1` ... `box7`."""
    return player.startswith("box") and player[3:].isdigit()


_ACCEPTED = Outcome(True)
_EVENT_TYPES = (Bet, Deal, Card, Do, Resolve, ShoeStatus, Flag)


class Table:
    """One table under one profile. Feed events with `apply`; ask `due`, `view`, `results`."""

    state: str
    # Triggers that transitions adds to the model (declared for the type checker).
    begin_round: Callable[[], bool]
    start_deal: Callable[[], bool]
    open_insurance: Callable[[], bool]
    start_play: Callable[[], bool]
    start_dealer: Callable[[], bool]
    finish: Callable[[], bool]
    halt: Callable[[], bool]
    void_round: Callable[[], bool]

    def __init__(self, rules: Rules, keep_rounds: int | None = None) -> None:
        """`keep_rounds` bounds the finished rounds kept in memory (None: all, as a replay
        needs); a long-running daemon keeps a few and relies on its journal for the rest."""
        self.rules = rules
        self.keep_rounds = keep_rounds
        self.rounds_played = 0
        self.inventory = ShoeInventory(rules.shoe, rules.decks)
        self.banker = DEALER
        self._rounds: list[Round] = []
        self._round: Round | None = None
        self._events = 0
        self._box_i = 0
        self._hand_i = 0
        self._rescue_hand: Hand | None = None
        self._new_shoe_due = False
        self._rescue_offer: Hand | None = None
        # How far the dealer must draw, fixed when the dealer's turn begins.
        self._need: str | None = None
        # `due()` and `view()` as of event number `_events` (only `apply` changes the table).
        self._due_seen: tuple[int, Due] | None = None
        self._view_seen: tuple[int, TableView] | None = None
        self._handlers: dict[type, Callable[[Any], None]] = {
            Card: self._on_card, Do: self._on_do, Bet: self._on_bet, Deal: self._on_deal,
            Resolve: self._on_resolve, ShoeStatus: self._on_shoe, Flag: self._on_flag,
        }
        self.machine = Machine(
            model=self,
            states=PHASES,
            initial="betting",
            auto_transitions=False,
            queued=True,
            send_event=False,
            on_exception="_on_machine_error",
        )
        add: Any = self.machine.add_transition
        add("begin_round", ["betting", "settled", "void"], "betting")
        add("start_deal", "betting", "dealing")
        add("open_insurance", "dealing", "insurance")
        add("start_play", ["dealing", "insurance"], "playing")
        add("start_dealer", ["dealing", "insurance", "playing"], "dealer")
        add("finish", IN_ROUND, "settled")
        add("halt", ["betting", "settled"] + IN_ROUND, "halted")
        add("void_round", ["betting", "halted"] + IN_ROUND, "void")
        for phase in ["betting", "settled"] + IN_ROUND:
            add(f"resume_{phase}", "halted", phase)

    # -- the public API -------------------------------------------------------------

    def apply(self, event: Event | Mapping[str, Any], position: str | None = None,
              *, keep_refused: bool = True) -> Outcome:
        """Feed one event (parsed, or its scenario dict). A refused or malformed event
        changes nothing; the outcome says why. It is noted in the round's `refused`
        list, unless `keep_refused` is False: then it leaves no trace at all, as if it
        had never come (the local API's callers are told, and nothing is journaled)."""
        events_before, offer_before, hand_before = (
            self._events, self._rescue_offer, self._rescue_hand)
        self._events += 1
        if not isinstance(event, _EVENT_TYPES):
            try:
                event = parse_event(event, position or self._events)
            except ScenarioError as error:
                if not keep_refused:
                    self._events = events_before
                    return Outcome(False, str(error))
                return self._refuse(None, position, str(error), event)
        self._rescue_offer = self._rescue_hand
        self._rescue_hand = None
        rnd = self._round
        flags_before = len(rnd.flags) if rnd else 0
        try:
            handler = self._handlers.get(type(event))
            if handler is None:
                raise Refused(f"unknown event {event!r}")
            handler(event)
        except Refused as refusal:
            if not keep_refused:
                self._events, self._rescue_offer, self._rescue_hand = (
                    events_before, offer_before, hand_before)
                return Outcome(False, str(refusal))
            return self._refuse(event, position, str(refusal))
        except Exception as exc:  # a fault in the table itself: halt the round, keep the table
            self._on_machine_error(None)
            return self._refuse(event, position, f"internal error, the round is halted: {exc!r}")
        now = self._round
        if now is None or (now is rnd and len(now.flags) == flags_before):
            return _ACCEPTED
        return Outcome(True, None, tuple(now.flags[flags_before if now is rnd else 0:]))

    def _refuse(self, event: Event | None, position: str | None, reason: str,
                raw: object = None) -> Outcome:
        where = position or f"event {self._events}"
        if self._round is not None:
            self._round.refused.append(
                {"position": where, "event": event.to_json() if event is not None else raw,
                 "reason": reason}
            )
        return Outcome(False, reason)

    def due(self) -> Due:
        """What the table expects now."""
        seen = self._due_seen
        if seen is None or seen[0] != self._events:
            seen = self._due_seen = (self._events, self._make_due())
        return seen[1]

    def _make_due(self) -> Due:
        rnd = self._round
        number = rnd.number if rnd else 0
        phase = self.state
        if rnd is not None and rnd.halt is not None:
            return Due(phase, number, None, None, (), None, True, (rnd.halt.code,), False, None,
                       self.rules.misdeal_resolutions)
        if phase == "dealing" and rnd is not None:
            target = rnd.deal_queue[rnd.deal_pos]
            return Due(phase, number, None, None, (), None, False, (), True, target)
        if phase == "insurance" and rnd is not None:
            offered = ("insurance", "even_money", "decline")
            return Due(phase, number, None, None, offered, None, False, (), False, None)
        if phase == "playing" and rnd is not None:
            box, hand = self._active()
            expects = checks.hand_takes_card(self.rules, hand)
            legal = tuple(self.legal_actions())
            return Due(phase, number, box.number, box.hands.index(hand), legal, None, False, (),
                       expects, box.number if expects else None)
        if phase == "dealer" and rnd is not None:
            if self.rules.game == "banker":
                # The banker plays at will: no draw rule to announce.
                return Due(phase, number, None, None, ("stand",), None, False, (), True, DEALER)
            instruction = "stand" if self._dealer_done() else "draw"
            return Due(phase, number, None, None, (), instruction, False, (),
                       instruction == "draw", DEALER if instruction == "draw" else None)
        return Due(phase, number, None, None, (), None, False, (), False, None)

    @property
    def new_shoe_due(self) -> bool:
        """The cut card came out: finish the round, then a freshly shuffled shoe."""
        return self._new_shoe_due

    def legal_actions(self) -> list[str]:
        """The decisions the active hand's owner may take now."""
        if self.state != "playing" or self._round is None:
            return []
        box, hand = self._active()
        legal = []
        for action in ("hit", "stand", "double", "split", "surrender", "buy", "twist",
                       "timeout"):
            try:
                checks.check_action(self.rules, self._round, box, hand, action, None)
            except Refused:
                continue
            legal.append(action)
        return legal

    def view(self) -> TableView:
        """A snapshot of the table (frozen: safe to hand to other threads)."""
        seen = self._view_seen
        if seen is None or seen[0] != self._events:
            seen = self._view_seen = (self._events, self._make_view())
        return seen[1]

    def _make_view(self) -> TableView:
        rnd = self._round
        boxes: list[BoxView] = []
        active_box = None
        if self.state == "playing" and rnd is not None:
            active_box = self._active()[0].number
        if rnd is not None:
            results = hand_results(rnd)
            for number in sorted(rnd.boxes):
                box = rnd.boxes[number]
                bets = tuple(sorted(
                    [(player, "main", amount) for player, amount in box.main.items()]
                    + [(player, spot, amount) for (player, spot), amount in box.side.items()]
                    + [(player, "insurance", amount) for player, amount in box.insurance.items()]
                ))
                hands = tuple(
                    HandView(i, tuple(hand.cards), *hand.total_and_soft(),
                             tuple(hand.stakes.items()), hand.status, results.get((number, i)))
                    for i, hand in enumerate(box.hands)
                )
                boxes.append(BoxView(number, box.owner, bets, hands, number == active_box))
        dealer = tuple(rnd.dealer) if rnd else ()
        total, soft = hand_value(dealer) if dealer else (0, False)
        return TableView(
            rnd.number if rnd else 0, self.state, tuple(boxes), dealer, total, soft,
            tuple(rnd.flags) if rnd else (), bool(rnd and rnd.halt), self.banker,
        )

    def results(self, since: int = 0) -> list[dict[str, Any]]:
        """One result object per round kept, oldest first; `since` skips rounds numbered
        up to it (a caller that recorded rounds 1..n asks for `since=n`)."""
        return [self._result(rnd) for rnd in self._rounds if rnd.number > since]

    def current_result(self) -> dict[str, Any] | None:
        return self._result(self._round) if self._round is not None else None

    def _result(self, rnd: Round) -> dict[str, Any]:
        return round_result(rnd, self.banker if self.rules.game == "banker" else None)

    # -- events ---------------------------------------------------------------------

    def _require_round(self) -> Round:
        if self._round is None:
            raise Refused("no round is open: place a bet first")
        return self._round

    def _open_round(self) -> Round:
        """The first bet after a finished round opens the next one."""
        if self._round is None or self.state in ("settled", "void"):
            if self._round is not None and self._round.status not in ("settled", "void"):
                raise Refused("the round is not finished")
            self.rounds_played += 1
            rnd = Round(self.rounds_played)
            self._rounds.append(rnd)
            if self.keep_rounds is not None and len(self._rounds) > self.keep_rounds:
                del self._rounds[: len(self._rounds) - max(self.keep_rounds, 1)]
            self._round = rnd
            if self.rules.inventory_per_round:
                self.inventory.reload()
            if self.state != "betting":
                self.begin_round()
        return self._round

    def _on_bet(self, bet: Bet) -> None:
        rules = self.rules
        if self.state == "halted":
            raise Refused("the round is halted on a misdeal: resolve it (void or accept) first")
        if self.state == "dealing" and rules.game == "banker":
            self._raise_banker_stake(bet)
            return
        if self.state not in ("betting", "settled", "void"):
            raise Refused(f"bets are closed ({self.state}); wait for the next round")
        if bet.box > rules.max_boxes:
            raise Refused(f"box {bet.box} does not exist: this table has {rules.max_boxes} boxes")
        owner = f"box{bet.box}"
        player = bet.player or owner
        rnd = self._round
        box = rnd.boxes.get(bet.box) if rnd is not None and self.state == "betting" else None
        if bet.spot == "main":
            if player != owner and _is_seat_name(player):
                raise Refused(f"{player} is seated at box {player[3:]}: a seated player cannot "
                              "bet behind another box in the same round")
            if player != owner and (box is None or owner not in box.main):
                raise Refused(f"box {bet.box} has no owner's bet yet: {owner} bets first")
            if bet.amount < rules.min_bet:
                raise Refused(f"the table minimum is {rules.min_bet}; {bet.amount} is too little")
            if box is not None and player not in box.main and rules.max_bettors_per_box and len(
                    box.main) >= rules.max_bettors_per_box:
                raise Refused(f"box {bet.box} already has {rules.max_bettors_per_box} bettors")
            total = (sum(box.main.values()) if box else 0) + bet.amount
            if rules.max_box_total and total > rules.max_box_total:
                raise Refused(f"box {bet.box} would hold {total}; the box limit is "
                              f"{rules.max_box_total}")
        else:
            if bet.spot not in rules.side_bets:
                offered = ", ".join(rules.side_bets) or "none"
                raise Refused(f"side bet {bet.spot!r} is not offered here (offered: {offered})")
            if box is None or player not in box.main:
                raise Refused(f"a {bet.spot} bet needs {player}'s main bet on box {bet.box} first")
            if bet.spot == "sevens":
                already = box.side.get((player, "sevens"), 0) + bet.amount
                if not (rules.sevens_min <= already <= rules.sevens_max
                        and already % rules.sevens_step == 0):
                    raise Refused(f"sevens stakes are {rules.sevens_min} to {rules.sevens_max} "
                                  f"in steps of {rules.sevens_step}; {already} is not")
        rnd = self._open_round()
        box = rnd.boxes.get(bet.box)
        if box is None:
            box = rnd.boxes[bet.box] = Box(bet.box, owner)
        if bet.spot == "main":
            box.main[player] = box.main.get(player, 0) + bet.amount
        else:
            box.side[(player, bet.spot)] = box.side.get((player, bet.spot), 0) + bet.amount

    def _raise_banker_stake(self, bet: Bet) -> None:
        rnd = self._require_round()
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

    def _on_deal(self, event: Deal | None = None) -> None:
        self._need = None
        if self.state != "betting" or self._round is None:
            raise Refused("no bets to deal to: place a bet first" if self.state != "halted"
                          else "the round is halted on a misdeal: resolve it first")
        rnd = self._round
        rnd.order = sorted(number for number, box in rnd.boxes.items() if box.main)
        if not rnd.order:
            raise Refused("no main bet on the table: nothing to deal")
        for number in rnd.order:
            box = rnd.boxes[number]
            stakes = dict(box.main)
            box.hands.append(Hand(number, [], stakes, dict(stakes)))
        queue: list[int | str] = list(rnd.order) + [DEALER] + list(rnd.order)
        if self.rules.hole_card == "peek" or self.rules.game == "banker":
            queue.append(DEALER)
        rnd.deal_queue = queue
        rnd.deal_pos = 0
        self.start_deal()

    # -- cards ----------------------------------------------------------------------

    def _on_card(self, event: Card) -> None:
        phase = self.state
        if phase == "halted":
            raise Refused("the round is halted on a misdeal: resolve it (void or accept) first")
        if phase == "void" or self._round is None:
            self._open_round()
            phase = self.state
        card = event.card
        if not self.inventory.can_hold(card):
            self._misdeal(event, IMPOSSIBLE_CARD, phase, counted=False)
            return
        rnd = self._require_round()
        if phase == "betting":
            self._misdeal(event, self._wrong_place_code(event.box, EXTRA_CARD), phase)
        elif phase == "settled":
            if isinstance(event.box, int):
                self._misdeal(event, self._wrong_place_code(event.box, CARD_OUT_OF_ORDER), phase)
            elif self.rules.game == "banker":
                self._misdeal(event, EXTRA_CARD, phase)
            else:
                self._misdeal(event, DEALER_DREW_ON_STAND, phase)
        elif phase == "dealing":
            target = rnd.deal_queue[rnd.deal_pos]
            if event.box is not None and event.box != target:
                self._misdeal(event, self._wrong_place_code(event.box, CARD_OUT_OF_ORDER), phase)
                return
            self.inventory.take(card)
            self._deal_card(target, card)
        elif phase == "insurance":
            self._close_insurance()
            self._on_card(event)
        elif phase == "playing":
            box, hand = self._active()
            if event.box is not None and event.box != box.number:
                self._misdeal(event, self._wrong_place_code(event.box, CARD_OUT_OF_ORDER), phase)
                return
            if not checks.hand_takes_card(self.rules, hand):
                owed = next((h for h in box.hands if h.owed and not h.done), None)
                if owed is None:
                    self._misdeal(event, EXTRA_CARD, phase)
                    return
                hand = owed
            self.inventory.take(card)
            self._give_card(box, hand, card)
        elif phase == "dealer":
            if event.box is not None and event.box != DEALER:
                self._misdeal(event, self._wrong_place_code(event.box, CARD_OUT_OF_ORDER), phase)
                return
            if self.rules.game != "banker" and self._dealer_done():
                self._misdeal(event, DEALER_DREW_ON_STAND, phase)
                return
            self.inventory.take(card)
            rnd.dealer.append(card)
            self._after_dealer_card()

    def _wrong_place_code(self, box: int | str | None, otherwise: str) -> str:
        rnd = self._round
        if isinstance(box, int) and (rnd is None or box not in rnd.boxes
                                     or not rnd.boxes[box].main):
            return CARD_TO_EMPTY_BOX
        return otherwise

    def _misdeal(self, event: Card | None, code: str, resume: str, counted: bool = True) -> None:
        rnd = self._require_round()
        card = event.card if event is not None else None
        if card is not None and counted:
            self.inventory.take(card)
        rnd.flags.append(code)
        rnd.halt = Halt(code, card, resume)
        self.halt()

    def _deal_card(self, target: int | str, card: str) -> None:
        rnd = self._round
        assert rnd is not None
        if target == DEALER:
            rnd.dealer.append(card)
        else:
            assert isinstance(target, int)
            box = rnd.boxes[target]
            box.hands[0].cards.append(card)
            box.dealt.append(card)
            if len(box.dealt) == 2 and rnd.dealer:
                settlement.settle_side_bets_at_deal(self.rules, rnd, box)
        rnd.deal_pos += 1
        if rnd.deal_pos == len(rnd.deal_queue):
            self._after_deal()

    def _after_deal(self) -> None:
        rnd = self._require_round()
        rules = self.rules
        up = rnd.dealer[0]
        for number in rnd.order:
            box = rnd.boxes[number]
            hand = box.hands[0]
            if is_natural(hand.cards):
                hand.status, hand.done = "natural", True
                if rules.bonus_blackjack_pays != "none" and bonus_blackjack(hand.cards):
                    odds = ratio(rules.bonus_blackjack_pays)
                    for player in hand.open_players():
                        stake = hand.stakes[player]
                        settlement.settle_hand_player(
                            rnd, hand, player, stake + win_amount(stake, odds),
                            f"Bonus Black Jack {rules.bonus_blackjack_pays} at once")
                    hand.status, box.over = "paid", True
                elif rules.natural_paid == "at_once" or (
                        rules.natural_paid == "unless_ace_or_ten"
                        and up[0] != "A" and up[0] not in TEN_VALUE_RANKS):
                    self._pay_natural_now(hand)
        if rules.game == "banker":
            if is_natural(rnd.dealer):
                for number in rnd.order:
                    hand = rnd.boxes[number].hands[0]
                    for player in hand.open_players():
                        settlement.book(rnd, player, "main", number, 0, hand.stakes[player],
                                        -hand.stakes[player], "banker's pontoon collects double")
                        hand.settled.add(player)
                self._finish_round()
                return
            self.start_play()
            self._box_i, self._hand_i = 0, 0
            self._advance()
            return
        if rules.insurance and up[0] == "A" and self._anyone_open():
            self.open_insurance()
            return
        self._after_insurance()

    def _pay_natural_now(self, hand: Hand) -> None:
        rnd = self._require_round()
        for player in hand.open_players():
            payout, rule = settlement.natural_payout(self.rules, hand.stakes[player])
            settlement.settle_hand_player(rnd, hand, player, payout, rule + " at once")
        hand.status = "paid"

    def _anyone_open(self) -> bool:
        rnd = self._require_round()
        return any(hand.open_players() for box in rnd.boxes.values() for hand in box.hands)

    def _close_insurance(self) -> None:
        """No answer is a decline: the first box plays."""
        self._after_insurance()

    def _after_insurance(self) -> None:
        rnd = self._require_round()
        if self.rules.hole_card == "peek" and is_natural(rnd.dealer):
            self._settle_peeked_natural()
            return
        self.start_play()
        self._box_i, self._hand_i = 0, 0
        self._advance()

    def _settle_peeked_natural(self) -> None:
        """A dealer blackjack found by the peek: only the original bets are at stake."""
        rnd = self._require_round()
        self.start_dealer()
        self._finish_round()
        del rnd

    # -- play -----------------------------------------------------------------------

    def _active(self) -> tuple[Box, Hand]:
        rnd = self._round
        assert rnd is not None
        box = rnd.boxes[rnd.order[self._box_i]]
        return box, box.hands[self._hand_i]

    def _advance(self) -> None:
        """Move to the next hand that needs the table's attention, or to the dealer."""
        rnd = self._round
        assert rnd is not None
        while self._box_i < len(rnd.order):
            box = rnd.boxes[rnd.order[self._box_i]]
            if not box.over:
                while self._hand_i < len(box.hands):
                    hand = box.hands[self._hand_i]
                    if not hand.done:
                        if len(hand.cards) < 2 and hand.owed == 0:
                            hand.owed = 1
                        return
                    self._hand_i += 1
            self._judge_prizes(box)
            self._box_i += 1
            self._hand_i = 0
        self._enter_dealer()

    def _give_card(self, box: Box, hand: Hand, card: str) -> None:
        rules = self.rules
        rnd = self._round
        assert rnd is not None
        hand.cards.append(card)
        box.dealt.append(card)
        if hand.owed:
            hand.owed -= 1
        hand.card_asked = False
        if len(hand.cards) > 2:
            hand.decisions += 1
        total = hand.total()
        if total > 21:
            self._end_hand(hand, "bust")
            return
        if rules.triple_seven != "none" and not hand.from_split and is_triple_seven(hand.cards):
            odds = ratio(rules.triple_seven_pays)
            if rules.triple_seven == "at_once_ends_box":
                for player in hand.open_players():
                    stake = hand.stakes[player]
                    settlement.settle_hand_player(
                        rnd, hand, player, stake + win_amount(stake, odds),
                        f"triple seven {rules.triple_seven_pays} at once")
                hand.status = "paid"
                box.over = True
                self._end_hand(hand, "paid")
                return
            for player in hand.open_players():
                stake = hand.stakes[player]
                settlement.book(rnd, player, "main", box.number, rnd.hand_index(hand), 0,
                                win_amount(stake, odds),
                                f"three sevens {rules.triple_seven_pays} at once, stake plays on")
        if total == 21 and rules.twenty_one_wins_at_once:
            self._pay_21_now(box, hand)
            return
        if total == 21:
            self._end_hand(hand, "stood")
            return
        if hand.doubles and hand.owed == 0 and not rules.hit_after_double:
            if rules.double_down_rescue:
                self._rescue_hand = hand
            self._end_hand(hand, "stood")
            return
        if hand.split_ace and len(hand.cards) == 2:
            if not (card[0] == "A" and rules.resplit_aces and checks.split_room(self.rules, box)):
                self._end_hand(hand, "stood")
                return
        if rules.max_hand_cards and len(hand.cards) >= rules.max_hand_cards:
            self._end_hand(hand, "stood")
            return
        if hand.autoplay and total > 11:
            self._end_hand(hand, "stood")

    def _pay_21_now(self, box: Box, hand: Hand) -> None:
        """A player's 21 wins at once (Spanish-21 family), with its bonus."""
        rules = self.rules
        rnd = self._require_round()
        up = rnd.dealer[0]
        super_bonus = (rules.pontoon_bonuses and not hand.doubles and not hand.from_split
                       and is_super_bonus(hand.cards, up))
        bonus = pontoon_21_bonus(hand.cards) if rules.pontoon_bonuses and not hand.doubles \
            else None
        paid_super = False
        for player in hand.open_players():
            stake = hand.stakes[player]
            if super_bonus and stake >= rules.super_bonus_min_stake:
                fixed = (rules.super_bonus_large if stake >= rules.super_bonus_large_from
                         else rules.super_bonus_small)
                settlement.settle_hand_player(rnd, hand, player, stake + fixed,
                                              f"super bonus {fixed}")
                paid_super = True
            elif bonus is not None:
                settlement.settle_hand_player(rnd, hand, player,
                                              stake + win_amount(stake, bonus[0]), bonus[1])
            else:
                settlement.settle_hand_player(rnd, hand, player, stake * 2, "21 wins at once")
        if paid_super:
            self._pay_envy(hand)
        self._end_hand(hand, "paid")

    def _pay_envy(self, lucky: Hand) -> None:
        rnd = self._require_round()
        for number in rnd.order:
            box = rnd.boxes[number]
            for player in box.main:
                if player in lucky.stakes:
                    continue
                settlement.book(rnd, player, "main", number, None, 0, self.rules.envy_bonus,
                                f"envy bonus {self.rules.envy_bonus}")

    def _end_hand(self, hand: Hand, status: str) -> None:
        if not hand.done:
            hand.done = True
            if hand.status in ("playing",) or status in ("bust", "paid", "surrendered",
                                                          "late_surrender", "rescued"):
                hand.status = status
        if self.state == "playing":
            self._advance()

    def _judge_prizes(self, box: Box) -> None:
        """ru-casino prizes on the main bet: judged when the box's dealing finishes."""
        if not self.rules.sevens_prizes or len(box.hands) != 1:
            return
        hand = box.hands[0]
        prize = sevens_prize(hand.cards)
        if prize is None:
            return
        rnd = self._require_round()
        for player, stake in hand.stakes.items():
            settlement.book(rnd, player, "main", box.number, 0, 0, win_amount(stake, prize[0]),
                            prize[1] + ", stake plays on")

    # -- decisions ------------------------------------------------------------------

    def _on_do(self, do: Do) -> None:
        rescue_hand = self._rescue_offer
        phase = self.state
        if phase == "halted":
            raise Refused("the round is halted on a misdeal: resolve it (void or accept) first")
        if do.box == DEALER:
            self._dealer_decision(do)
            return
        rnd = self._require_round()
        assert isinstance(do.box, int)
        box = rnd.boxes.get(do.box)
        if box is None or not box.main or phase in ("betting", "settled", "void"):
            if phase in ("settled", "void"):
                raise Refused("the round is over: no decision is open")
            raise Refused(f"box {do.box} has no hand in play")
        owner = box.owner
        player = do.player or owner
        if player not in box.main:
            raise Refused(f"{player} has no bet on box {do.box}")
        action = do.action
        if action == "rescue":
            self._rescue(box, rescue_hand)
            return
        if phase == "insurance":
            if action in ("insurance", "even_money", "decline") and not (
                    action == "decline" and self._pending_for(box, player)):
                self._insurance_decision(box, player, action, do.amount)
                return
            if player == owner and action in OWNER_ONLY + ("surrender",):
                self._check_first_to_play(box, action, do.amount)
            self._close_insurance()
            self._rescue_offer = None
            self._on_do(do)
            return
        if action in ("insurance", "even_money"):
            raise Refused(f"{action} is offered only against a dealer ace, before the first box "
                          "plays")
        if action in ("follow", "decline"):
            self._co_bettor_choice(box, player, action)
            return
        if player != owner:
            if action == "surrender" and self.rules.co_bettor_surrender:
                self._co_bettor_surrender(box, player)
                return
            raise Refused(f"only the box owner ({owner}) decides the play of box {do.box}; "
                          f"{player} may answer follow/decline, insurance or even money")
        if phase != "playing":
            raise Refused(f"no box is playing now ({phase})")
        active_box, hand = self._active()
        if active_box is not box:
            raise Refused(f"box {do.box} is not up: box {active_box.number} plays now")
        checks.check_action(self.rules, rnd, box, hand, action, do.amount)
        self._perform(action, box, hand, do.amount)

    def _check_first_to_play(self, box: Box, action: str, amount: int | None) -> None:
        """Check a play decision that would close the insurance window, changing nothing."""
        rnd = self._require_round()
        for number in rnd.order:
            first = rnd.boxes[number]
            hand = next((h for h in first.hands if not h.done), None)
            if first.over or hand is None:
                continue
            if first is not box:
                raise Refused(f"box {box.number} is not up: box {number} plays first")
            checks.check_action(self.rules, rnd, box, hand, action, amount)
            return
        raise Refused("no box has a hand to play")

    def _perform(self, action: str, box: Box, hand: Hand, amount: int | None) -> None:
        rules = self.rules
        rnd = self._require_round()
        if action == "hit":
            return
        hand.decisions += 1
        if action == "stand":
            self._end_hand(hand, "stood")
        elif action == "timeout":
            if hand.total() <= 11:
                hand.autoplay = True
            else:
                self._end_hand(hand, "stood")
        elif action == "double":
            hand.doubles += 1
            owner = box.owner
            hand.stakes[owner] += hand.originals[owner]
            if rules.double_ace_counts_one:
                hand.ace_as_one = True
            others = {p for p in hand.open_players() if p != owner}
            if others and rules.co_bettor_double == "ask":
                box.pending.append(Pending("double", hand, others))
            hand.owed = 1
        elif action == "split":
            self._split(box, hand)
        elif action == "surrender":
            if rules.surrender == "early":
                for player in hand.open_players():
                    settlement.settle_hand_player(rnd, hand, player, hand.stakes[player] // 2,
                                                  "early surrender, half back")
                self._end_hand(hand, "surrendered")
            else:
                self._end_hand(hand, "late_surrender")
        elif action == "buy":
            original = next(iter(hand.originals.values()))
            chips = amount if amount is not None else original
            hand.buys.append(chips)
            hand.stakes[box.owner] += chips
            hand.card_asked = True
        elif action == "twist":
            hand.twisted = True
            hand.card_asked = True

    def _split(self, box: Box, hand: Hand) -> None:
        rules = self.rules
        owner = box.owner
        index = box.hands.index(hand)
        first, second = hand.cards
        aces = first[0] == "A" and rules.split_aces_one_card
        new_stakes = {owner: hand.originals[owner]}
        others = [p for p in hand.stakes if p != owner]
        pending: set[str] = set()
        for player in others:
            if rules.co_bettor_split in ("follow", "may_decline"):
                new_stakes[player] = hand.originals[player]
            if rules.co_bettor_split != "follow":
                pending.add(player)
        new_hand = Hand(box.number, [second], new_stakes, dict(new_stakes), from_split=True,
                        split_ace=aces)
        hand.cards = [first]
        hand.from_split = True
        hand.split_ace = aces
        hand.owed = 1
        box.hands.insert(index + 1, new_hand)
        if rules.split_deals_both_hands:
            new_hand.owed = 1
        if pending:
            box.pending.append(Pending("split", new_hand, pending))

    def _pending_for(self, box: Box, player: str) -> Pending | None:
        for pending in reversed(box.pending):
            if player in pending.players:
                return pending
        return None

    def _co_bettor_choice(self, box: Box, player: str, action: str) -> None:
        if player == box.owner:
            raise Refused("follow/decline is a co-bettor's answer to the owner's split or double")
        pending = self._pending_for(box, player)
        if pending is None:
            if action == "follow" and self.rules.co_bettor_double == "never":
                raise Refused("co-bettors cannot double at this table")
            raise Refused(f"{player} has no split or double to follow on box {box.number}")
        pending.players.discard(player)
        hand = pending.hand
        original = box.main[player]
        if pending.kind == "double" and action == "follow":
            hand.stakes[player] += original
        elif pending.kind == "split":
            if action == "follow" and player not in hand.stakes:
                hand.stakes[player] = original
                hand.originals[player] = original
            elif action == "decline" and player in hand.stakes and not hand.settled & {player}:
                del hand.stakes[player]
                del hand.originals[player]

    def _co_bettor_surrender(self, box: Box, player: str) -> None:
        if self.state != "playing":
            raise Refused("no box is playing now")
        active_box, hand = self._active()
        if active_box is not box:
            raise Refused(f"box {box.number} is not up")
        rnd = self._require_round()
        checks.check_surrender(self.rules, rnd.dealer[0], hand)
        if player not in hand.open_players():
            raise Refused(f"{player} has no open stake on this hand")
        settlement.settle_hand_player(rnd, hand, player, hand.stakes[player] // 2,
                                      "early surrender, half back")

    def _rescue(self, box: Box, hand: Hand | None) -> None:
        if not self.rules.double_down_rescue:
            raise Refused("this table has no double-down rescue")
        if hand is None or hand.box != box.number or hand.status != "stood":
            raise Refused("a rescue is decided at once, right after the double's card")
        rnd = self._require_round()
        for player in hand.open_players():
            stake = hand.stakes[player]
            settlement.settle_hand_player(rnd, hand, player, stake - hand.originals[player],
                                          "double-down rescue: the original bet is lost")
        hand.status = "rescued"
        self._need = None
        if self.state == "dealer" and self._dealer_done():
            self._finish_round()

    def _insurance_decision(self, box: Box, player: str, action: str, amount: int | None) -> None:
        rules = self.rules
        rnd = self._require_round()
        hand = box.hands[0]
        if action == "decline":
            if player == box.owner:
                box.insurance_answered = True
        elif action == "insurance":
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
            if player == box.owner:
                box.insurance_answered = True
        else:
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
                settlement.settle_hand_player(rnd, hand, payee, hand.stakes[payee] * 2,
                                              "even money, booked on the main bet")
            if player == box.owner:
                box.insurance_answered = True
        if all(rnd.boxes[n].insurance_answered for n in rnd.order):
            self._close_insurance()

    # -- the dealer -----------------------------------------------------------------

    def _enter_dealer(self) -> None:
        rnd = self._require_round()
        for box in rnd.boxes.values():
            box.pending.clear()
        self.start_dealer()
        self._need = dealer.dealer_need(self.rules, rnd)
        if self.rules.game == "banker":
            if not any(h.open_players() for b in rnd.boxes.values() for h in b.hands
                       if h.status != "bust"):
                self._finish_round()
            return
        if self._dealer_done():
            self._finish_round()

    def _dealer_done(self) -> bool:
        rnd = self._round
        assert rnd is not None
        need = self._need if self._need is not None else dealer.dealer_need(self.rules, rnd)
        return dealer.dealer_complete(self.rules, rnd.dealer, need)

    def dealer_must_draw(self, cards: list[str]) -> bool:
        return dealer.must_draw(self.rules, cards)

    def _after_dealer_card(self) -> None:
        rnd = self._round
        assert rnd is not None
        if self.rules.game == "banker":
            if hard_total(rnd.dealer) > 21 or len(rnd.dealer) >= (self.rules.max_hand_cards or 99):
                self._finish_round()
            return
        if self._dealer_done():
            self._finish_round()

    def _dealer_decision(self, do: Do) -> None:
        if do.action != "stand":
            raise Refused(f"the dealer's only decision is stand, not {do.action}")
        phase = self.state
        if phase == "settled":
            return
        if phase != "dealer":
            raise Refused(f"the dealer is not playing now ({phase})")
        if self.rules.game == "banker":
            self._finish_round()
            return
        if self._dealer_done():
            return
        rnd = self._require_round()
        rnd.flags.append(DEALER_STOOD_ON_DRAW)
        rnd.halt = Halt(DEALER_STOOD_ON_DRAW, None, "dealer")
        self.halt()

    # -- the end of a round ---------------------------------------------------------

    def _finish_round(self) -> None:
        rnd = self._require_round()
        if self.rules.game == "banker":
            settlement.settle_banker(self.rules, rnd)
            rnd.next_banker = self._next_banker(rnd)
            self.banker = rnd.next_banker
        else:
            settlement.settle_casino(self.rules, rnd)
        rnd.status = "settled"
        self.finish()

    def _next_banker(self, rnd: Round) -> str:
        if is_natural(rnd.dealer):
            return self.banker
        for number in rnd.order:
            hand = rnd.boxes[number].hands[0]
            if not hand.from_split and hand.status == "natural":
                return rnd.boxes[number].owner
        return self.banker

    def _on_resolve(self, event: Resolve) -> None:
        rnd = self._round
        if rnd is None or rnd.halt is None:
            if event.decision == "void" and rnd is not None and self.state in IN_ROUND:
                self._void(rnd)
                return
            raise Refused("no misdeal is open: nothing to resolve")
        if event.decision == "void":
            self._void(rnd)
            return
        if "accept" not in self.rules.misdeal_resolutions:
            raise Refused("this table allows only void after a misdeal")
        halt = rnd.halt
        if halt.card is not None:
            rnd.burned.append(halt.card)
        rnd.halt = None
        getattr(self, f"resume_{halt.resume}")()
        if halt.code == DEALER_STOOD_ON_DRAW:
            return
        if self.state == "dealer" and self.rules.game != "banker" and self._dealer_done():
            self._finish_round()

    def _void(self, rnd: Round) -> None:
        rnd.halt = None
        rnd.ledger.clear()
        for box in rnd.boxes.values():
            for hand in box.hands:
                hand.settled.clear()
        rnd.status = "void"
        self.void_round()

    def _on_shoe(self, event: ShoeStatus) -> None:
        if event.status == "loaded":
            self.inventory.reload()
            self._new_shoe_due = False
            if self.state in IN_ROUND:
                # The cards still to come are from a shoe nobody has seen: one flag, and
                # the pit voids the round or lets it go on from the new shoe.
                self._misdeal(None, SHOE_RELOADED, self.state)
            elif self.state == "halted" and SHOE_RELOADED not in self._require_round().flags:
                self._require_round().flags.append(SHOE_RELOADED)
            return
        self._new_shoe_due = True
        if self._round is not None and self._round.status == "open":
            self._round.notices.append(CUT_CARD)

    def _on_flag(self, event: Flag) -> None:
        rnd = self._round
        if event.code == CUT_CARD:
            self._on_shoe(ShoeStatus("cut_card"))
            return
        if rnd is None or self.state in ("void", "halted"):
            raise Refused(f"{event.code} outside a round: nothing to halt")
        self._misdeal(None, event.code, self.state)

    def _on_machine_error(self, event_data: Any) -> None:
        rnd = self._round
        phase = self.state
        if rnd is not None and phase != "halted":
            rnd.flags.append(INTERNAL_ERROR)
            rnd.halt = Halt(INTERNAL_ERROR, None, phase if phase != "void" else "betting")
            self.machine.set_state("halted", model=self)
