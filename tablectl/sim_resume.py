"""The simulated shoe a restarted simulated table goes on with.

A real shoe keeps its cards while the controller restarts; the simulated one
is made anew in the devices' process at every start. To go on exactly where
the table stopped, it is made with what is left of the shoe in play: the
cards the journal shows dealt since the last shoe the table accepted are
taken off the front of that shoe, rebuilt from the same seeds the dealer
shuffled it with, and the rest is dealt with no new `loaded` (a `loaded` in
the middle of a round would be refused, and a fresh shoe's cards would be
impossible cards for the shoe the table counts). When the shoe in play cannot
be rebuilt (another `--seed`), the cards not yet dealt are shuffled instead.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from hwsim.dealer.shoes import derived_seed, seeded_shoe

from journal import JournalError, JournalEvent, JournalReader
from journal.replay import ReplayWatcher, replay
from table.cards import pack_cards
from table.machine import Table
from table.profiles import Rules
from table.views import Outcome

# Round numbers either side of the one a shoe went in at, tried for its seed.
_ROUNDS_AROUND = 2


@dataclass(frozen=True)
class ResumedShoe:
    cards: list[str]
    # True: the cards are what is left of the shoe in play (no `loaded` is sent).
    in_play: bool
    dealt: int = 0
    # True when the shoe in play was rebuilt card for card from its seed.
    exact: bool = False


def resumed_shoe(journal_path: str, rules: Rules, seed: int) -> ResumedShoe:
    """The cards the simulated shoe starts with, for the journal as it is now."""
    fresh = ResumedShoe(seeded_shoe(rules, seed), in_play=False)
    if not Path(journal_path).exists():
        return fresh
    try:
        with JournalReader(journal_path) as journal:
            dealt, round_at_load, last_seq = _shoe_in_play(journal, rules)
    except JournalError:
        return fresh  # the daemon says what is wrong with the journal
    if round_at_load is None:
        return fresh
    for candidate in _candidates(rules, seed, round_at_load):
        if candidate[:len(dealt)] == dealt:
            return ResumedShoe(candidate[len(dealt):], True, len(dealt), exact=True)
    left = Counter(code for code in pack_cards(rules.shoe) for _ in range(rules.decks))
    left.subtract(dealt)
    rest = [code for code, count in sorted(left.items()) for _ in range(max(count, 0))]
    random.Random(derived_seed(seed, last_seq, "resume")).shuffle(rest)
    return ResumedShoe(rest, True, len(dealt))


def _shoe_in_play(journal: JournalReader, rules: Rules) -> tuple[list[str], int | None, int]:
    """The shoe's cards dealt since the last `loaded` the table accepted, the round
    number that shoe went in before (None: no shoe was ever loaded), the last seq."""
    shoe = _ShoeWatch()
    replay(journal.events(), Table(rules, keep_rounds=1), watcher=shoe)
    return shoe.dealt, shoe.round_at_load, shoe.last_seq


class _ShoeWatch(ReplayWatcher):
    """Follows the shoe through a replay: the cards dealt since the last `loaded`
    the table accepted, and the round that shoe went in before."""

    def __init__(self) -> None:
        self.dealt: list[str] = []
        self.round_at_load: int | None = None
        self.last_seq = 0

    def after(self, stored: JournalEvent, outcome: Outcome, table: Table) -> None:
        self.last_seq = stored.seq
        event = stored.event
        if event.get("shoe") == "loaded" and outcome.accepted:
            self.dealt = []
            self.round_at_load = table.due().round
        elif "card" in event and stored.source == "shoe":
            self.dealt.append(str(event["card"]))


def _candidates(rules: Rules, seed: int, round_at_load: int) -> list[list[str]]:
    """The shoes the dealer may have loaded then: the first one of a start, or the
    one he shuffled for that round (`VirtualDealer`)."""
    numbers = range(max(1, round_at_load - _ROUNDS_AROUND), round_at_load + _ROUNDS_AROUND + 1)
    return [seeded_shoe(rules, seed)] + [
        seeded_shoe(rules, derived_seed(seed, number, "shoe")) for number in numbers]
