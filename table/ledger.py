"""The round's ledger: every stake settled goes through `pay`, with the rule that paid it."""

from __future__ import annotations

from table.round_state import Entry, Hand, Round


def pay(rnd: Round, player: str, spot: str, box: int, hand: int | None, stake: int,
        payout: int, reason: str) -> None:
    """Book one settlement line: `payout` is everything paid back on `stake` (0: lost;
    below zero: the bettor pays more than the stake), `reason` the rule that decided it."""
    rnd.ledger.append(Entry(player, spot, box, hand, stake, payout, reason))


def settle_hand(rnd: Round, hand: Hand, player: str, payout: int, reason: str) -> None:
    """Settle one bettor's stake on a hand at once; the hand keeps no open stake for them."""
    pay(rnd, player, "main", hand.box, rnd.hand_index(hand), hand.stakes[player], payout,
        reason)
    hand.settled.add(player)


def void(rnd: Round) -> None:
    """A voided round pays nothing: every line goes, every stake is open again."""
    rnd.ledger.clear()
    for box in rnd.boxes.values():
        for hand in box.hands:
            hand.settled.clear()
