"""Bets settled on the first cards, by exact combinatorics on the profile's shoe.

The side bets' own modules (`table.sidebets`) hold their pay tables and exact
odds; these are their figures on a houseedge `Shoe`. Every function returns
the bet's expected net return per unit staked as an exact fraction. A house
edge is minus that figure.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from houseedge.shoe import Shoe
from table.payouts import ratio
from table.sidebets import pair as pair_bet
from table.sidebets import queens, sevens, three_card_wins


def pair(shoe: Shoe, pays: int) -> Fraction:
    """Pair: the box's first two cards of the same rank."""
    return pair_bet.exact(shoe.cards, shoe.decks, pays)


def three_card(shoe: Shoe, bet: str) -> Fraction:
    """3 Card Wins ("3cw") or Queens Trio ("queens") on the box's two cards and the
    dealer's first card."""
    if bet == "3cw":
        return three_card_wins.exact(shoe.cards, shoe.decks)
    return queens.exact(shoe.cards, shoe.decks)


def sevens_first_cards(shoe: Shoe, third_card: Callable[[str], float]) -> Fraction:
    """ru-casino Sevens on the box's first three cards (see `table.sidebets.sevens`)."""
    return sevens.exact(shoe.cards, shoe.decks, third_card)


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
