"""One round on every lane at once: the deal, the box's hands, the dealer, the settlement."""

from __future__ import annotations

import numpy as np

from foundation.cards import ALL_CARDS
from houseedge.mainbet import Analysis
from houseedge.sim import (
    AS,
    BUST,
    JS,
    NATURAL,
    PAID,
    PLAYING,
    RANK,
    RESCUED,
    STAKE,
    STOOD,
    SURRENDERED,
    VALUE,
    D,
    H,
    Ints,
    P,
    R,
    Record,
    Tables,
    check_supported,
)
from houseedge.simbonus import natural_takes, pay_21_at_once
from table.payouts import ratio, sevens_prize, win_amount
from table.profiles import Rules

SLOTS = 4


class Game:
    """Lanes of shoes and the rules, strategy and pay amounts to play them with."""

    def __init__(self, rules: Rules, analysis: Analysis, shoes: Ints) -> None:
        check_supported(rules)
        self.rules = rules
        self.tables = Tables.of(analysis)
        self.lanes, self.size = shoes.shape
        self.shoe = shoes.ravel()
        self.base = np.arange(self.lanes, dtype=np.int64) * self.size
        self.ptr = np.zeros(self.lanes, dtype=np.int64)
        self.peek = rules.hole_card == "peek"
        self.bj_win = win_amount(STAKE, ratio(rules.blackjack_pays))
        self.bonus_bj = (win_amount(STAKE, ratio(rules.bonus_blackjack_pays))
                         if rules.bonus_blackjack_pays != "none" else 0)
        self.seven_odds = ratio(rules.triple_seven_pays)
        self.bust_win = win_amount(STAKE, ratio(rules.dealer_bust_pays))

    def draw(self, lanes: Ints) -> Ints:
        codes = self.shoe[self.base[lanes] + self.ptr[lanes]]
        self.ptr[lanes] += 1
        return codes


class Round:
    """The state of one round on `lanes` (indices into the game's lanes)."""

    def __init__(self, game: Game, lanes: Ints) -> None:
        self.g = game
        self.lanes = lanes
        m = len(lanes)
        self.m = m
        self.hard = np.zeros((m, SLOTS), dtype=np.int64)
        self.ace = np.zeros((m, SLOTS), dtype=bool)
        self.n = np.zeros((m, SLOTS), dtype=np.int64)
        self.sevens = np.zeros((m, SLOTS), dtype=np.int64)
        self.stake = np.full((m, SLOTS), STAKE, dtype=np.int64)
        self.status = np.full((m, SLOTS), -1, dtype=np.int64)
        self.net = np.zeros((m, SLOTS), dtype=np.int64)
        self.extra = np.zeros(m, dtype=np.int64)
        self.nh = np.ones(m, dtype=np.int64)
        self.split = np.zeros(m, dtype=bool)
        self.pair = np.zeros(m, dtype=np.int64)
        # The first three cards of each hand (codes), for the bonuses and prizes.
        self.cards3 = np.full((m, SLOTS, 3), -1, dtype=np.int64)
        self.first_code = np.full((m, SLOTS), -1, dtype=np.int64)

    def draw(self, idx: Ints) -> Ints:
        return self.g.draw(self.lanes[idx])

    def add(self, idx: Ints, slot: int, codes: Ints) -> None:
        values = VALUE[codes]
        self.hard[idx, slot] += values
        self.ace[idx, slot] |= values == 1
        self.n[idx, slot] += 1
        self.sevens[idx, slot] += values == 7
        pos = self.n[idx, slot]
        early = pos <= 3
        self.cards3[idx[early], slot, pos[early] - 1] = codes[early]

    def total(self, idx: Ints, slot: int) -> Ints:
        hard = self.hard[idx, slot]
        soft = self.ace[idx, slot] & (hard + 10 <= 21)
        if self.g.rules.double_ace_counts_one:
            soft &= self.stake[idx, slot] == STAKE
        return np.where(soft, hard + 10, hard)

    def after_card(self, idx: Ints, slot: int) -> None:
        """The table's checks on a card given to a hand in play (see Table._give_card)."""
        rules = self.g.rules
        hard = self.hard[idx, slot]
        bust = hard > 21
        self.status[idx[bust], slot] = BUST
        idx = idx[~bust]
        if rules.triple_seven != "none" and slot == 0 and len(idx):
            seven = idx[(self.n[idx, 0] == 3) & (self.sevens[idx, 0] == 3) & ~self.split[idx]]
            wins = np.array([win_amount(int(s), self.g.seven_odds) for s in self.stake[seven, 0]],
                            dtype=np.int64)
            if rules.triple_seven == "at_once_ends_box":
                self.status[seven, 0] = PAID
                self.net[seven, 0] = wins
                idx = idx[~np.isin(idx, seven)]
            else:
                self.extra[seven] += wins
        total = self.total(idx, slot)
        if rules.twenty_one_wins_at_once:
            pay_21_at_once(self, idx[total == 21], slot)
            idx, total = idx[total != 21], total[total != 21]
        done = total == 21
        doubled = self.stake[idx, slot] > STAKE
        if not rules.hit_after_double:
            done |= doubled
        if rules.double_down_rescue:
            hard = self.hard[idx, slot]
            move = self.g.tables.later[np.minimum(hard, 31), self.ace[idx, slot].astype(np.int64),
                                       np.minimum(self.n[idx, slot], 7), 2, self.up[idx]]
            rescued = doubled & (move == R) & (total != 21)
            self.status[idx[rescued], slot] = RESCUED
            done &= ~rescued
        self.status[idx[done], slot] = STOOD

    def play_hand(self, idx: Ints, slot: int, das: bool) -> None:
        """Hit, stand or double by the strategy until every hand in `idx` is finished."""
        later = self.g.tables.later
        any_cards = self.g.rules.double_cards == "any"
        idx = idx[self.status[idx, slot] == PLAYING]
        up = self.up
        while len(idx):
            cards = np.minimum(self.n[idx, slot], 7)
            may = das & ((cards == 2) | any_cards)
            mode = np.where(self.stake[idx, slot] > STAKE, 2, np.where(may, 0, 1))
            move = later[self.hard[idx, slot], self.ace[idx, slot].astype(np.int64), cards,
                         mode, up[idx]]
            stand = idx[(move != H) & (move != D)]
            self.status[stand, slot] = STOOD
            dbl = idx[move == D]
            self.stake[dbl, slot] *= 2
            go = idx[(move == H) | (move == D)]
            self.add(go, slot, self.draw(go))
            self.after_card(go, slot)
            idx = go[self.status[go, slot] == PLAYING]

    def split_hand(self, idx: Ints, slot: int) -> None:
        """A split hand's second card, resplits, then its play."""
        rules = self.g.rules
        p = self.pair[idx]
        self.cards3[idx, slot] = -1
        self.cards3[idx, slot, 0] = self.first_code[idx, slot]
        self.hard[idx, slot] = p
        self.ace[idx, slot] = p == 1
        self.n[idx, slot] = 1
        self.sevens[idx, slot] = p == 7
        self.status[idx, slot] = PLAYING
        pending = idx
        while len(pending):
            codes = self.draw(pending)
            room = (self.nh[pending] < rules.max_split_hands) & (
                (self.pair[pending] != 1) | rules.resplit_aces)
            again = room & (VALUE[codes] == self.pair[pending])
            self.first_code[pending[again], self.nh[pending[again]]] = codes[again]
            self.nh[pending[again]] += 1
            keep = pending[~again]
            self.add(keep, slot, codes[~again])
            pending = pending[again]
        self.after_card(idx, slot)
        if rules.split_aces_one_card:
            aces = idx[(self.pair[idx] == 1) & (self.status[idx, slot] == PLAYING)]
            self.status[aces, slot] = STOOD
        rest = idx[self.status[idx, slot] == PLAYING]
        for is_ace, das in ((True, rules.double_split_aces), (False, rules.double_after_split)):
            group = rest[(self.pair[rest] == 1) == is_ace]
            self.play_hand(group, slot, das)

    def play(self) -> None:
        g, rules = self.g, self.g.rules
        every = np.arange(self.m)
        c1 = self.draw(every)
        up_code = self.draw(every)
        c2 = self.draw(every)
        self.c1, self.c2 = c1, c2
        self.dealer = [up_code]
        if self.g.peek:
            self.dealer.append(self.draw(every))
        self.up = VALUE[up_code]
        self.cards3[:, 0, 0], self.cards3[:, 0, 1] = c1, c2
        v1, v2 = VALUE[c1], VALUE[c2]
        self.hard[:, 0] = v1 + v2
        self.ace[:, 0] = (v1 == 1) | (v2 == 1)
        self.n[:, 0] = 2
        self.sevens[:, 0] = (v1 == 7).astype(np.int64) + (v2 == 7)
        self.status[:, 0] = PLAYING
        natural = ((v1 == 1) & (v2 == 10)) | ((v1 == 10) & (v2 == 1))
        self.status[natural, 0] = NATURAL
        if g.bonus_bj:
            bonus = natural & (((c1 == AS) & (c2 == JS)) | ((c1 == JS) & (c2 == AS)))
            self.status[bonus, 0] = PAID
            self.net[bonus, 0] = g.bonus_bj
        if rules.natural_paid == "at_once":
            at_once = self.status[:, 0] == NATURAL
            self.status[at_once, 0] = PAID
            self.net[at_once, 0] = g.bj_win
        self.peeked = np.zeros(self.m, dtype=bool)
        if g.peek:
            hole = VALUE[self.dealer[1]]
            self.peeked = ((self.up == 1) & (hole == 10)) | ((self.up == 10) & (hole == 1))
        idx = every[(self.status[:, 0] == PLAYING) & ~self.peeked]
        move = g.tables.first[v1[idx], v2[idx], self.up[idx]]
        self.status[idx[move == R], 0] = SURRENDERED
        self.status[idx[move == 0], 0] = STOOD
        split = idx[move == P]
        self.first_code[split, 0], self.first_code[split, 1] = c1[split], c2[split]
        self.split[split] = True
        self.pair[split] = v1[split]
        self.nh[split] = 2
        dbl = idx[move == D]
        self.stake[dbl, 0] *= 2
        go = idx[(move == H) | (move == D)]
        self.add(go, 0, self.draw(go))
        self.after_card(go, 0)
        self.play_hand(go[self.status[go, 0] == PLAYING], 0, True)
        if len(split):
            self.split_hand(split, 0)
            for slot in range(1, SLOTS):
                here = split[self.nh[split] > slot]
                if len(here):
                    self.split_hand(here, slot)
        self.play_dealer()
        self.settle()

    def play_dealer(self) -> None:
        g, rules = self.g, self.g.rules
        m = self.m
        status = self.status
        live = (status == STOOD).any(axis=1)
        ace_ten = (self.up == 1) | (self.up == 10)
        waiting = (status == NATURAL).any(axis=1)
        if rules.surrender == "late":
            waiting |= (status == SURRENDERED).any(axis=1)
        waiting &= ace_ten
        full = live | ("dealer_bust" in rules.side_bets)
        full &= ~self.peeked
        hard = self.up.copy()
        ace = self.up == 1
        count = np.ones(m, dtype=np.int64)
        if g.peek:
            hole = VALUE[self.dealer[1]]
            hard += hole
            ace |= hole == 1
            count += 1
        else:
            need = np.nonzero((full | waiting) & ~self.peeked)[0]
            hole = np.zeros(m, dtype=np.int64)
            hole[need] = VALUE[self.draw(need)]
            hard[need] += hole[need]
            ace[need] |= hole[need] == 1
            count[need] += 1
        idx = np.nonzero(full)[0]
        h17 = rules.dealer_hits_soft_17
        while len(idx):
            h = hard[idx]
            soft = ace[idx] & (h + 10 <= 21)
            total = np.where(soft, h + 10, h)
            more = (total < 17) | (h17 & soft & (total == 17))
            idx = idx[more]
            if not len(idx):
                break
            values = VALUE[self.draw(idx)]
            hard[idx] += values
            ace[idx] |= values == 1
            count[idx] += 1
        soft = ace & (hard + 10 <= 21)
        self.dealer_total = np.where(soft, hard + 10, hard)
        self.dealer_natural = (count == 2) & (self.dealer_total == 21)
        self.dealer_bust = hard > 21

    def settle(self) -> None:
        g, rules = self.g, self.g.rules
        dn = self.dealer_natural[:, None]
        dt = np.where(self.dealer_bust, 0, self.dealer_total)[:, None]
        stake = self.stake
        status = self.status
        mine = self.total_all()
        tie = 0 if rules.ties == "push" else -1
        compare = np.where(mine > dt, 1, np.where(mine == dt, tie, -1)) * stake
        stood = np.where(dn, -stake, compare)
        half = stake // 2
        late = rules.surrender == "late"
        surrendered = np.where(dn & late, -stake, -half)
        nat_vs = 0 if rules.natural_vs_natural == "push" else -STAKE
        natural = np.where(dn, nat_vs, g.bj_win)
        net = np.select([status == STOOD, status == BUST, status == SURRENDERED,
                         status == NATURAL, status == PAID, status == RESCUED],
                        [stood, -stake, surrendered, natural, self.net, -STAKE], 0)
        if rules.dealer_blackjack_takes != "enhc" and not g.peek:
            net = natural_takes(rules.dealer_blackjack_takes, status, stake, net,
                                self.dealer_natural)
        peeked = self.peeked[:, None]
        if g.peek:
            first = np.zeros_like(net)
            first[:, 0] = np.where(status[:, 0] == NATURAL, nat_vs, -STAKE)
            net = np.where(peeked, first, net)
        self.net = net
        if rules.sevens_prizes:
            for k in np.nonzero((VALUE[self.c1] == 7) & (VALUE[self.c2] == 7)
                                & (self.nh == 1))[0]:
                cards = [ALL_CARDS[int(c)] for c in self.cards3[k, 0] if c >= 0]
                prize = sevens_prize(cards)
                if prize is not None:
                    self.extra[k] += win_amount(int(self.stake[k, 0]), prize[0])
        self.main = net.sum(axis=1) + self.extra
        self.sides: dict[str, Ints] = {}
        if "dealer_bust" in rules.side_bets:
            self.sides["dealer_bust"] = np.where(self.dealer_bust, g.bust_win, -STAKE)
        if "pair" in rules.side_bets:
            same = RANK[self.c1] == RANK[self.c2]
            self.sides["pair"] = np.where(same, STAKE * rules.pair_pays, -STAKE)

    def total_all(self) -> Ints:
        hard = self.hard
        soft = self.ace & (hard + 10 <= 21)
        if self.g.rules.double_ace_counts_one:
            soft &= self.stake == STAKE
        return np.where(soft, hard + 10, hard)

    def record(self, records: list[Record], start: Ints) -> None:
        for k, lane in enumerate(self.lanes):
            if lane >= len(records):
                continue
            rec = records[int(lane)]
            rec.cards.append(int(self.g.ptr[lane] - start[k]))
            nets = [int(x) for x in self.net[k, : self.nh[k]]]
            nets[0] += int(self.extra[k])
            rec.hands.append(nets)
            rec.sides.append({spot: int(v[k]) for spot, v in self.sides.items()})
