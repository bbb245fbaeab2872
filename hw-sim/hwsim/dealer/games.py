"""What the virtual dealer does differently in each game, chosen once from the profile."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from hwsim.dealer import betting, strategy
from table.views import Due, HandView, TableView

if TYPE_CHECKING:
    from hwsim.dealer.dealer import VirtualDealer, _Round

log = logging.getLogger(__name__)

STAND: dict[str, Any] = {"do": {"box": "dealer", "action": "stand"}}


class GamePlay(Protocol):
    # A careless dealer may pull a card after the round settled (a house that draws).
    slips_after_settling: bool

    def banker_seat(self, view: TableView) -> str | None:
        """The box owner who banks (plays no box), or None."""

    def before_dealing_card(self, dealer: VirtualDealer, rnd: _Round, due: Due) -> None:
        """A step of the deal, before its card is drawn."""

    def card_is_owed(self, due: Due) -> bool:
        """The playing box takes a card now without deciding (after a split, a double,
        a buy or twist, a timeout)."""

    def choose(self, dealer: VirtualDealer, hand: HandView, view: TableView,
               legal: list[str]) -> str:
        """The player's decision by the game's strategy."""

    def dealer_step(self, dealer: VirtualDealer, rnd: _Round, due: Due) -> None:
        """The dealer's (or banker's) turn: draw or stand."""


class CasinoPlay:
    """The house draws by its rule; a careless dealer errs on the draw and stand."""

    slips_after_settling = True

    def banker_seat(self, view: TableView) -> str | None:
        return None

    def before_dealing_card(self, dealer: VirtualDealer, rnd: _Round, due: Due) -> None:
        return None

    def card_is_owed(self, due: Due) -> bool:
        return "hit" not in due.actions

    def choose(self, dealer: VirtualDealer, hand: HandView, view: TableView,
               legal: list[str]) -> str:
        return strategy.basic_strategy(hand.cards, view.dealer[0], legal)

    def dealer_step(self, dealer: VirtualDealer, rnd: _Round, due: Due) -> None:
        view = dealer._ask(dealer.link.view)
        step = len(view.dealer)
        if due.dealer == "draw":
            if dealer._slips(rnd, step):
                log.info("round %d: the dealer stands where the rule says draw", rnd.number)
                dealer._send(rnd, STAND)  # the table flags DEALER_STOOD_ON_DRAW
            else:
                dealer._draw(rnd)
        elif dealer._slips(rnd, step) and dealer.shoe.cards_left():
            log.info("round %d: the dealer draws where the rule says stand", rnd.number)
            dealer._draw(rnd)  # the table flags DEALER_DREW_ON_STAND
        else:
            dealer._send(rnd, STAND)


class BankerPlay:
    """British pontoon: a player banks; stakes may be raised after the first card."""

    slips_after_settling = False

    def banker_seat(self, view: TableView) -> str | None:
        return view.banker

    def before_dealing_card(self, dealer: VirtualDealer, rnd: _Round, due: Due) -> None:
        """Once every box and the banker hold one card, players may raise."""
        if rnd.raised or not isinstance(due.card_for, int):
            return
        view = dealer._ask(dealer.link.view)
        boxes = [b for b in view.boxes if b.hands]
        if len(view.dealer) != 1 or any(len(b.hands[0].cards) != 1 for b in boxes):
            return
        rnd.raised = True
        for box in boxes:
            stake = betting.main_bet(box)
            extra = betting.raise_after_first_card(box.hands[0].cards[0], stake, rnd.rng)
            if extra:
                dealer._send(rnd, {"bet": {"box": box.number, "amount": extra}})

    def card_is_owed(self, due: Due) -> bool:
        return True

    def choose(self, dealer: VirtualDealer, hand: HandView, view: TableView,
               legal: list[str]) -> str:
        return strategy.pontoon_choice(hand.cards, legal, dealer.rules.stick_minimum)

    def dealer_step(self, dealer: VirtualDealer, rnd: _Round, due: Due) -> None:
        view = dealer._ask(dealer.link.view)
        if strategy.banker_draws(view.dealer) and dealer.shoe.cards_left():
            dealer._draw(rnd)
        else:
            dealer._send(rnd, STAND)


GAMES: dict[str, type[GamePlay]] = {"casino": CasinoPlay, "banker": BankerPlay}
