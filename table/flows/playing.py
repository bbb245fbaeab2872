"""The boxes' play: whose hand is up, cards to hands, the owner's decisions, co-bettors."""

from __future__ import annotations

from table.checks import GameChecks, Refused, check_action, check_surrender, split_room
from table.events import Do
from table.flows.state import FlowState
from table.ledger import pay, settle_hand
from table.payouts import (
    is_super_bonus,
    is_triple_seven,
    pontoon_21_bonus,
    ratio,
    sevens_prize,
    win_amount,
)
from table.round_state import Box, Hand, Pending

ACTIONS = ("hit", "stand", "double", "split", "surrender", "buy", "twist", "timeout")


class Playing(FlowState, GameChecks):
    """The play of the boxes' hands, the same in every game."""

    def enter_dealer(self) -> None:
        raise NotImplementedError

    def finish_round(self) -> None:
        raise NotImplementedError

    def legal_actions(self) -> list[str]:
        """The decisions the active hand's owner may take now."""
        if self.phases.state != "playing" or self.round is None:
            return []
        box, hand = self.active()
        legal = []
        for action in ACTIONS:
            try:
                check_action(self.rules, self, self.round, box, hand, action, None)
            except Refused:
                continue
            legal.append(action)
        return legal

    def start_play(self) -> None:
        self.phases.fire("start_play")
        self.box_i, self.hand_i = 0, 0
        self.advance()

    def advance(self) -> None:
        """Move to the next hand that needs the table's attention, or to the dealer."""
        rnd = self.round
        assert rnd is not None
        while self.box_i < len(rnd.order):
            box = rnd.boxes[rnd.order[self.box_i]]
            if not box.over:
                while self.hand_i < len(box.hands):
                    hand = box.hands[self.hand_i]
                    if not hand.done:
                        if len(hand.cards) < 2 and hand.owed == 0:
                            hand.owed = 1
                        return
                    self.hand_i += 1
            self.judge_prizes(box)
            self.box_i += 1
            self.hand_i = 0
        self.enter_dealer()

    def card_to_hand(self, card: str) -> bool:
        """The card leaving the shoe in the playing phase: False if no hand takes it."""
        box, hand = self.active()
        if not self.takes_card(hand):
            owed = next((h for h in box.hands if h.owed and not h.done), None)
            if owed is None:
                return False
            hand = owed
        self.inventory.take(card)
        self.give_card(box, hand, card)
        return True

    def give_card(self, box: Box, hand: Hand, card: str) -> None:
        rules = self.rules
        rnd = self.round
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
            self.end_hand(hand, "bust")
            return
        if rules.triple_seven != "none" and not hand.from_split and is_triple_seven(hand.cards):
            odds = ratio(rules.triple_seven_pays)
            if rules.triple_seven == "at_once_ends_box":
                for player in hand.open_players():
                    stake = hand.stakes[player]
                    settle_hand(rnd, hand, player, stake + win_amount(stake, odds),
                                f"triple seven {rules.triple_seven_pays} at once")
                hand.status = "paid"
                box.over = True
                self.end_hand(hand, "paid")
                return
            for player in hand.open_players():
                stake = hand.stakes[player]
                pay(rnd, player, "main", box.number, rnd.hand_index(hand), 0,
                    win_amount(stake, odds),
                    f"three sevens {rules.triple_seven_pays} at once, stake plays on")
        if total == 21 and rules.twenty_one_wins_at_once:
            self.pay_21_now(hand)
            return
        if total == 21:
            self.end_hand(hand, "stood")
            return
        if hand.doubles and hand.owed == 0 and not rules.hit_after_double:
            if rules.double_down_rescue:
                self.rescue_hand = hand
            self.end_hand(hand, "stood")
            return
        if hand.split_ace and len(hand.cards) == 2:
            if not (card[0] == "A" and rules.resplit_aces and split_room(rules, box)):
                self.end_hand(hand, "stood")
                return
        if rules.max_hand_cards and len(hand.cards) >= rules.max_hand_cards:
            self.end_hand(hand, "stood")
            return
        if hand.autoplay and total > 11:
            self.end_hand(hand, "stood")

    def pay_21_now(self, hand: Hand) -> None:
        """A player's 21 wins at once (Spanish-21 family), with its bonus."""
        rules = self.rules
        rnd = self.require_round()
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
                settle_hand(rnd, hand, player, stake + fixed, f"super bonus {fixed}")
                paid_super = True
            elif bonus is not None:
                settle_hand(rnd, hand, player, stake + win_amount(stake, bonus[0]), bonus[1])
            else:
                settle_hand(rnd, hand, player, stake * 2, "21 wins at once")
        if paid_super:
            self.pay_envy(hand)
        self.end_hand(hand, "paid")

    def pay_envy(self, lucky: Hand) -> None:
        rnd = self.require_round()
        for number in rnd.order:
            box = rnd.boxes[number]
            for player in box.main:
                if player in lucky.stakes:
                    continue
                pay(rnd, player, "main", number, None, 0, self.rules.envy_bonus,
                    f"envy bonus {self.rules.envy_bonus}")

    def end_hand(self, hand: Hand, status: str) -> None:
        if not hand.done:
            hand.done = True
            if hand.status == "playing" or status in ("bust", "paid", "surrendered",
                                                      "late_surrender", "rescued"):
                hand.status = status
        if self.phases.state == "playing":
            self.advance()

    def judge_prizes(self, box: Box) -> None:
        """ru-casino prizes on the main bet: judged when the box's dealing finishes."""
        if not self.rules.sevens_prizes or len(box.hands) != 1:
            return
        hand = box.hands[0]
        prize = sevens_prize(hand.cards)
        if prize is None:
            return
        rnd = self.require_round()
        for player, stake in hand.stakes.items():
            pay(rnd, player, "main", box.number, 0, 0, win_amount(stake, prize[0]),
                prize[1] + ", stake plays on")

    # -- decisions ------------------------------------------------------------------

    def decide(self, box: Box, player: str, do: Do) -> None:
        """A decision on a box in play (not an insurance answer)."""
        action = do.action
        if action in ("insurance", "even_money"):
            raise Refused(f"{action} is offered only against a dealer ace, before the first "
                          "box plays")
        if action in ("follow", "decline"):
            self.co_bettor_choice(box, player, action)
            return
        if player != box.owner:
            if action == "surrender" and self.rules.co_bettor_surrender:
                self.co_bettor_surrender(box, player)
                return
            raise Refused(f"only the box owner ({box.owner}) decides the play of box {do.box}; "
                          f"{player} may answer follow/decline, insurance or even money")
        phase = self.phases.state
        if phase != "playing":
            raise Refused(f"no box is playing now ({phase})")
        active_box, hand = self.active()
        if active_box is not box:
            raise Refused(f"box {do.box} is not up: box {active_box.number} plays now")
        check_action(self.rules, self, self.round, box, hand, action, do.amount)
        self.perform(action, box, hand, do.amount)

    def perform(self, action: str, box: Box, hand: Hand, amount: int | None) -> None:
        rules = self.rules
        rnd = self.require_round()
        if action == "hit":
            return
        hand.decisions += 1
        if action == "stand":
            self.end_hand(hand, "stood")
        elif action == "timeout":
            if hand.total() <= 11:
                hand.autoplay = True
            else:
                self.end_hand(hand, "stood")
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
            self.split(box, hand)
        elif action == "surrender":
            if rules.surrender == "early":
                for player in hand.open_players():
                    settle_hand(rnd, hand, player, hand.stakes[player] // 2,
                                "early surrender, half back")
                self.end_hand(hand, "surrendered")
            else:
                self.end_hand(hand, "late_surrender")
        elif action == "buy":
            original = next(iter(hand.originals.values()))
            chips = amount if amount is not None else original
            hand.buys.append(chips)
            hand.stakes[box.owner] += chips
            hand.card_asked = True
        elif action == "twist":
            hand.twisted = True
            hand.card_asked = True

    def split(self, box: Box, hand: Hand) -> None:
        rules = self.rules
        owner = box.owner
        index = box.hands.index(hand)
        first, second = hand.cards
        aces = first[0] == "A" and rules.split_aces_one_card
        new_stakes = {owner: hand.originals[owner]}
        pending: set[str] = set()
        for player in (p for p in hand.stakes if p != owner):
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

    def pending_for(self, box: Box, player: str) -> Pending | None:
        for pending in reversed(box.pending):
            if player in pending.players:
                return pending
        return None

    def co_bettor_choice(self, box: Box, player: str, action: str) -> None:
        if player == box.owner:
            raise Refused("follow/decline is a co-bettor's answer to the owner's split or double")
        pending = self.pending_for(box, player)
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

    def co_bettor_surrender(self, box: Box, player: str) -> None:
        if self.phases.state != "playing":
            raise Refused("no box is playing now")
        active_box, hand = self.active()
        if active_box is not box:
            raise Refused(f"box {box.number} is not up")
        rnd = self.require_round()
        check_surrender(self.rules, rnd.dealer[0], hand)
        if player not in hand.open_players():
            raise Refused(f"{player} has no open stake on this hand")
        settle_hand(rnd, hand, player, hand.stakes[player] // 2, "early surrender, half back")

    def rescue(self, box: Box, hand: Hand | None) -> None:
        if not self.rules.double_down_rescue:
            raise Refused("this table has no double-down rescue")
        if hand is None or hand.box != box.number or hand.status != "stood":
            raise Refused("a rescue is decided at once, right after the double's card")
        rnd = self.require_round()
        for player in hand.open_players():
            stake = hand.stakes[player]
            settle_hand(rnd, hand, player, stake - hand.originals[player],
                        "double-down rescue: the original bet is lost")
        hand.status = "rescued"
        self.need = None
        self.after_rescue()

    def after_rescue(self) -> None:
        """The dealer may have nothing left to play for once a hand is rescued."""
