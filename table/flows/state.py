"""What a round flow keeps between events: the rounds, the shoe, where play stands."""

from __future__ import annotations

from table.cards import ShoeInventory
from table.checks import Refused
from table.events import DEALER
from table.phases import PhaseMachine
from table.profiles import Rules
from table.round_state import Box, Hand, Round

CARD_TO_EMPTY_BOX = "CARD_TO_EMPTY_BOX"
CARD_OUT_OF_ORDER = "CARD_OUT_OF_ORDER"
EXTRA_CARD = "EXTRA_CARD"
DEALER_DREW_ON_STAND = "DEALER_DREW_ON_STAND"
DEALER_STOOD_ON_DRAW = "DEALER_STOOD_ON_DRAW"
CUT_CARD = "CUT_CARD"
SHOE_RELOADED = "SHOE_RELOADED"
INTERNAL_ERROR = "INTERNAL_ERROR"


class FlowState:
    """The state every flow shares; the flows' parts (betting, playing, the game) read and
    change it. `phases` is set by the flow once its transitions are declared."""

    phases: PhaseMachine

    def __init__(self, rules: Rules, keep_rounds: int | None) -> None:
        self.rules = rules
        self.keep_rounds = keep_rounds
        self.rounds_played = 0
        self.inventory = ShoeInventory(rules.shoe, rules.decks)
        self.banker = DEALER
        self.rounds: list[Round] = []
        self.round: Round | None = None
        self.box_i = 0
        self.hand_i = 0
        # A doubled hand that may still be rescued by the very next event, and the one
        # offered to the event being applied now.
        self.rescue_hand: Hand | None = None
        self.rescue_offer: Hand | None = None
        self.new_shoe_due = False
        # How far the dealer must draw, fixed when the dealer's turn begins.
        self.need: str | None = None

    @property
    def state(self) -> str:
        return self.phases.state

    def require_round(self) -> Round:
        if self.round is None:
            raise Refused("no round is open: place a bet first")
        return self.round

    def active(self) -> tuple[Box, Hand]:
        rnd = self.round
        assert rnd is not None
        box = rnd.boxes[rnd.order[self.box_i]]
        return box, box.hands[self.hand_i]
