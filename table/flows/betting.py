"""Bets and the deal: who may bet what where, the round they open, the dealing order."""

from __future__ import annotations

from table.checks import Refused
from table.events import DEALER, Bet, Deal
from table.flows.state import FlowState
from table.round_state import Box, Hand, Round
from table.sidebets import SIDE_BETS


def _is_seat_name(player: str) -> bool:
    """Box owners are named after their box: `box1` ... `box7`."""
    return player.startswith("box") and player[3:].isdigit()


class Betting(FlowState):
    """Bets before the deal, and the deal itself."""

    def deals_second_dealer_card(self) -> bool:
        """Whether the dealer's second card is dealt with the boxes' (a hole card)."""
        raise NotImplementedError

    def open_round(self) -> Round:
        """The first bet after a finished round opens the next one."""
        if self.round is None or self.phases.state in ("settled", "void"):
            if self.round is not None and self.round.status not in ("settled", "void"):
                raise Refused("the round is not finished")
            self.rounds_played += 1
            rnd = Round(self.rounds_played)
            self.rounds.append(rnd)
            if self.keep_rounds is not None and len(self.rounds) > self.keep_rounds:
                del self.rounds[: len(self.rounds) - max(self.keep_rounds, 1)]
            self.round = rnd
            if self.rules.inventory_per_round:
                self.inventory.reload()
            if self.phases.state != "betting":
                self.phases.fire("begin_round")
        return self.round

    def place_bet(self, bet: Bet) -> None:
        rules = self.rules
        if bet.box > rules.max_boxes:
            raise Refused(f"box {bet.box} does not exist: this table has {rules.max_boxes} boxes")
        owner = f"box{bet.box}"
        player = bet.player or owner
        rnd = self.round
        box = rnd.boxes.get(bet.box) if rnd is not None and self.phases.state == "betting" \
            else None
        if bet.spot == "main":
            self.check_main_bet(bet, player, owner, box)
        else:
            self.check_side_bet(bet, player, box)
        rnd = self.open_round()
        box = rnd.boxes.get(bet.box)
        if box is None:
            box = rnd.boxes[bet.box] = Box(bet.box, owner)
        if bet.spot == "main":
            box.main[player] = box.main.get(player, 0) + bet.amount
        else:
            box.side[(player, bet.spot)] = box.side.get((player, bet.spot), 0) + bet.amount

    def check_main_bet(self, bet: Bet, player: str, owner: str, box: Box | None) -> None:
        rules = self.rules
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

    def check_side_bet(self, bet: Bet, player: str, box: Box | None) -> None:
        rules = self.rules
        if bet.spot not in rules.side_bets:
            offered = ", ".join(rules.side_bets) or "none"
            raise Refused(f"side bet {bet.spot!r} is not offered here (offered: {offered})")
        if box is None or player not in box.main:
            raise Refused(f"a {bet.spot} bet needs {player}'s main bet on box {bet.box} first")
        total = box.side.get((player, bet.spot), 0) + bet.amount
        problem = SIDE_BETS[bet.spot].stake_problem(rules, total)
        if problem is not None:
            raise Refused(problem)

    def deal(self, event: Deal) -> None:
        self.need = None
        rnd = self.require_round()
        rnd.order = sorted(number for number, box in rnd.boxes.items() if box.main)
        if not rnd.order:
            raise Refused("no main bet on the table: nothing to deal")
        for number in rnd.order:
            box = rnd.boxes[number]
            stakes = dict(box.main)
            box.hands.append(Hand(number, [], stakes, dict(stakes)))
        queue: list[int | str] = list(rnd.order) + [DEALER] + list(rnd.order)
        if self.deals_second_dealer_card():
            queue.append(DEALER)
        rnd.deal_queue = queue
        rnd.deal_pos = 0
        self.phases.fire("start_deal")

