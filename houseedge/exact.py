"""Bets settled on the first cards, by exact combinatorics on the profile's shoe.

Every function enumerates the cards by code (each code held `decks` times,
drawn without replacement), uses the table's own pay tables
(`table.payouts`), and returns the bet's expected net return per unit staked
as an exact fraction. A house edge is minus that figure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import product

from houseedge.shoe import Shoe, card_value
from table.payouts import pair_bet, queens_trio, ratio, sevens_bet, three_card_wins

Pay = Callable[[Sequence[str]], int | Fraction | None]


def _ordered(shoe: Shoe, k: int, pay: Pay) -> Fraction:
    """Expected net return of a bet paid `pay(cards):1` on k cards in dealing order."""
    cards = shoe.cards
    copies = shoe.decks
    size = shoe.size
    total: int | Fraction = 0
    for combo in product(cards, repeat=k):
        weight = 1
        seen: dict[str, int] = {}
        for card in combo:
            held = copies - seen.get(card, 0)
            if held <= 0:
                weight = 0
                break
            weight *= held
            seen[card] = seen.get(card, 0) + 1
        if not weight:
            continue
        odds = pay(combo)
        total += weight * (-1 if odds is None else odds)
    ways = 1
    for i in range(k):
        ways *= size - i
    return Fraction(total) / ways


def pair(shoe: Shoe, pays: int) -> Fraction:
    """Pair: the box's first two cards of the same rank."""
    def pay(cards: Sequence[str]) -> int | None:
        result = pair_bet(cards, pays)
        return None if result is None else result[0]
    return _ordered(shoe, 2, pay)


def three_card(shoe: Shoe, bet: str) -> Fraction:
    """3 Card Wins or Queens Trio: the box's two cards and the dealer's first card.

    The three cards are a random draw from the shoe whichever order they come
    in, so the box's two cards are the first two and the dealer's the third.
    """
    judge = three_card_wins if bet == "3cw" else queens_trio

    def pay(cards: Sequence[str]) -> int | None:
        result = judge(cards[:2], cards[2])
        return None if result is None else result[0]
    return _ordered(shoe, 3, pay)


def sevens_first_cards(shoe: Shoe, third_card: Callable[[str], float]) -> Fraction:
    """ru-casino Sevens on the box's first three cards.

    `third_card(up_value)` is the chance the box takes a third card holding
    7-7 against a dealer card of that value (1 for hit, double or split, 0 for
    stand or surrender): the player's strategy decides whether it comes.
    Sevens pays on the first card alone unless it is a seven, so only 7-7
    starts need the third card; the dealer's card is drawn between them.
    """
    cards = shoe.cards
    copies = shoe.decks
    size = shoe.size
    # Two cards: everything but 7-7 is settled by them.
    two = Fraction(0)
    for a, b in product(cards, repeat=2):
        weight = Fraction(copies * (copies - (a == b)), size * (size - 1))
        if a[0] == "7" and b[0] == "7":
            continue
        result = sevens_bet([a, b])
        two += weight * (-1 if result is None else result[0])
    sevens = [c for c in cards if c[0] == "7"]
    three = Fraction(0)
    for a, b in product(sevens, repeat=2):
        w_ab = Fraction(copies * (copies - (a == b)), size * (size - 1))
        # Dealer's card: any card left, by value (its suit does not matter here).
        left = size - 2
        for up in cards:
            held = copies - (up == a) - (up == b)
            if held <= 0:
                continue
            w_up = Fraction(held, left)
            go = Fraction(third_card(str(card_value(up)))).limit_denominator(10**6)
            pay_two = sevens_bet([a, b])
            assert pay_two is not None
            if go == 0:
                three += w_ab * w_up * pay_two[0]
                continue
            pool = left - 1
            value = Fraction(0)
            for c in cards:
                held_c = copies - (c == a) - (c == b) - (c == up)
                if held_c <= 0:
                    continue
                result = sevens_bet([a, b, c])
                assert result is not None
                value += Fraction(held_c, pool) * result[0]
            three += w_ab * w_up * (go * value + (1 - go) * pay_two[0])
    return two + three


def insurance(shoe: Shoe, pays: str = "2:1", natural: bool = False) -> Fraction:
    """Insurance against a dealer ace: wins when the dealer's second card is ten-value.

    Over every hand the box may hold, the chance of a ten after an ace is the
    tens left over the cards left (the box's unseen cards average out). With
    `natural`, the box holds A+T (even money is insurance on a natural).
    """
    counts = shoe.counts()
    tens = counts[9] - (1 if natural else 0)
    left = shoe.size - 1 - (2 if natural else 0)
    p = Fraction(tens, left)
    odds = ratio(pays)
    return p * odds - (1 - p)


def natural_chance(shoe: Shoe) -> Fraction:
    """Chance that two cards off the top are an ace and a ten-value card."""
    counts = shoe.counts()
    n = shoe.size
    return Fraction(2 * counts[0] * counts[9], n * (n - 1))


def bonus_blackjack_chance(shoe: Shoe) -> Fraction:
    """Chance that the box's two cards are A♠ and J♠ (either order)."""
    n = shoe.size
    return Fraction(2 * shoe.decks * shoe.decks, n * (n - 1))


def dealer_bust_off_the_top(p_bust: float, pays: str) -> float:
    """Dealer Bust's return when the dealer's cards are a random draw from the shoe."""
    return p_bust * float(ratio(pays)) - (1 - p_bust)
