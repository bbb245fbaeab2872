"""Settlement of a round's open bets once the dealer's (or banker's) hand is complete."""

from __future__ import annotations

from table.hands import hand_value, hard_total, is_natural
from table.ledger import pay
from table.payouts import pontoon_rank, ratio, win_amount
from table.profiles import Rules
from table.round_state import Box, Hand, Round
from table.sidebets import SIDE_BETS


def settle_side_bets(rules: Rules, rnd: Round, box: Box, when: str) -> None:
    """Settle the box's side bets that settle `when` ("deal" or "end")."""
    for (player, spot), stake in box.side.items():
        bet = SIDE_BETS[spot]
        if bet.settles != when:
            continue
        win = bet.judge(rules, box.dealt, rnd.dealer)
        if win is None:
            pay(rnd, player, spot, box.number, None, stake, 0, bet.lost())
        else:
            pay(rnd, player, spot, box.number, None, stake, stake + win_amount(stake, win[0]),
                win[1])


def _settle_insurance(rnd: Round, dealer_natural: bool) -> None:
    for box in rnd.boxes.values():
        for player, stake in box.insurance.items():
            if dealer_natural:
                pay(rnd, player, "insurance", box.number, None, stake, stake * 3,
                     "insurance 2:1 on a dealer blackjack")
            else:
                pay(rnd, player, "insurance", box.number, None, stake, 0,
                     "insurance lost: no dealer blackjack")
        box.insurance = {}


def natural_payout(rules: Rules, stake: int) -> tuple[int, str]:
    return stake + win_amount(stake, ratio(rules.blackjack_pays)), (
        f"blackjack {rules.blackjack_pays}"
    )


def settle_casino(rules: Rules, rnd: Round) -> None:
    """Settle everything still open against the dealer's finished hand."""
    dealer = rnd.dealer
    dealer_natural = is_natural(dealer[:2]) and len(dealer) >= 2
    dealer_total = hand_value(dealer)[0] if dealer else 0
    dealer_bust = hard_total(dealer) > 21
    _settle_insurance(rnd, dealer_natural)
    for box in rnd.boxes.values():
        if dealer_natural:
            _settle_box_against_natural(rules, rnd, box)
        else:
            _settle_box_by_totals(rules, rnd, box, dealer_total, dealer_bust)
    for box in rnd.boxes.values():
        settle_side_bets(rules, rnd, box, "end")


def _settle_box_by_totals(rules: Rules, rnd: Round, box: Box, dealer_total: int,
                          dealer_bust: bool) -> None:
    for index, hand in enumerate(box.hands):
        for player in hand.open_players():
            stake = hand.stakes[player]
            rule: str
            if hand.status == "bust":
                payout, rule = 0, "bust"
            elif hand.status == "late_surrender":
                payout, rule = stake // 2, "late surrender, half back"
            elif hand.status == "natural":
                payout, rule = natural_payout(rules, stake)
            else:
                total = hand.total()
                if dealer_bust:
                    payout, rule = stake * 2, "dealer busts"
                elif total > dealer_total:
                    payout, rule = stake * 2, f"{total} beats {dealer_total}"
                elif total == dealer_total:
                    if rules.ties == "push":
                        payout, rule = stake, f"{total} ties, push"
                    else:
                        payout, rule = 0, f"{total} ties, the dealer wins ties"
                else:
                    payout, rule = 0, f"{total} loses to {dealer_total}"
            pay(rnd, player, "main", box.number, index, stake, payout, rule)
            hand.settled.add(player)


def _settle_box_against_natural(rules: Rules, rnd: Round, box: Box) -> None:
    """A dealer blackjack found at the end: the profile says what it takes."""
    players: list[str] = list(box.main)
    for hand in box.hands:
        for player in hand.stakes:
            if player not in players:
                players.append(player)
    for player in players:
        busted = 0
        live: list[tuple[int, Hand]] = []
        for index, hand in enumerate(box.hands):
            if player not in hand.stakes or player in hand.settled:
                continue
            stake = hand.stakes[player]
            if hand.status == "bust":
                busted += stake
                pay(rnd, player, "main", box.number, index, stake, 0, "bust")
                hand.settled.add(player)
            elif hand.status == "natural":
                if rules.natural_vs_natural == "push":
                    pay(rnd, player, "main", box.number, index, stake, stake,
                         "blackjack against a dealer blackjack, push")
                else:
                    pay(rnd, player, "main", box.number, index, stake, 0,
                         "the dealer's blackjack beats a player's blackjack")
                hand.settled.add(player)
            elif hand.status == "late_surrender":
                pay(rnd, player, "main", box.number, index, stake, 0,
                     "late surrender lost to a dealer blackjack")
                hand.settled.add(player)
            else:
                live.append((index, hand))
        if not live:
            continue
        remaining = sum(hand.stakes[player] for _, hand in live)
        original = box.main.get(player, live[0][1].originals.get(player, 0))
        takes = rules.dealer_blackjack_takes
        if takes == "enhc":
            loss = remaining
        elif takes == "obo":
            loss = min(remaining, max(0, original - busted))
        elif takes == "bb+1":
            loss = min(remaining, original)
        else:
            loss = min(remaining, original * len(live))
        rule = f"dealer blackjack takes {takes}"
        for index, hand in live:
            stake = hand.stakes[player]
            lost = min(stake, loss)
            loss -= lost
            pay(rnd, player, "main", box.number, index, stake, stake - lost, rule)
            hand.settled.add(player)


def settle_banker(rules: Rules, rnd: Round) -> None:
    """British pontoon: every player's hand against the banker's."""
    banker = rnd.dealer
    banker_bust = hard_total(banker) > 21
    banker_trick = not banker_bust and len(banker) >= 5
    banker_rank = pontoon_rank(banker, is_natural(banker))
    for box in rnd.boxes.values():
        for index, hand in enumerate(box.hands):
            # A pontoon after splitting is paid as one; it only does not take the bank.
            rank = pontoon_rank(hand.cards, is_natural(hand.cards), rules.royal_pontoon)
            # Pontoons and tricks are paid double, a royal pontoon treble.
            odds = 3 if rank[0] == 5 else 2 if rank[0] >= 3 else 1
            bonus = {3: ", paid treble", 2: ", paid double", 1: ""}[odds]
            for player in hand.open_players():
                stake = hand.stakes[player]
                rule: str
                if rank[0] == 0:
                    payout, rule = 0, "bust"
                elif banker_bust:
                    payout = stake + stake * odds
                    rule = "banker busts" + bonus
                elif banker_trick:
                    if rank[0] >= 4:
                        payout = stake + stake * odds
                        rule = "pontoon beats the banker's trick" + bonus
                    else:
                        collects = rules.banker_trick_collects
                        payout = stake - stake * collects if collects == 1 else 0
                        rule = f"banker's five-card trick collects {collects}x"
                        if collects == 2:
                            # The loss is double the stake: booked as a payout below zero.
                            payout = -stake
                elif rank > banker_rank:
                    payout = stake + stake * odds
                    rule = "beats the banker" + bonus
                else:
                    payout, rule = 0, "the banker wins ties and higher hands"
                pay(rnd, player, "main", box.number, index, stake, payout, rule)
                hand.settled.add(player)
