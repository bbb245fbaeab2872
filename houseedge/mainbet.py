"""Combinatorial analysis of the main game under a total-dependent basic strategy.

For every dealer up card and every two-card start, the shoe loses the three
cards; the dealer's outcome probabilities are computed exactly on what is
left, the player's with the start's cards removed. Decisions after the first
are the best play on the shoe less the up card (they depend on the total, the
card count and whether a double is open, never on which cards made it);
the first decision is, for each total, soft total and pair, the action with
the best expectation over all starts making it: that is the strategy chart.
Splits: each split hand starts from the pair card; resplits follow the
chance of drawing another one (the usual approximation).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from houseedge.dealer import after_up
from houseedge.player import HandEV, Play, Policy
from houseedge.removal import RemovalTree
from houseedge.shoe import Counts, remove, shoe_of
from table.payouts import ratio
from table.profiles import Rules

UPS = tuple(range(1, 11))
# The stake the fixed super bonus is reckoned on (the simulator's stake too).
SUPER_BONUS_STAKE = 10


def category(i: int, j: int) -> str:
    """Chart row of a two-card start: 'P8' pairs, 'S17' soft totals, 'H12' hard totals."""
    if i == j:
        return f"P{i}"
    if 1 in (i, j):
        return f"S{i + j + 10}"
    return f"H{i + j}"


def probs_of(counts: Counts) -> tuple[float, ...]:
    left = sum(counts)
    return tuple(c / left for c in counts)


@dataclass
class Analysis:
    """The main game's expectation, its strategy and the figures behind them."""

    rules: Rules
    decks: int
    ev: float = 0.0
    natural_ev: float = 0.0
    # (row, up) -> expectation of each first action, averaged over the starts of that row.
    rows: dict[tuple[str, int], dict[str, float]] = field(default_factory=dict)
    chart: dict[tuple[str, int], str] = field(default_factory=dict)
    later: dict[int, Policy] = field(default_factory=dict)
    bonus_ev: dict[str, float] = field(default_factory=dict)

    @property
    def house_edge(self) -> float:
        return -self.ev

    def fallback(self, row: str, up: int, without: str) -> str:
        options = {k: v for k, v in self.rows[(row, up)].items() if k not in without}
        return max(options, key=lambda k: options[k])


class _Analyser:
    def __init__(self, rules: Rules, decks: int | None, removal: bool) -> None:
        self.rules = rules
        self.shoe = shoe_of(rules, decks)
        self.counts = self.shoe.counts()
        self.play = Play.of(rules)
        self.peek = rules.hole_card == "peek"
        self.h17 = rules.dealer_hits_soft_17
        self.bj = float(ratio(rules.blackjack_pays))
        self.result = Analysis(rules, self.shoe.decks)
        self.removal = removal
        # Per start: the play actions' expectations before bonuses, and the dealer natural.
        self.raw: dict[tuple[int, int, int], dict[str, float]] = {}
        self.nat: dict[tuple[int, int, int], float] = {}

    # -- later decisions ------------------------------------------------------
    def later_policy(self, up: int) -> Policy:
        counts = remove(self.counts, up)
        p_nat, dist = after_up(up, counts, self.h17)
        ctx = HandEV(self.play, probs_of(counts), dist, 0.0 if self.peek else p_nat)
        for cards in range(2, 8):
            for hard in range(2, 21):
                for ace in (False, True):
                    for mode in (0, 1):
                        ctx.value((hard, ace, cards, mode))
        return dict(ctx.chosen)

    # -- one start ------------------------------------------------------------
    def split_ev(self, p: int, up: int, counts: Counts, probs: tuple[float, ...],
                 p_nat: float, dist: tuple[float, ...], policy: Policy) -> float:
        rules = self.rules
        das = rules.double_split_aces if p == 1 else rules.double_after_split
        one_card = p == 1 and rules.split_aces_one_card
        share = 1.0 if self.play.takes == "obbo" else 1.0 / 2
        hand = HandEV(self.play, probs, (dist[0], dist[1], dist[2], dist[3], dist[4], dist[5]),
                      p_nat, share=share, one_card=one_card, policy=policy)
        mode = 0 if das else 1

        def post(c: int) -> float:
            return hand.after_card((p + c, p == 1 or c == 1, 2, mode))

        q = probs[p - 1]
        others = sum(probs[c - 1] * post(c) for c in UPS if c != p and probs[c - 1])
        v_np = others / (1 - q) if q < 1 else 0.0
        v_pp = post(p)
        most = rules.max_split_hands
        resplit = most > 2 and (p != 1 or rules.resplit_aces)
        memo: dict[tuple[int, int], float] = {}

        def f(pending: int, hands: int) -> float:
            if pending == 0:
                return 0.0
            key = (pending, hands)
            if key not in memo:
                if resplit and hands < most:
                    pair_case = f(pending + 1, hands + 1)
                else:
                    pair_case = v_pp + f(pending - 1, hands)
                memo[key] = q * pair_case + (1 - q) * (v_np + f(pending - 1, hands))
            return memo[key]

        del counts
        return f(2, 2)

    def may_split(self, p: int) -> bool:
        rules = self.rules
        if rules.max_split_hands < 2:
            return False
        ranks = set(rules.split_ranks)
        return ("A" in ranks) if p == 1 else (
            bool(ranks & set("TJQK")) if p == 10 else str(p) in ranks)

    def surrender_ev(self, up: int, p_nat: float) -> float | None:
        rules = self.rules
        against = {1 if r == "A" else 10 if r in "TJQK" else int(r)
                   for r in rules.surrender_against}
        if rules.surrender == "none" or up not in against:
            return None
        if rules.surrender == "early" or self.peek:
            return -0.5
        return -0.5 * (1 - p_nat) - p_nat

    def start(self, i: int, j: int, up: int, policy: Policy) -> dict[str, float]:
        counts = remove(self.counts, i, j, up)
        p_nat, dist = after_up(up, counts, self.h17)
        play_nat = 0.0 if self.peek else p_nat
        probs = probs_of(counts)
        if {i, j} == {1, 10}:
            ev = self.natural(p_nat)
            return {"BJ": ev}
        ctx = HandEV(self.play, probs, dist, play_nat, policy=policy)
        evs = ctx.actions((i + j, 1 in (i, j), 2, 0))
        self.raw[(i, j, up)] = dict(evs)
        self.nat[(i, j, up)] = p_nat
        self.hooks(i, j, up, probs, ctx, evs)
        surrender = self.surrender_ev(up, play_nat)
        if surrender is not None:
            evs["R"] = surrender
        if i == j and self.may_split(i):
            evs["P"] = self.split_ev(i, up, counts, probs, play_nat, dist, policy)
        if self.peek:
            evs = {k: (1 - p_nat) * v - p_nat for k, v in evs.items()}
        return evs

    def natural(self, p_nat: float) -> float:
        rules = self.rules
        pay = self.bj
        if rules.bonus_blackjack_pays != "none":
            tens = self.counts[9]
            p_bonus = self.shoe.decks / self.counts[0] * self.shoe.decks / tens
            pay = p_bonus * float(ratio(rules.bonus_blackjack_pays)) + (1 - p_bonus) * pay
        if rules.natural_paid == "at_once":
            return pay
        against = 0.0 if rules.natural_vs_natural == "push" else -1.0
        return (1 - p_nat) * pay + p_nat * against

    def hooks(self, i: int, j: int, up: int, probs: tuple[float, ...], ctx: HandEV,
              evs: dict[str, float]) -> None:
        """Bonuses paid on three-card starts: triple seven, prizes, 6-7-8 and 7-7-7."""
        rules = self.rules
        d = self.shoe.decks
        if i == j == 7 and rules.triple_seven != "none":
            p7 = probs[6]
            odds = float(ratio(rules.triple_seven_pays))
            for action, stake in (("H", 1), ("D", 2)):
                if action not in evs:
                    continue
                if rules.triple_seven == "at_once_ends_box":
                    base = ctx.after_card((21, False, 3, 1 if stake == 1 else 2))
                    evs[action] += p7 * (stake * odds - base)
                else:
                    evs[action] += p7 * stake * odds
        if i == j == 7 and rules.sevens_prizes:
            p7 = probs[6]
            two_suited = (d - 1) / (4 * d - 1)
            three_suited = (d - 2) / (4 * d - 2)
            for action in list(evs):
                stake = 2 if action == "D" else 1
                if action in ("H", "D"):
                    third = 2 * three_suited + 1 * (1 - three_suited)
                    evs[action] += stake * (p7 * two_suited * third + p7 * (1 - two_suited) * 1
                                            + (1 - p7) * two_suited * 0.5)
                else:
                    evs[action] += two_suited * 0.5
        if rules.pontoon_bonuses and rules.twenty_one_wins_at_once and "H" in evs:
            need = {(6, 7): 8, (6, 8): 7, (7, 8): 6, (7, 7): 7}.get((min(i, j), max(i, j)))
            if need is not None:
                if i == j:
                    same = (d - 1) * (d - 2) / ((4 * d - 1) * (4 * d - 2))
                    spades = same / 4
                else:
                    same, spades = 1 / 16, 1 / 64
                suited = same - spades
                if i == j and up == 7:
                    small = SUPER_BONUS_STAKE < rules.super_bonus_large_from
                    fixed = (rules.super_bonus_small if small
                             else rules.super_bonus_large) / SUPER_BONUS_STAKE
                    odds = same * fixed + (1 - same) * 1.5
                else:
                    odds = spades * 3 + suited * 2 + (1 - same) * 1.5
                evs["H"] += probs[need - 1] * (odds - 1.0)

    # -- the whole game -------------------------------------------------------
    def run(self) -> Analysis:
        out = self.result
        counts = self.counts
        n = sum(counts)
        sums: dict[tuple[str, int], dict[str, float]] = {}
        weights: dict[tuple[str, int], float] = {}
        starts: list[tuple[str, int, float, dict[str, float], int, int]] = []
        for up in UPS:
            policy = self.later_policy(up)
            out.later[up] = policy
            for i in UPS:
                for j in range(i, 11):
                    ways = counts[i - 1] * (counts[j - 1] - (i == j))
                    if i != j:
                        ways *= 2
                    ways *= counts[up - 1] - (up == i) - (up == j)
                    if ways <= 0:
                        continue
                    w = ways / (n * (n - 1) * (n - 2))
                    evs = self.start(i, j, up, policy)
                    row = "BJ" if "BJ" in evs else category(i, j)
                    acc = sums.setdefault((row, up), {})
                    for k, v in evs.items():
                        acc[k] = acc.get(k, 0.0) + w * v
                    weights[(row, up)] = weights.get((row, up), 0.0) + w
                    starts.append((row, up, w, evs, i, j))
        for key, acc in sums.items():
            total_w = weights[key]
            out.rows[key] = {k: v / total_w for k, v in acc.items()}
            out.chart[key] = max(acc, key=lambda k: acc[k])
        trees: dict[int, RemovalTree] = {}
        for row, up, w, evs, i, j in starts:
            action = out.chart[(row, up)]
            value = evs[action]
            if self.removal and action in ("S", "H", "D"):
                if up not in trees:
                    trees[up] = RemovalTree(self.play, remove(counts, up), up, self.h17,
                                            self.peek, out.later[up])
                raw = self.raw[(i, j, up)]
                p_nat = self.nat[(i, j, up)]
                bonus = (evs[action] + p_nat) / (1 - p_nat) if self.peek else evs[action]
                bonus -= raw[action]
                value = trees[up].actions(i, j)[action] + bonus
                if self.peek:
                    value = (1 - p_nat) * value - p_nat
            out.ev += w * value
            if row == "BJ":
                out.natural_ev += w * value
        return out


def analyse(rules: Rules, decks: int | None = None, removal: bool = True) -> Analysis:
    """The main game of a casino profile: expectation per unit and strategy.

    `removal=False` leaves the player's drawn cards in the shoe for the final
    expectation (faster; the strategy is the same either way).
    """
    return _Analyser(rules, decks, removal).run()


def natural_frequency(rules: Rules) -> Fraction:
    counts = shoe_of(rules).counts()
    n = sum(counts)
    return Fraction(2 * counts[0] * counts[9], n * (n - 1))
