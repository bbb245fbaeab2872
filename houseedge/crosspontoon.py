"""The British pontoon simulator against the table engine, pack by pack."""

from __future__ import annotations

import numpy as np

from houseedge.crosscheck import CrossCheck
from houseedge.pontoon import BANKER_STANDS, PontoonAnalysis
from houseedge.sim import STAKE, Record, shoe_codes, tops_of_shoes
from houseedge.simpontoon import BUY, BUY2, STICK, play_packs, policy_table
from table.cards import CARD_POINTS
from table.events import Bet, Card, Deal, Do
from table.hands import hand_value, hard_total
from table.machine import Table
from table.profiles import Rules


def _round(table: Table, pack: list[str], first: np.ndarray,
           later: np.ndarray) -> tuple[int, dict[int, int]]:
    used = 0
    units, cap = 1, 2

    def apply(event: Bet | Deal | Card | Do) -> None:
        outcome = table.apply(event)
        if not outcome.accepted:
            raise AssertionError(f"refused {event}: {outcome.reason}")

    def card() -> None:
        nonlocal used
        apply(Card(pack[used]))
        used += 1

    apply(Bet(1, STAKE))
    apply(Deal())
    for _ in range(60):
        due = table.due()
        if due.phase in ("settled", "void") or due.halted:
            break
        if due.phase == "dealing":
            card()
            continue
        view = table.view()
        if due.phase == "playing":
            hand = view.boxes[0].hands[due.hand or 0]
            hard = hard_total(hand.cards)
            ace = any(c[0] == "A" for c in hand.cards)
            if len(hand.cards) == 2:
                move = int(first[hard, int(ace)])
            else:
                move = int(later[hard, int(ace), len(hand.cards), units, cap])
            if move == STICK:
                apply(Do(1, "stand"))
                continue
            if move in (BUY, BUY2):
                chips = 2 if move == BUY2 else 1
                apply(Do(1, "buy", amount=chips * STAKE))
                units, cap = units + chips, chips
            else:
                apply(Do(1, "twist"))
                cap = 0
            card()
            continue
        dealer = list(view.dealer)
        total, _ = hand_value(dealer)
        if total < BANKER_STANDS and sum(CARD_POINTS[c] for c in dealer) <= 21 \
                and len(dealer) < 5:
            card()
        else:
            apply(Do("dealer", "stand"))
    result = table.current_result()
    assert result is not None
    hands: dict[int, int] = {}
    for entry in result["settlement"]:
        if entry["spot"] == "main" and entry["hand"] is not None:
            index = int(entry["hand"])
            hands[index] = hands.get(index, 0) + entry["payout"] - entry["stake"]
    return used, hands


def cross_check_banker_game(rules: Rules, analysis: PontoonAnalysis, rounds: int,
                            seed: int = 7) -> CrossCheck:
    rng = np.random.default_rng(seed)
    packs = tops_of_shoes(rules, rounds, rng, cards=12)
    records = [Record() for _ in range(rounds)]
    play_packs(rules, analysis, packs, records)
    first, later = policy_table(analysis)
    out = CrossCheck()
    table = Table(rules, keep_rounds=1)
    for lane, rec in enumerate(records):
        pack = shoe_codes(packs[lane])
        where = f"round {lane + 1} (cards {pack[:rec.cards[0]]})"
        try:
            used, hands = _round(table, pack, first, later)
        except AssertionError as exc:
            out.differences.append(f"{where}: {exc}")
            table = Table(rules, keep_rounds=1)
            continue
        out.rounds += 1
        out.hands += len(hands)
        mine = dict(enumerate(rec.hands[0]))
        if used != rec.cards[0] or hands != mine:
            out.differences.append(f"{where}: engine used {used} cards, hands {hands}; "
                                   f"simulator {rec.cards[0]}, {mine}")
        if len(out.differences) > 20:
            break
    return out
