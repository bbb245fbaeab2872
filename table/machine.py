"""One table, many rounds, driven by events: the table's public face.

The round's work is done by the game's flow (`table.flows`), chosen once from the
profile; which event is legal in which phase is the flow's phase machine
(`table.phases`). `Table` parses events, keeps refused ones on the round, and hands
out what is due, a frozen view and the results.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table.cards import ShoeInventory
from table.checks import Refused
from table.events import (
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
from table.flows import flow_for
from table.flows.state import (
    CARD_OUT_OF_ORDER,
    CARD_TO_EMPTY_BOX,
    CUT_CARD,
    DEALER_DREW_ON_STAND,
    DEALER_STOOD_ON_DRAW,
    EXTRA_CARD,
    INTERNAL_ERROR,
    SHOE_RELOADED,
)
from table.hands import hand_value
from table.phases import IN_ROUND, PHASES
from table.profiles import Rules
from table.results import hand_results, round_result
from table.round_state import Round
from table.views import BoxView, Due, HandView, Outcome, TableView

__all__ = [
    "CARD_OUT_OF_ORDER", "CARD_TO_EMPTY_BOX", "CUT_CARD", "DEALER_DREW_ON_STAND",
    "DEALER_STOOD_ON_DRAW", "EXTRA_CARD", "INTERNAL_ERROR", "IN_ROUND", "PHASES",
    "SHOE_RELOADED", "Table",
]

_ACCEPTED = Outcome(True)


class Table:
    """One table under one profile. Feed events with `apply`; ask `due`, `view`, `results`."""

    def __init__(self, rules: Rules, keep_rounds: int | None = None) -> None:
        """`keep_rounds` bounds the finished rounds kept in memory (None: all, as a replay
        needs); a long-running daemon keeps a few and relies on its journal for the rest."""
        self.rules = rules
        self.flow = flow_for(rules, keep_rounds)
        self.phases = self.flow.phases
        self._events = 0
        # `due()` and `view()` as of event number `_events` (only `apply` changes the table).
        self._due_seen: tuple[int, Due] | None = None
        self._view_seen: tuple[int, TableView] | None = None
        self._fire = self.phases.fire
        # The trigger of each kind of event (a dealer's decision, a new shoe and the cut
        # card share an event type with another trigger).
        self._triggers: dict[type, str] = {
            Card: "card", Bet: "bet", Deal: "deal", Do: "decide", Resolve: "resolve",
            ShoeStatus: "load_shoe", Flag: "flag",
        }

    @staticmethod
    def _trigger_of(event: Event, trigger: str) -> str:
        if isinstance(event, Do) and event.box == "dealer":
            return "dealer_decides"
        if isinstance(event, ShoeStatus) and event.status != "loaded":
            return "cut_card"
        if isinstance(event, Flag) and event.code == CUT_CARD:
            return "cut_card"
        return trigger

    # -- what the table is --------------------------------------------------------------

    @property
    def state(self) -> str:
        """The phase: betting, dealing, insurance, playing, dealer, settled, halted, void."""
        return self.phases.state

    @property
    def keep_rounds(self) -> int | None:
        """How many finished rounds stay in memory (None: all)."""
        return self.flow.keep_rounds

    @keep_rounds.setter
    def keep_rounds(self, value: int | None) -> None:
        self.flow.keep_rounds = value

    @property
    def rounds_played(self) -> int:
        return self.flow.rounds_played

    @property
    def inventory(self) -> ShoeInventory:
        return self.flow.inventory

    @property
    def banker(self) -> str:
        return self.flow.banker

    @property
    def new_shoe_due(self) -> bool:
        """The cut card came out: finish the round, then a freshly shuffled shoe."""
        return self.flow.new_shoe_due

    # -- the public API -----------------------------------------------------------------

    def apply(self, event: Event | Mapping[str, Any], position: str | None = None,
              *, keep_refused: bool = True) -> Outcome:
        """Feed one event (parsed, or its scenario dict). A refused or malformed event
        changes nothing; the outcome says why. It is noted in the round's `refused`
        list, unless `keep_refused` is False: then it leaves no trace at all, as if it
        had never come (the local API's callers are told, and nothing is journaled)."""
        flow = self.flow
        events_before, offer_before, hand_before = (
            self._events, flow.rescue_offer, flow.rescue_hand)
        self._events += 1
        trigger = self._triggers.get(type(event))
        if trigger is None:
            try:
                event = parse_event(event, position or self._events)  # type: ignore[arg-type]
            except ScenarioError as error:
                if not keep_refused:
                    self._events = events_before
                    return Outcome(False, str(error))
                return self._refuse(None, position, str(error), event)
            trigger = self._triggers[type(event)]
        parsed: Event = event  # type: ignore[assignment]
        if trigger in ("decide", "load_shoe", "flag"):
            trigger = self._trigger_of(parsed, trigger)
        flow.rescue_offer = flow.rescue_hand
        flow.rescue_hand = None
        rnd = flow.round
        flags_before = len(rnd.flags) if rnd else 0
        try:
            self._fire(trigger, parsed)
        except Refused as refusal:
            if not keep_refused:
                self._events = events_before
                flow.rescue_offer, flow.rescue_hand = offer_before, hand_before
                return Outcome(False, str(refusal))
            return self._refuse(parsed, position, str(refusal))
        except Exception as exc:  # a fault in the table itself: halt the round, keep the table
            flow.fault()
            return self._refuse(parsed, position, f"internal error, the round is halted: {exc!r}")
        now = flow.round
        if now is None or (now is rnd and len(now.flags) == flags_before):
            return _ACCEPTED
        return Outcome(True, None, tuple(now.flags[flags_before if now is rnd else 0:]))

    def _refuse(self, event: Event | None, position: str | None, reason: str,
                raw: object = None) -> Outcome:
        where = position or f"event {self._events}"
        rnd = self.flow.round
        if rnd is not None:
            rnd.refused.append(
                {"position": where, "event": event.to_json() if event is not None else raw,
                 "reason": reason}
            )
        return Outcome(False, reason)

    def due(self) -> Due:
        """What the table expects now."""
        seen = self._due_seen
        if seen is None or seen[0] != self._events:
            seen = self._due_seen = (self._events, self.flow.due())
        return seen[1]

    def legal_actions(self) -> list[str]:
        """The decisions the active hand's owner may take now."""
        return self.flow.legal_actions()

    def view(self) -> TableView:
        """A snapshot of the table (frozen: safe to hand to other threads)."""
        seen = self._view_seen
        if seen is None or seen[0] != self._events:
            seen = self._view_seen = (self._events, self._make_view())
        return seen[1]

    def _make_view(self) -> TableView:
        rnd = self.flow.round
        boxes: list[BoxView] = []
        active_box = None
        if self.state == "playing" and rnd is not None:
            active_box = self.flow.active()[0].number
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
        return [self._result(rnd) for rnd in self.flow.rounds if rnd.number > since]

    def current_result(self) -> dict[str, Any] | None:
        rnd = self.flow.round
        return self._result(rnd) if rnd is not None else None

    def _result(self, rnd: Round) -> dict[str, Any]:
        return round_result(rnd, self.flow.banker_of(rnd))
