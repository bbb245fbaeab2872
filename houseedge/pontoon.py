"""British pontoon (the banker game): the player's strategy and return against a banker rule.

A player banks and plays at will, so the game has no house edge; what can
be computed is a punter's return against a banker who plays a fixed rule.
The rule assumed here: the banker draws to 17 (stands on 17 or more, soft
or hard) and stops at five cards. The punter sees none of the banker's
cards. Moves: stick (from `stick_minimum`), twist (a free card; no buying
after it), buy (one more stake, or two on the third card when the table
allows twice the stake: later buys are at most the previous one); five
cards stop the hand, 21 ends it. Payments as the table settles them
(`table.settlement.settle_banker`): pontoons and five-card tricks double,
a royal pontoon treble, the banker wins ties, a banker's trick pays only
pontoons, a banker's pontoon collects double at once. The punter's first
stake is not raised and pairs are not split (both are left out).
Cards: the start's two cards out of the pack; later cards from that pack
without further removal, so decisions depend on the total, the card count
and the stake bought, not on which cards made them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from houseedge.shoe import Counts, remove, shoe_of
from table.profiles import Rules

BANKER_STANDS = 17
# Banker outcomes: 0-4 a total of 17-21 in 2-4 cards, 5 bust, 6 five-card trick.
TRICK, BUST = 6, 5
State = tuple[int, bool, int, int, int]  # hard, ace, cards, stake, buy cap (0: twisted)


PONTOON = 7


@lru_cache(maxsize=1_000_000)
def _banker(hard: int, ace: bool, cards: int, counts: Counts) -> tuple[float, ...]:
    """Banker outcomes from a hand of `cards` cards (0 to start), index 7 a banker pontoon."""
    out = [0.0] * 8
    if hard > 21:
        out[BUST] = 1.0
        return tuple(out)
    total = hard + 10 if ace and hard + 10 <= 21 else hard
    if cards == 2 and total == 21:
        out[PONTOON] = 1.0
        return tuple(out)
    if cards >= 5:
        out[TRICK] = 1.0
        return tuple(out)
    if cards >= 2 and total >= BANKER_STANDS:
        out[total - 17] = 1.0
        return tuple(out)
    left = sum(counts)
    for index, count in enumerate(counts):
        if count:
            value = index + 1
            sub = _banker(hard + value, ace or value == 1, cards + 1, remove(counts, value))
            weight = count / left
            for k in range(8):
                out[k] += weight * sub[k]
    return tuple(out)


def banker_after(counts: Counts) -> tuple[float, tuple[float, ...]]:
    """(chance of a banker's pontoon, outcome distribution given none) on this pack."""
    out = _banker(0, False, 0, counts)
    p_pontoon = out[PONTOON]
    rest = 1 - p_pontoon
    return p_pontoon, tuple(a / rest for a in out[:7])


@dataclass
class PontoonPlay:
    rules: Rules
    probs: tuple[float, ...]
    banker: tuple[float, ...]
    policy: dict[State, str] | None = None
    # With removal: the hand one card later, that card out of the pack.
    child: Callable[[int], PontoonPlay] | None = None
    chosen: dict[State, str] = field(default_factory=dict)
    memo: dict[State, float] = field(default_factory=dict)

    def settle(self, hard: int, ace: bool, cards: int, stake: int) -> float:
        """The hand stops: expectation against the banker's final hand (no pontoon)."""
        if hard > 21:
            return -stake
        total = hard + 10 if ace and hard + 10 <= 21 else hard
        trick = cards >= 5
        rank = (3, total) if trick else (2, 21) if total == 21 else (1, total)
        odds = 2 if trick else 1
        b = self.banker
        value = b[BUST] * stake * odds
        value -= b[TRICK] * stake * self.rules.banker_trick_collects
        for k in range(5):
            banker_rank = (2, 21) if k == 4 else (1, 17 + k)
            value += b[k] * (stake * odds if rank > banker_rank else -stake)
        return value

    def options(self, state: State) -> dict[str, float]:
        hard, ace, cards, stake, cap = state
        total = hard + 10 if ace and hard + 10 <= 21 else hard
        out: dict[str, float] = {}
        if total >= self.rules.stick_minimum:
            out["S"] = self.settle(hard, ace, cards, stake)
        out["T"] = self._card(state, stake, 0)
        if cap:
            out["B"] = self._card(state, stake + 1, 1)
            if cap == 2:
                out["B2"] = self._card(state, stake + 2, 2)
        return out

    def _card(self, state: State, stake: int, cap: int) -> float:
        hard, ace, cards, _, _ = state
        value = 0.0
        for index, p in enumerate(self.probs):
            if p:
                v = index + 1
                node = self.child(v) if self.child else self
                value += p * node.after((hard + v, ace or v == 1, cards + 1, stake, cap))
        return value

    def after(self, state: State) -> float:
        hard, ace, cards, stake, _ = state
        total = hard + 10 if ace and hard + 10 <= 21 else hard
        if hard > 21 or total == 21 or cards >= 5:
            return self.settle(hard, ace, cards, stake)
        return self.value(state)

    def value(self, state: State) -> float:
        if state in self.memo:
            return self.memo[state]
        options = self.options(state)
        choice = self.policy.get(state) if self.policy else None
        if choice not in options:
            choice = max(options, key=lambda k: options[k])
            self.chosen[state] = choice
        self.memo[state] = options[choice]
        return options[choice]


class _Tree:
    """One node per punter hand (a multiset of values), on the pack less that hand."""

    def __init__(self, rules: Rules, pack: Counts, policy: dict[State, str]) -> None:
        self.rules = rules
        self.pack = pack
        self.policy = policy
        self.nodes: dict[Counts, PontoonPlay] = {}

    def node(self, hand: Counts) -> PontoonPlay:
        found = self.nodes.get(hand)
        if found is not None:
            return found
        rest = tuple(p - h for p, h in zip(self.pack, hand, strict=True))
        left = sum(rest)
        hard = sum((i + 1) * h for i, h in enumerate(hand))
        banker = banker_after(rest)[1] if hard <= 21 and min(rest) >= 0 else (0.0,) * 7

        def child(value: int, hand: Counts = hand) -> PontoonPlay:
            grown = list(hand)
            grown[value - 1] += 1
            return self.node(tuple(grown))

        probs = tuple(max(c, 0) / left for c in rest)
        play = PontoonPlay(self.rules, probs, banker, policy=self.policy, child=child)
        self.nodes[hand] = play
        return play


@dataclass
class PontoonAnalysis:
    rules: Rules
    ev: float = 0.0
    chart: dict[tuple[str, int], str] = field(default_factory=dict)
    later: dict[State, str] = field(default_factory=dict)


@lru_cache(maxsize=8)
def analyse_banker_game(rules: Rules) -> PontoonAnalysis:
    """The punter's expectation per unit of first stake against the banker rule."""
    counts = shoe_of(rules).counts()
    n = sum(counts)
    generic = PontoonPlay(rules, tuple(c / n for c in counts), banker_after(counts)[1])
    for cards in (4, 3):
        for hard in range(2, 22):
            for ace in (False, True):
                for stake in range(1, 8):
                    for cap in (0, 1, 2):
                        if hard + (10 if ace and hard + 10 <= 21 else 0) < 21:
                            generic.value((hard, ace, cards, stake, cap))
    out = PontoonAnalysis(rules, later=dict(generic.chosen))
    tree = _Tree(rules, counts, out.later)
    sums: dict[str, dict[str, float]] = {}
    starts: list[tuple[str, float, dict[str, float] | float]] = []
    for i in range(1, 11):
        for j in range(i, 11):
            ways = counts[i - 1] * (counts[j - 1] - (i == j)) * (1 if i == j else 2)
            if ways <= 0:
                continue
            w = ways / (n * (n - 1))
            rest = remove(counts, i, j)
            p_pontoon, banker = banker_after(rest)
            if {i, j} == {1, 10}:
                starts.append(("pontoon", w, (1 - p_pontoon) * 2 - p_pontoon * 2))
                continue
            play = tree.node(tuple(1 if v in (i, j) else 0 for v in range(1, 11))
                             if i != j else tuple(2 if v == i else 0 for v in range(1, 11)))
            evs = play.options((i + j, 1 in (i, j), 2, 1, 2))
            evs = {k: (1 - p_pontoon) * v - 2 * p_pontoon for k, v in evs.items()}
            row = f"S{i + j + 10}" if 1 in (i, j) and i + j + 10 <= 21 else f"H{i + j}"
            acc = sums.setdefault(row, {})
            for k, v in evs.items():
                acc[k] = acc.get(k, 0.0) + w * v
            starts.append((row, w, evs))
    for row, acc in sums.items():
        out.chart[(row, 0)] = max(acc, key=lambda k: acc[k])
    for row, w, start in starts:
        out.ev += w * (start if isinstance(start, float) else start[out.chart[(row, 0)]])
    return out


def later_moves(analysis: PontoonAnalysis) -> list[tuple[int, str, list[str]]]:
    """Moves with three and four cards by total, after a buy of two, a buy of one, a twist."""
    out = []
    for cards in (3, 4):
        for ace, kind in ((False, "hard"), (True, "soft")):
            for total in range(12 if not ace else 13, 21):
                hard = total - 10 if ace else total
                after = ((1 + 2 * (cards - 2), 2), (1 + (cards - 2), 1), (1, 0))
                moves = [MOVES_SHORT.get(analysis.later.get((hard, ace, cards, stake, cap), ""),
                                         "-") for stake, cap in after]
                out.append((cards, f"{kind} {total}", moves))
    return out


MOVES_SHORT = {"S": "S", "T": "T", "B": "B", "B2": "B2"}


def banker_chart_json(analysis: PontoonAnalysis) -> dict[str, object]:
    two = {}
    for (row, _), move in sorted(analysis.chart.items(), key=lambda r: (r[0][0][0],
                                                                         int(r[0][0][1:]))):
        two[f"{'soft' if row[0] == 'S' else 'hard'} {row[1:]}"] = move
    later = {f"{label} {cards} cards": dict(zip(("bought two", "bought one", "twisted"), moves,
                                                strict=True))
             for cards, label, moves in later_moves(analysis)}
    return {"profile": analysis.rules.name, "kind": f"against a banker who draws to "
            f"{BANKER_STANDS}", "stick_minimum": analysis.rules.stick_minimum,
            "two_cards": two, "three_and_four_cards": later, "codes": MOVES}
MOVES = {"S": "stick", "T": "twist", "B": "buy for one stake", "B2": "buy for two stakes"}


def format_banker_chart(analysis: PontoonAnalysis) -> str:
    lines = [f"Strategy, {analysis.rules.name}: against a banker who draws to {BANKER_STANDS}; "
             f"stick from {analysis.rules.stick_minimum}; pontoon stands", "",
             "two cards   move"]
    rows = sorted(analysis.chart, key=lambda r: (r[0][0], int(r[0][1:])))
    for row, _ in rows:
        name = f"soft {row[1:]}" if row[0] == "S" else f"hard {row[1:]}"
        lines.append(f"{name:<12}{MOVES[analysis.chart[(row, 0)]]}")
    lines += ["", "three and four cards, by total: after buying two stakes / after buying one "
              "stake / after twisting"]
    for cards, label, moves in later_moves(analysis):
        lines.append(f"{label} {cards} cards".ljust(20) + " / ".join(moves))
    lines.append("; ".join(f"{k} {v}" for k, v in MOVES.items()))
    return "\n".join(lines)
