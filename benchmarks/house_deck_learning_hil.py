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
within the frames waited after laying it, how many later in the round (once
the pit had resolved an earlier halt) and how many never (the price of the
doubt).
`--no-look-alikes` leaves the misreads learnt from play out of the doubt
(`tablectl.look_alikes`), for the flags to compare with; the look-alikes
learnt are printed at the end; `--no-reclaim` leaves the corners a house deck
stopped unknown (docs/fusion.md, "Corners the house deck stopped"), for the
flags to compare with. `--foreign-report` prints, for each foreign card
not flagged in time, what the camera made of its box in the last frame waited
(the cards read there, the corners it could not read or doubted, and why) and
whether a flag named it later in the round.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
        self.passed: list[Passed] = []  # the foreign cards not flagged in time
        self.watch: CameraWatch | None = None

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
        switched: list[tuple[int | str, str, str]] = []  # place, foreign card, shoe's
        for (place, card), count in new.items():
            for _ in range(count):
                self.laid += 1
                if self.foreign_every and self.laid % self.foreign_every == 0:
                    dealt = {c for _, c in _cards_at(after)}
                    foreign = self.rng.choice([c for c in ALL_CARDS if c not in dealt])
                    self.foreign += 1
                    switched.append((place, foreign, card))
                    card = foreign
                self.felt.put(place, card)
        if not new:
            self.not_laid += 1
        self._frames()
        if switched:
            # Judged after the grace (10 frames): wait for it before the next card.
            self._frames()
            if self.feed.fusion and sum(self.feed.fusion.stats.flags.values()) > flags:
                self.foreign_flagged += 1
            elif self.watch is not None:
                place, foreign, shoes = switched[0]
                self.passed.append(Passed(self.round, place, foreign, shoes,
                                          self.watch.seen_in(place)))

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


@dataclass
class Passed:
    """A foreign card the camera did not flag in time, and what it saw in its box."""

    round: int
    place: int | str
    card: str
    shoes_card: str  # the card the shoe dealt there, which the felt does not show
    seen: list[str]


def _area(place: int | str) -> str:
    return "dealer" if place == "dealer" else f"box{place}"


class CameraWatch:
    """The camera's last frame as the daemon took it: reads, unread and doubted corners."""

    def __init__(self, feed: Any, round_now: Callable[[], int]) -> None:
        self.last: tuple[list[Any], list[Any]] = ([], [])  # reads, corners not read
        self.flagged: set[tuple[int, str, str]] = set()  # (round, card, place) flagged
        recognizer, doubt = feed.recognizer, feed.doubt
        detect_all = recognizer.detect_all

        def watched_detect_all(frame: Any, layout: Any = None) -> Any:
            reads, unknown = detect_all(frame, layout)
            self.last = (list(reads), list(unknown))
            return reads, unknown

        def watched_detect(frame: Any, layout: Any = None) -> Any:
            return watched_detect_all(frame, layout)[0]

        recognizer.detect_all = watched_detect_all
        recognizer.detect = watched_detect
        watch = self
        if doubt is not None:
            class WatchedDoubt:  # the daemon's doubt, its doubted corners kept
                def judge(self, reads: Any, unknown: Any) -> Any:
                    kept, unknown = doubt.judge(reads, unknown)
                    watch.last = (kept, unknown)
                    return kept, unknown

                def __getattr__(self, name: str) -> Any:
                    return getattr(doubt, name)

            feed.doubt = WatchedDoubt()

        class FlagNames(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                args = record.args
                if record.msg == "camera: %s seen at %s: %s" and isinstance(args, tuple):
                    watch.flagged.add((round_now(), str(args[0]), str(args[1])))

        logging.getLogger("tablectl.fusion").addHandler(FlagNames())

    def seen_in(self, place: int | str) -> list[str]:
        reads, unknown = self.last
        area = _area(place)
        return ([f"{read.card} {read.confidence:.2f}" for read in reads if read.box == area]
                + [f"?? ({corner.reason}"
                   f"{f', deck {corner.deck_card}' if corner.deck_card else ''}; "
                   f"{_likeliest(corner)})" for corner in unknown
                   if corner.box == area])


def _likeliest(corner: Any) -> str:
    return " ".join(f"{card} {p:.2f}" for card, p in corner.alternatives[:3]) or "-"


def _flagged_later(passed: Passed, watch: CameraWatch) -> bool:
    """Whether a flag named the card at its place later in its round (after the pit had
    resolved an earlier halt, or after the frames waited)."""
    place = f"box {passed.place}" if isinstance(passed.place, int) else str(passed.place)
    return (passed.round, passed.card, place) in watch.flagged


def _report(shoe: FeltShoe, watch: CameraWatch, each: bool) -> None:
    later = sum(_flagged_later(passed, watch) for passed in shoe.passed)
    print(f"foreign cards laid {shoe.foreign}: flagged within the frames waited "
          f"{shoe.foreign_flagged}, later in the round {later}, never "
          f"{len(shoe.passed) - later} ({100 * (len(shoe.passed) - later) / shoe.foreign:.1f}%)")
    if not each:
        return
    print("foreign cards not flagged within the frames waited:")
    for passed in shoe.passed:
        place = f"box {passed.place}" if isinstance(passed.place, int) else str(passed.place)
        when = "flagged later" if _flagged_later(passed, watch) else "never flagged"
        print(f"  round {passed.round:3d} {place}: {passed.card} for the shoe's "
              f"{passed.shoes_card}, {when}; read there: {'; '.join(passed.seen) or 'nothing'}")


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
    parser.add_argument("--no-reclaim", action="store_true",
                        help="corners a house deck stopped stay unknown beside the shoe "
                             "(as before tablectl.witness_doubt.reclaim_stopped)")
    parser.add_argument("--foreign-report", action="store_true",
                        help="with --foreign-every: what the camera made of each foreign "
                             "card it did not flag in time")
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
            if args.no_reclaim and feed.doubt is not None:
                feed.doubt.reclaim = False
            watch = CameraWatch(feed, lambda: shoe.round) if args.foreign_every else None
            shoe.watch = watch
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
                  f"{feed.stats().doubted}"
                  + (f", reads a house deck stopped, read all the same {feed.doubt.reclaimed}"
                     if feed.doubt is not None else ""))
            if feed.learning is not None:
                print("look-alikes learnt: "
                      f"{', '.join(feed.learning.look_alikes.described()) or 'none'}"
                      f"{' (not used)' if args.no_look_alikes else ''}")
            if shoe.foreign:
                assert watch is not None
                _report(shoe, watch, args.foreign_report)
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
