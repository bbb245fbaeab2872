"""The daemon learning its house deck from play, on the whole stack.

    python benchmarks/house_deck_learning_hil.py --deck kde-ancient-egyptians --rounds 60

The daemon runs as `tablectl hil --camera witness` runs it (a virtual ShoeLink
shoe on a pseudo-terminal, the local API, a SQLite journal, gpiozero mock pins)
with `[camera] learn_house_deck = true`; its camera films a simulated felt
drawn with a deck of real artwork from the corpus. The virtual dealer deals
whole rounds by the profile's rules (seven boxes, basic strategy, the pit
accepts every halt); each card the shoe lets out is laid on the felt where the
table put it, and the harness waits a few camera frames. The felt is swept
between rounds.

Printed every `--every` rounds and at the end: the cards dealt, the flags the
camera raised (each a misread that halted the round: every card here lies
where the shoe put it), how far the deck is learnt, and when it came into use.
The flags per 100 cards before and after that are the measure. The deck must
be in the corpus (`tools/render_deck_corpus.py`, or `$TABLECTL_DECK_CORPUS`).

`--witness-doubt P` sets `[camera] witness_doubt` (docs/fusion.md; 0: off), and
the reads doubted are printed. `--foreign-every N` lays a card the shoe did not
deal in place of every Nth card and prints how many of those the camera flagged
within the frames waited after laying it (the price of the doubt).
`--no-look-alikes` leaves the misreads learnt from play out of the doubt
(`tablectl.look_alikes`), for the flags to compare with; the look-alikes
learnt are printed at the end.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim")]

from hwsim.dealer.dealer import VirtualDealer  # noqa: E402
from hwsim.dealer.shoes import seeded_shoe  # noqa: E402

from foundation.cards import RANKS, SUITS  # noqa: E402
from table.profiles import load_profile  # noqa: E402
from table.views import TableView  # noqa: E402
from tablectl.hil import Rig, rig  # noqa: E402
from tablectl.hil_felt import FELT_CARD_WIDTH  # noqa: E402

PROFILE = "casinos-austria"
ALL_CARDS = [rank + suit for rank in RANKS for suit in SUITS]
FRAMES_PER_CARD = 8  # camera frames waited after each card is laid
FRAME_WAIT_S = 30.0


def _cards_at(view: TableView) -> Counter[tuple[int | str, str]]:
    cards: Counter[tuple[int | str, str]] = Counter()
    for box in view.boxes:
        for hand in box.hands:
            cards.update((box.number, card) for card in hand.cards)
    cards.update(("dealer", card) for card in view.dealer)
    return cards


class FeltShoe:
    """The dealer's shoe, and the felt: a card let out is laid where the table put it."""

    def __init__(self, running: Rig, foreign_every: int = 0, seed: int = 0) -> None:
        """`foreign_every` N > 0: every Nth card let out, a card the shoe did not deal
        this round is laid in its place instead (a card switched in)."""
        assert running.cards is not None and running.felt is not None
        self.running = running
        self.cards = running.cards
        self.felt = running.felt.felt
        self.feed = running.daemon.camera
        self.round = 0
        self.laid = 0
        self.not_laid = 0  # cards the table put nowhere (burned, refused)
        self.foreign_every = foreign_every
        self.rng = random.Random(seed)
        self.foreign = 0  # foreign cards laid
        self.foreign_flagged = 0  # of them, those the camera flagged

    def draw(self) -> None:
        view = self.running.link.view()
        if view.round != self.round:
            self.felt.clear()
            self.round = view.round
            self._frames()
        before = _cards_at(view)
        self.cards.draw()
        if not self.cards.wait_delivered(FRAME_WAIT_S):
            raise RuntimeError("the shoe's card did not reach the table")
        after = self.running.link.view()
        new = _cards_at(after) - before
        flags = sum(self.feed.fusion.stats.flags.values()) if self.feed.fusion else 0
        switched = False
        for (place, card), count in new.items():
            for _ in range(count):
                self.laid += 1
                if self.foreign_every and self.laid % self.foreign_every == 0:
                    dealt = {c for _, c in _cards_at(after)}
                    card = self.rng.choice([c for c in ALL_CARDS if c not in dealt])
                    self.foreign += 1
                    switched = True
                self.felt.put(place, card)
        if not new:
            self.not_laid += 1
        self._frames()
        if switched:
            # Judged after the grace (10 frames): wait for it before the next card.
            self._frames()
            if self.feed.fusion and sum(self.feed.fusion.stats.flags.values()) > flags:
                self.foreign_flagged += 1

    def _frames(self) -> None:
        seen = self.feed.stats().frames
        self.feed.watchers.wait_until(lambda: self.feed.stats().frames >= seen + FRAMES_PER_CARD,
                                      FRAME_WAIT_S)

    def wait_delivered(self, timeout_s: float) -> bool:
        return self.cards.wait_delivered(timeout_s)

    def cards_left(self) -> int:
        return self.cards.cards_left()

    def load(self, cards: Sequence[str]) -> None:
        self.cards.load(cards)


NO_LEARNING = {"state": "off"}


def _line(rounds: int, shoe: FeltShoe, flags: dict[str, int], deck: dict[str, Any],
          started: float) -> str:
    learnt = ("not learnt (networks alone)" if deck["state"] == "off" else
              f"in use, {deck['exemplars']} exemplars "
              f"({'saved' if deck['saved'] else 'not saved'})"
              if deck["state"] == "in use" else
              f"learning {deck['cards_learnt']}/52, {deck['exemplars']} exemplars")
    return (f"  round {rounds:4d}  cards {shoe.laid:5d}  camera flags {sum(flags.values()):3d}  "
            f"deck {learnt}  {time.monotonic() - started:6.0f} s")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deck", default="kde-ancient-egyptians",
                        help="a deck of real artwork from the corpus")
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--every", type=int, default=5, help="rounds between lines")
    parser.add_argument("--no-learning", action="store_true",
                        help="the networks alone, for the flags to compare with")
    parser.add_argument("--witness-doubt", type=float, default=None, metavar="P",
                        help="[camera] witness_doubt (default: the daemon's; 0: off)")
    parser.add_argument("--foreign-every", type=int, default=0, metavar="N",
                        help="lay a card the shoe did not deal in place of every Nth card, "
                             "and count how many the camera flags")
    parser.add_argument("--no-look-alikes", action="store_true",
                        help="the witness's doubt without the misreads learnt from play")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.every < 1 or args.foreign_every < 0:
        parser.error("--rounds and --every must be 1 or more, --foreign-every 0 or more")
    if args.witness_doubt is not None and not 0 <= args.witness_doubt < 1:
        parser.error("--witness-doubt must be from 0 to under 1")
    from hwsim.camera.artwork import ArtworkDeck

    try:
        ArtworkDeck.named(args.deck)
    except (OSError, ValueError, KeyError) as error:
        parser.error(str(error))
    rules = load_profile(PROFILE)
    with tempfile.TemporaryDirectory(prefix="deck-learning-") as scratch:
        folder = Path(scratch)
        settings: dict[str, Any] = {} if args.no_learning else {
            "learn_house_deck": True, "house_deck": str(folder / "house-deck.npz")}
        if args.witness_doubt is not None:
            settings["witness_doubt"] = args.witness_doubt
        with rig(PROFILE, {}, folder, seeded_shoe(rules, args.seed), "witness",
                 camera_deck=args.deck, camera_settings=settings) as running:
            shoe = FeltShoe(running, args.foreign_every, args.seed)
            dealer = VirtualDealer(rules, running.link, shoe, seed=args.seed)
            feed = running.daemon.camera
            assert feed.fusion is not None
            if args.no_look_alikes and feed.doubt is not None:
                feed.doubt.look_alikes = None
            print(f"{args.deck}: {args.rounds} rounds of {PROFILE}, seven boxes, seed "
                  f"{args.seed}; cards {FELT_CARD_WIDTH} px wide")
            started = time.monotonic()
            in_use_at: tuple[int, int, int] | None = None  # round, cards, flags
            for number in range(1, args.rounds + 1):
                dealer.play_round()
                flags = dict(feed.fusion.stats.flags)
                deck = feed.learning.status() if feed.learning else NO_LEARNING
                if in_use_at is None and deck["state"] == "in use":
                    in_use_at = (number, shoe.laid, sum(flags.values()))
                if number % args.every == 0 or number == args.rounds:
                    print(_line(number, shoe, flags, deck, started), flush=True)
            flags = dict(feed.fusion.stats.flags)
            total = sum(flags.values())
            print(f"camera flags by code: {flags or 'none'}; cards laid {shoe.laid}, "
                  f"put nowhere {shoe.not_laid}; frame p50 "
                  f"{feed.stats().detect_ms_p50 or 0:.0f} ms; reads doubted "
                  f"{feed.stats().doubted}")
            if feed.learning is not None:
                print("look-alikes learnt: "
                      f"{', '.join(feed.learning.look_alikes.described()) or 'none'}"
                      f"{' (not used)' if args.no_look_alikes else ''}")
            if shoe.foreign:
                print(f"foreign cards laid {shoe.foreign}, flagged {shoe.foreign_flagged} "
                      f"({100 * shoe.foreign_flagged / shoe.foreign:.1f}%)")
            if in_use_at is None:
                if feed.learning is not None:
                    print(f"the deck was not complete after {args.rounds} rounds; missing "
                          f"{' '.join(feed.learning.status()['missing'])}")
                print(f"flags per 100 cards: {100 * total / max(1, shoe.laid):.2f}")
                return 0 if feed.learning is None else 1
            number, cards, flagged = in_use_at
            after_cards = shoe.laid - cards
            print(f"deck in use from round {number} ({cards} cards dealt)")
            print(f"flags per 100 cards: {100 * flagged / max(1, cards):.2f} while learning "
                  f"({flagged} in {cards}), "
                  f"{100 * (total - flagged) / max(1, after_cards):.2f} with the learnt deck "
                  f"({total - flagged} in {after_cards})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
