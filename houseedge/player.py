"""The player's expectations on one shoe composition, per hand state and action.

A hand state is (hard total, holds an ace, cards, mode): mode 0 may still
double, 1 may not, 2 has doubled (stake two). Values are per original stake
and weigh two worlds: the dealer has no natural (outcome distribution
`dist`), or (no hole card) turns a natural after the boxes played, with
chance `p_natural`; what a dealer natural takes is the profile's
`dealer_blackjack_takes`. The player's own cards come from the composition
without further removal (the dealer's draws do remove theirs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from houseedge.dealer import Dist
from table.profiles import Rules

State = tuple[int, bool, int, int]
Policy = dict[State, str]
MAX_CARDS_KEY = 7


@dataclass(frozen=True, slots=True)
class Play:
    """The rule facts the player's recursion needs."""

    ties_lose: bool
    takes: str
    twenty_one_at_once: bool
    bonuses: bool
    double_any_cards: bool
    double_9_11: bool
    ace_one_on_double: bool
    hit_after_double: bool
    rescue: bool

    @classmethod
    def of(cls, rules: Rules) -> Play:
        return cls(
            ties_lose=rules.ties == "lose",
            takes=rules.dealer_blackjack_takes,
            twenty_one_at_once=rules.twenty_one_wins_at_once,
            bonuses=rules.pontoon_bonuses,
            double_any_cards=rules.double_cards == "any",
            double_9_11=rules.double_totals == "9-11",
            ace_one_on_double=rules.double_ace_counts_one,
            hit_after_double=rules.hit_after_double,
            rescue=rules.double_down_rescue,
        )


def card_bonus(cards: int) -> float:
    """Spanish-21 family odds of a 21 by card count (3 or 4 cards: even money)."""
    if cards == 5:
        return 1.5
    if cards == 6:
        return 2.0
    if cards >= 7:
        return 3.0
    return 1.0


@dataclass(slots=True)
class HandEV:
    """Expectations of hand states for one composition and one dealer up card."""

    play: Play
    probs: tuple[float, ...]
    dist: Dist
    p_natural: float
    # Share of one original stake a dealer natural takes from a standing hand
    # when it does not take everything (1 unsplit; split hands share it).
    share: float = 1.0
    one_card: bool = False
    policy: Policy | None = None
    # With removal: the expectations of the hand one card later (that card out of the shoe).
    child: Callable[[int], HandEV] | None = None
    chosen: Policy = field(default_factory=dict)
    _memo: dict[State, float] = field(default_factory=dict)

    def stand(self, total: int, stake: int) -> float:
        d = self.dist
        if total < 17:
            win = d[5]
            lose = d[0] + d[1] + d[2] + d[3] + d[4]
            tie = 0.0
        else:
            k = total - 17
            win = d[5] + sum(d[:k])
            lose = sum(d[k + 1:5])
            tie = d[k]
        if self.play.ties_lose:
            lose += tie
        no_natural = stake * (win - lose)
        natural = -stake if self.play.takes == "enhc" else -self.share
        return (1.0 - self.p_natural) * no_natural + self.p_natural * natural

    def total(self, state: State) -> int:
        hard, ace, _, mode = state
        if ace and hard + 10 <= 21 and not (mode == 2 and self.play.ace_one_on_double):
            return hard + 10
        return hard

    def after_card(self, state: State) -> float:
        """Value of a state just reached by a card."""
        hard, _, cards, mode = state
        stake = 2 if mode == 2 else 1
        if hard > 21:
            return -float(stake)
        total = self.total(state)
        if total == 21 and self.play.twenty_one_at_once:
            odds = card_bonus(cards) if self.play.bonuses and mode != 2 else 1.0
            return stake * odds
        if total == 21 or self.one_card or (mode == 2 and not self.play.hit_after_double):
            value = self.stand(total, stake)
            if mode == 2 and self.play.rescue:
                key = (hard, state[1], min(cards, MAX_CARDS_KEY), mode)
                rescue = self._choose(key, {"S": value, "R": -1.0})
                return value if rescue == "S" else -1.0
            return value
        return self.value(state)

    def _next(self, state: State, value: int, mode: int) -> State:
        hard, ace, cards, _ = state
        return (hard + value, ace or value == 1, min(cards + 1, MAX_CARDS_KEY), mode)

    def may_double(self, state: State) -> bool:
        hard, _, cards, mode = state
        if mode != 0 or (cards != 2 and not self.play.double_any_cards):
            return False
        if self.play.double_9_11:
            total = hard if self.play.ace_one_on_double else self.total(state)
            return 9 <= total <= 11
        return True

    def actions(self, state: State) -> dict[str, float]:
        """Expectation of each action open in this state (later play: policy or best)."""
        mode = state[3]
        stake = 2 if mode == 2 else 1
        probs = self.probs
        out = {"S": self.stand(self.total(state), stake)}
        hit_mode = mode if mode == 2 else (0 if mode == 0 and self.play.double_any_cards else 1)
        nxt = self.child or (lambda value: self)
        out["H"] = sum(
            p * nxt(i + 1).after_card(self._next(state, i + 1, hit_mode))
            for i, p in enumerate(probs) if p
        )
        if self.may_double(state):
            out["D"] = sum(
                p * nxt(i + 1).after_card(self._next(state, i + 1, 2))
                for i, p in enumerate(probs) if p
            )
        return out

    def _choose(self, key: State, options: dict[str, float]) -> str:
        if self.policy is not None and key in self.policy:
            choice = self.policy[key]
            if choice in options:
                return choice
        best = max(options, key=lambda k: options[k])
        self.chosen[key] = best
        return best

    def value(self, state: State) -> float:
        """Value of a state where the player decides (policy, or the best action)."""
        key = (state[0], state[1], min(state[2], MAX_CARDS_KEY), state[3])
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        options = self.actions(key)
        result = options[self._choose(key, options)]
        self._memo[key] = result
        return result
