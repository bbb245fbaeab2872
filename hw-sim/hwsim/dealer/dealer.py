"""The virtual dealer: deals whole rounds at a table through a `TableLink` and a `CardShoe`.

Every choice (bets, play, timeouts, mistakes, new shoes) comes from random
generators seeded by (seed, round number) and from what the table shows, so a
run that a daemon crash interrupted makes the same choices as one that was not.
"""

from __future__ import annotations

import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hwsim.dealer import betting, strategy
from hwsim.dealer.games import GAMES
from hwsim.dealer.protocols import CardShoe, DealerError, Sent, TableLink, TableUnavailable
from hwsim.dealer.shoes import derived_seed, needs_new_shoe, seeded_shoe
from table.profiles import Rules
from table.views import BoxView, Due, HandView, TableView

log = logging.getLogger(__name__)

# Bounds that keep a confused dealer from looping for ever.
MAX_STEPS_PER_ROUND = 2000
MAX_REFUSALS_PER_ROUND = 20
# How often a live-studio player lets the decision timer run out.
TIMEOUT_CHANCE = 0.05
# A doubled hand this weak against a strong dealer card is rescued (pontoon-sydney).
RESCUE_AT_OR_BELOW = 16
RESCUE_AGAINST_FROM = 7

_T = TypeVar("_T")


@dataclass
class DealerStats:
    """What the dealer did, for logs and tests."""

    rounds: int = 0
    events_sent: int = 0
    retries: int = 0  # sends and reads repeated after TableUnavailable
    duplicates: int = 0  # answers saying the ref had been stored already
    refused: int = 0
    mistakes: int = 0
    cards_drawn: int = 0
    shoes_loaded: int = 0


@dataclass
class _Round:
    """The dealer's own notes on the round it is dealing."""

    number: int
    rng: random.Random  # bets and play
    slips: random.Random  # the dealer's mistakes, apart so they do not shift the play
    answered: set[int] = field(default_factory=set)  # boxes that answered insurance
    bets_placed: bool = False
    raised: bool = False
    refusals: int = 0
    refused: set[tuple[object, ...]] = field(default_factory=set)
    slip_steps: set[object] = field(default_factory=set)
    doubled: tuple[int, int] | None = None


class VirtualDealer:
    """Deals rounds by the profile's rules: players bet and play basic strategy, the
    dealer draws or stands (erring at `mistake_rate` per step), the pit resolves halts."""

    def __init__(
        self,
        rules: Rules,
        link: TableLink,
        shoe: CardShoe,
        *,
        seed: int,
        boxes: int = 7,
        mistake_rate: float = 0.0,
        session: str | None = None,
        new_shoe: Callable[[], list[str]] | None = None,
        retry_wait_s: float = 0.2,
        patience_s: float = 600.0,
    ) -> None:
        """`session` prefixes every ref (random hex when None); `new_shoe` makes the next
        shoe (default: a shuffled shoe of the profile seeded by seed and round);
        `retry_wait_s` is the pause before resending after `TableUnavailable`, and
        `patience_s` how long the table may stay away (or a card undelivered) before
        the dealer gives up with `DealerError`."""
        if boxes < 1:
            raise ValueError(f"boxes = {boxes}: at least one box plays")
        if not 0.0 <= mistake_rate <= 1.0:
            raise ValueError(f"mistake_rate = {mistake_rate}: use 0 to 1")
        self.rules = rules
        self.link = link
        self.shoe = shoe
        self.seed = seed
        self.boxes = min(boxes, rules.max_boxes)
        self.mistake_rate = mistake_rate
        self.session = session if session is not None else secrets.token_hex(6)
        self.new_shoe = new_shoe
        self.retry_wait_s = retry_wait_s
        self.patience_s = patience_s
        self.stats = DealerStats()
        self.game = GAMES[rules.game]()
        self._counter = 0

    # -- the public API -------------------------------------------------------------

    def play(self, rounds: int) -> list[int]:
        """Play `rounds` whole rounds; return their numbers."""
        return [self.play_round() for _ in range(rounds)]

    def play_round(self) -> int:
        """Play one round to settled or void and return its number. A round the table
        holds open (bets placed, or halted) is played on from where it stands."""
        self._await_delivery("the shoe's last event")
        due = self._ask(self.link.due)
        fresh = not due.halted and (due.round == 0 or due.phase in ("settled", "void"))
        number = due.round + 1 if fresh else due.round
        rnd = _Round(number, random.Random(derived_seed(self.seed, number, "play")),
                     random.Random(derived_seed(self.seed, number, "slips")))
        if fresh:
            self._between_rounds(number)
            self._place_bets(rnd)
        self._play_out(rnd)
        self.stats.rounds += 1
        return number

    # -- between rounds and betting -------------------------------------------------

    def _between_rounds(self, number: int) -> None:
        if not needs_new_shoe(self.rules, self.shoe.cards_left(), self.boxes):
            return
        if self.new_shoe is not None:
            cards = self.new_shoe()
        else:
            cards = seeded_shoe(self.rules, derived_seed(self.seed, number, "shoe"))
        log.info("round %d: a new shoe of %d cards goes in", number, len(cards))
        self.shoe.load(cards)
        self.stats.shoes_loaded += 1
        self._await_delivery("the new shoe's 'loaded'")

    def _player_boxes(self, view: TableView) -> list[int]:
        """Boxes 1..boxes, without the banker's own box in British pontoon."""
        banker = self.game.banker_seat(view)
        free = [n for n in range(1, self.rules.max_boxes + 1) if f"box{n}" != banker]
        chosen = [n for n in free if n <= self.boxes]
        return chosen or free[:1]

    def _place_bets(self, rnd: _Round) -> None:
        view = self._ask(self.link.view)
        placed = 0
        for box in self._player_boxes(view):
            for event in betting.box_bets(self.rules, box, rnd.rng):
                sent = self._send(rnd, event)
                if sent.accepted and event["bet"].get("spot", "main") == "main":
                    placed += 1
                elif not sent.accepted and "spot" not in event["bet"]:
                    break  # no side bets without the main bet
        rnd.bets_placed = True
        if not placed:
            raise DealerError(f"round {rnd.number}: the table refused every main bet")
        self._send(rnd, {"deal": {}})

    # -- the round ------------------------------------------------------------------

    def _play_out(self, rnd: _Round) -> None:
        due: Due | None = None
        for _ in range(MAX_STEPS_PER_ROUND):
            due = self._ask(self.link.due)
            if due.halted:
                self._resolve(rnd, due)
                continue
            if due.round != rnd.number:
                raise DealerError(f"round {rnd.number}: the table is at round {due.round} "
                                  f"({due.phase}); the bets did not open the round")
            if due.phase in ("settled", "void"):
                if due.phase == "settled" and self._slip_after_settling(rnd):
                    continue
                return
            if due.phase == "betting":
                self._betting(rnd)
            elif due.phase == "dealing":
                self._dealing(rnd, due)
            elif due.phase == "insurance":
                self._insurance(rnd)
            elif due.phase == "playing":
                self._playing(rnd, due)
            elif due.phase == "dealer":
                self.game.dealer_step(self, rnd, due)
            else:
                raise DealerError(f"round {rnd.number}: unknown phase {due.phase!r}")
        raise DealerError(f"round {rnd.number}: not finished after {MAX_STEPS_PER_ROUND} "
                          f"steps; the table expects {due}")

    def _betting(self, rnd: _Round) -> None:
        """A round open without a deal: bets placed before the dealer came (deal them),
        or a stray card opened it and the pit accepted it (bet, then deal)."""
        view = self._ask(self.link.view)
        if rnd.bets_placed or any(betting.main_bet(box) for box in view.boxes):
            self._send(rnd, {"deal": {}})
        else:
            self._place_bets(rnd)

    def _dealing(self, rnd: _Round, due: Due) -> None:
        self.game.before_dealing_card(self, rnd, due)
        if not due.card_expected:
            raise DealerError(f"round {rnd.number}: dealing, but the table expects no card")
        self._draw(rnd)

    def _insurance(self, rnd: _Round) -> None:
        """Every box owner declines insurance and even money."""
        view = self._ask(self.link.view)
        waiting = [b.number for b in view.boxes
                   if betting.main_bet(b) and b.number not in rnd.answered]
        if not waiting:
            raise DealerError(f"round {rnd.number}: every box answered, the insurance "
                              "window stays open")
        box = waiting[0]
        rnd.answered.add(box)
        self._send(rnd, {"do": {"box": box, "action": "decline"}})

    def _playing(self, rnd: _Round, due: Due) -> None:
        assert due.box is not None and due.hand is not None
        if due.card_expected and self.game.card_is_owed(due):
            self._deal_owed_card(rnd, due)  # after a split, a double, a buy or twist, a timeout
            return
        view = self._ask(self.link.view)
        box = _box(view, due.box)
        hand = box.hands[due.hand]
        key = (due.box, due.hand, len(hand.cards))
        legal = [a for a in due.actions if key + (a,) not in rnd.refused]
        if "timeout" in legal and rnd.rng.random() < TIMEOUT_CHANCE:
            self._decide(rnd, key, {"do": {"box": due.box, "action": "timeout"}})
            return
        action = self.game.choose(self, hand, view, legal)
        if action not in legal:
            action = "stand" if "stand" in legal else legal[0] if legal else ""
        if not action:
            raise DealerError(f"round {rnd.number}: box {due.box} hand {due.hand} has no "
                              f"decision left; the table offers {due.actions}")
        if action == "hit":
            self._draw(rnd)
            return
        body: dict[str, Any] = {"box": due.box, "action": action}
        if action == "buy":
            stake = betting.main_bet(box)
            if len(hand.cards) == 2 and _hand_stake(hand) == stake and rnd.rng.random() < 0.3:
                body["amount"] = 2 * stake
        if action == "double":
            rnd.doubled = (due.box, due.hand)
        self._decide(rnd, key, {"do": body})

    def _deal_owed_card(self, rnd: _Round, due: Due) -> None:
        doubled = rnd.doubled == (due.box, due.hand)
        rnd.doubled = None
        self._draw(rnd)
        if doubled and self.rules.double_down_rescue:
            self._maybe_rescue(rnd, due)

    def _maybe_rescue(self, rnd: _Round, due: Due) -> None:
        """Right after a double's card: give up the original bet on a poor total."""
        assert due.box is not None and due.hand is not None
        view = self._ask(self.link.view)
        hand = _box(view, due.box).hands[due.hand]
        if hand.status != "stood" or hand.total > RESCUE_AT_OR_BELOW:
            return
        if strategy.up_value(view.dealer[0]) < RESCUE_AGAINST_FROM:
            return
        self._send(rnd, {"do": {"box": due.box, "action": "rescue"}})

    def _decide(self, rnd: _Round, key: tuple[object, ...], event: dict[str, Any]) -> None:
        sent = self._send(rnd, event)
        if not sent.accepted:
            rnd.refused.add(key + (event["do"]["action"],))

    def _slip_after_settling(self, rnd: _Round) -> bool:
        """The dealer's hand is complete; a careless dealer pulls one more card."""
        if not self.game.slips_after_settling or not self.shoe.cards_left():
            return False
        if not self._slips(rnd, "settled"):
            return False
        log.info("round %d: the dealer draws after the round settled", rnd.number)
        self._draw(rnd)
        return True

    def _slips(self, rnd: _Round, step: object) -> bool:
        """One chance per dealer step of a mistake."""
        if self.mistake_rate <= 0.0 or step in rnd.slip_steps:
            return False
        rnd.slip_steps.add(step)
        if rnd.slips.random() >= self.mistake_rate:
            return False
        self.stats.mistakes += 1
        return True

    def _resolve(self, rnd: _Round, due: Due) -> None:
        """The pit: accept where the table allows it, otherwise void."""
        options = [r for r in ("accept", "void")
                   if r in due.resolutions and ("resolve", r) not in rnd.refused]
        if not options:
            raise DealerError(f"round {rnd.number}: halted on {due.open_flags} and no "
                              f"resolution is left (allowed: {due.resolutions})")
        choice = options[0]
        log.info("round %d: the pit resolves %s with %s", rnd.number, due.open_flags, choice)
        sent = self._send(rnd, {"resolve": choice})
        if not sent.accepted:
            rnd.refused.add(("resolve", choice))

    # -- talking to the table and the shoe ------------------------------------------

    def _draw(self, rnd: _Round) -> None:
        if self.shoe.cards_left() <= 0:
            raise DealerError(f"round {rnd.number}: the shoe ran out in the middle of the "
                              "round")
        self.shoe.draw()
        self.stats.cards_drawn += 1
        self._await_delivery(f"round {rnd.number}: the card drawn")

    def _await_delivery(self, what: str) -> None:
        deadline = time.monotonic() + self.patience_s
        while not self.shoe.wait_delivered(min(1.0, max(0.0, deadline - time.monotonic()))):
            if time.monotonic() >= deadline:
                raise DealerError(f"{what} was not stored by the table within "
                                  f"{self.patience_s:g} s")

    def _ask(self, read: Callable[[], _T]) -> _T:
        """Read from the table, waiting out a restart."""
        deadline = time.monotonic() + self.patience_s
        while True:
            try:
                return read()
            except TableUnavailable as error:
                self._wait_for_table(deadline, error)

    def _send(self, rnd: _Round, event: dict[str, Any]) -> Sent:
        """Submit one event under a new ref; resend it under the same ref until stored."""
        self._counter += 1
        ref = f"{self.session}:{self._counter}"
        deadline = time.monotonic() + self.patience_s
        while True:
            try:
                sent = self.link.send(event, ref)
                break
            except TableUnavailable as error:
                self._wait_for_table(deadline, error)
        self.stats.events_sent += 1
        if sent.duplicate:
            self.stats.duplicates += 1
        if not (sent.stored and sent.accepted):
            self.stats.refused += 1
            rnd.refusals += 1
            log.warning("round %d: the table %s %s (ref %s): %s", rnd.number,
                        "refused" if sent.stored else "did not store", event, ref, sent.reason)
            if rnd.refusals > MAX_REFUSALS_PER_ROUND:
                raise DealerError(f"round {rnd.number}: the table refused "
                                  f"{rnd.refusals} events; the last: {event} ({sent.reason})")
        return sent

    def _wait_for_table(self, deadline: float, error: TableUnavailable) -> None:
        self.stats.retries += 1
        if time.monotonic() >= deadline:
            raise DealerError(f"the table stayed unavailable for {self.patience_s:g} s: "
                              f"{error}") from error
        log.info("the table is unavailable (%s); retrying", error)
        if self.retry_wait_s:
            time.sleep(self.retry_wait_s)


def _box(view: TableView, number: int) -> BoxView:
    for box in view.boxes:
        if box.number == number:
            return box
    raise DealerError(f"box {number} is not on the table")


def _hand_stake(hand: HandView) -> int:
    return sum(stake for _, stake in hand.stakes)


__all__ = ["DealerStats", "VirtualDealer"]
