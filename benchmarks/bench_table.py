"""Replay a long generated session through the real table machine; print rounds per second.

The session (7 occupied boxes, a shuffled six-deck shoe, simple basic play with
doubles and splits) is generated once by playing against a `Table`, stored as
pre-parsed events, then replayed on a fresh `Table` and timed. Target: 5,000
rounds/s or more on one core.

    python benchmarks/bench_table.py [--rounds N] [--profile NAME] [--boxes N]
"""

from __future__ import annotations

import argparse
import random
import time

from table.cards import pack_cards
from table.events import Bet, Card, Deal, Do, Event, Resolve, ShoeStatus
from table.machine import Table
from table.profiles import load_profile


def _new_shoe(rng: random.Random, kind: str, decks: int) -> list[str]:
    cards = list(pack_cards(kind)) * decks
    rng.shuffle(cards)
    return cards


def generate_session(profile: str, rounds: int, boxes: int, seed: int) -> list[Event]:
    """Play `rounds` rounds with simple basic play; return every event fed to the table."""
    rules = load_profile(profile)
    rng = random.Random(seed)
    table = Table(rules)
    events: list[Event] = []
    shoe = _new_shoe(rng, rules.shoe, rules.decks)

    def feed(event: Event) -> None:
        events.append(event)
        table.apply(event)

    for _ in range(rounds):
        if len(shoe) < 80:
            shoe = _new_shoe(rng, rules.shoe, rules.decks)
            feed(ShoeStatus("loaded"))
        for box in range(1, boxes + 1):
            feed(Bet(box, rng.choice((10, 20, 25, 50, 100))))
        feed(Deal())
        for _step in range(200):
            due = table.due()
            if due.halted:
                feed(Resolve("void"))
                break
            if due.phase in ("settled", "void"):
                break
            if due.phase == "insurance":
                feed(Card(shoe.pop()))
                continue
            if due.phase == "playing":
                assert due.box is not None
                view = table.view()
                hand = next(b for b in view.boxes if b.number == due.box).hands[due.hand or 0]
                total = hand.total
                if "split" in due.actions and hand.cards[0][0] in "A8":
                    feed(Do(due.box, "split"))
                elif "double" in due.actions and total in (10, 11):
                    feed(Do(due.box, "double"))
                elif due.card_expected and (total < 17 or len(hand.cards) < 2):
                    feed(Card(shoe.pop()))
                else:
                    feed(Do(due.box, "stand"))
                continue
            if due.card_expected:
                feed(Card(shoe.pop()))
            else:
                feed(Do("dealer", "stand"))
    return events


def replay(profile: str, events: list[Event], keep_rounds: int | None) -> tuple[int, float]:
    table = Table(load_profile(profile), keep_rounds=keep_rounds)
    apply = table.apply
    start = time.perf_counter()
    for event in events:
        apply(event)
    elapsed = time.perf_counter() - start
    return table.rounds_played, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000)
    parser.add_argument("--profile", default="casinos-austria")
    parser.add_argument("--boxes", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    events = generate_session(args.profile, args.rounds, args.boxes, args.seed)
    print(f"profile {args.profile}, {args.boxes} boxes, {args.rounds} rounds, "
          f"{len(events)} events ({len(events) / args.rounds:.1f} per round)")
    for label, keep in (("every round kept in memory (replay)", None),
                        ("last 100 rounds kept (daemon)", 100)):
        best = float("inf")
        rounds = 0
        for _ in range(args.repeat):
            rounds, elapsed = replay(args.profile, events, keep)
            best = min(best, elapsed)
        print(f"{label}: best of {args.repeat} {best:.3f} s for {rounds} rounds: "
              f"{rounds / best:,.0f} rounds/s, {best / len(events) * 1e6:.1f} us/event")
    print(f"one phase change (the phase machine's fire): {_trigger_cost_us(args.profile):.1f} us")


def _trigger_cost_us(profile: str) -> float:
    fire = Table(load_profile(profile)).phases.fire
    count = 20_000
    start = time.perf_counter()
    for _ in range(count):
        fire("halt")
        fire("resume_betting")
    return (time.perf_counter() - start) / (2 * count) * 1e6

if __name__ == "__main__":
    main()
