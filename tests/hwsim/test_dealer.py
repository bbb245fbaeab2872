"""The virtual dealer deals real rounds: every profile, determinism across an unreachable
table, dealer mistakes and the pit, and the same rounds over the pty shoe."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from hwsim.dealer import (
    DealerError,
    InProcessShoe,
    InProcessTable,
    Sent,
    TableUnavailable,
    VirtualDealer,
    VirtualShoeCards,
    seeded_shoe,
)
from hwsim.shoe import ShoeTiming, VirtualShoe

from firmware_bridge.serial_port import Backoff
from firmware_bridge.shoelink import (
    LinkTiming,
    ShoeCard,
    ShoeEvent,
    ShoeLinkReader,
    ShoeStatus,
    ShoeUnreadable,
)
from table.hands import hand_value
from table.machine import Table
from table.profiles import Rules, list_profiles, load_profile
from table.views import Due, Outcome, TableView

SESSION = "test"


class Shoes:
    """`new_shoe` for the dealer: seeded shoes, each kept to check what was dealt."""

    def __init__(self, rules: Rules, seed: int) -> None:
        self.rules = rules
        self.seed = seed
        self.made: list[list[str]] = []

    def first(self, count: int | None = None) -> list[str]:
        cards = self()
        return cards[:count] if count is not None else cards

    def __call__(self) -> list[str]:
        cards = seeded_shoe(self.rules, self.seed * 1000 + len(self.made))
        self.made.append(cards)
        return cards


class RecordingTable(InProcessTable):
    """Notes the table's round after each event it applied (the first bet opens a round)."""

    def __init__(self, table: Table) -> None:
        super().__init__(table)
        self.log: list[tuple[int, dict[str, Any]]] = []

    def send(self, event: dict[str, Any], ref: str) -> Sent:
        sent = super().send(event, ref)
        if not sent.duplicate:
            self.log.append((self.table.due().round, event))
        return sent

    def feed(self, event: Mapping[str, Any]) -> Outcome:
        outcome = super().feed(event)
        self.log.append((self.table.due().round, dict(event)))
        return outcome

    def of_round(self, number: int, key: str) -> list[Any]:
        return [event[key] for r, event in self.log if r == number and key in event]


@dataclass
class Run:
    rules: Rules
    link: RecordingTable
    shoe: InProcessShoe
    shoes: Shoes
    dealer: VirtualDealer

    def results(self) -> list[dict[str, Any]]:
        return self.link.table.results()

    def sent(self, key: str) -> list[Any]:
        return [event[key] for event in self.link.events if key in event]


def make_run(profile: str | Rules, *, seed: int = 11, boxes: int = 7, mistake_rate: float = 0.0,
             first_shoe: int | None = None,
             wrap: Callable[[InProcessTable], Any] | None = None) -> Run:
    rules = load_profile(profile) if isinstance(profile, str) else profile
    link = RecordingTable(Table(rules))
    shoes = Shoes(rules, seed)
    shoe = InProcessShoe(link, shoes.first(first_shoe))
    dealer = VirtualDealer(rules, wrap(link) if wrap else link, shoe, seed=seed, boxes=boxes,
                           mistake_rate=mistake_rate, session=SESSION, new_shoe=shoes,
                           retry_wait_s=0.0)
    return Run(rules, link, shoe, shoes, dealer)


def is_subsequence(part: list[str], whole: list[str]) -> bool:
    it = iter(whole)
    return all(card in it for card in part)


def check_chip_flow(result: dict[str, Any]) -> None:
    """Every bet placed is in `net`; what the players won is what the house lost."""
    lines = result["settlement"]
    house = sum(line["stake"] - line["payout"] for line in lines)
    assert sum(result["net"].values()) == -house, result
    by_key: Counter[str] = Counter()
    for line in lines:
        by_key[f"{line['player']}/{line['spot']}"] += line["payout"] - line["stake"]
    assert {k: v for k, v in result["net"].items() if v} == {k: v for k, v in by_key.items()
                                                            if v}
    if result["status"] == "void":
        assert lines == [] and set(result["net"].values()) <= {0}


def check_bets_settled(result: dict[str, Any], bets: list[dict[str, Any]]) -> None:
    """Each side bet is settled once on its stake; each main bet is settled at least whole."""
    for bet in bets:
        key = f"box{bet['box']}/{bet.get('spot', 'main')}"
        assert key in result["net"], (key, result)
    staked: Counter[tuple[int, str]] = Counter()
    for line in result["settlement"]:
        staked[(line["box"], line["spot"])] += line["stake"]
    placed: Counter[tuple[int, str]] = Counter()
    for bet in bets:
        placed[(bet["box"], bet.get("spot", "main"))] += bet["amount"]
    for (box, spot), amount in placed.items():
        if spot == "main":
            assert staked[(box, spot)] >= amount, (box, result)
        else:
            assert staked[(box, spot)] == amount, (box, spot, result)


EXPECTED_ACTIONS = {
    "casinos-austria": {"stand", "double", "split", "decline"},
    "st-moritz": {"stand", "double", "split", "decline"},
    "st-moritz-65": {"stand", "double", "split", "decline"},
    "live-studio": {"stand", "double", "split", "decline", "surrender", "timeout"},
    "ru-casino": {"stand", "double", "split", "decline", "surrender"},
    "pontoon-sydney": {"stand", "double", "split", "surrender", "rescue"},
    "pontoon-online": {"stand", "double", "split"},
    "pontoon-british": {"stand", "buy", "twist", "split"},
}


def test_every_shipped_profile_has_its_expectations() -> None:
    assert set(EXPECTED_ACTIONS) == set(list_profiles())


@pytest.mark.parametrize("profile", list_profiles())
def test_every_profile_plays_two_hundred_rounds(profile: str) -> None:
    run = make_run(profile)
    numbers = run.dealer.play(200)
    rules = run.rules
    results = run.results()
    assert numbers == list(range(1, 201))
    assert [r["round"] for r in results] == numbers
    assert run.dealer.stats.refused == 0 and run.dealer.stats.mistakes == 0

    # The cards came out of each shoe in order, from its top, shoe after shoe.
    per_shoe: list[list[str]] = [[]]
    for _, event in run.link.log:
        if "card" in event:
            per_shoe[-1].append(event["card"])
        elif event.get("shoe") == "loaded":
            per_shoe.append([])
    assert len(per_shoe) == len(run.shoes.made) > 1
    for cards, shoe in zip(per_shoe, run.shoes.made, strict=True):
        assert cards and cards == shoe[:len(cards)]
    assert sum(map(len, per_shoe)) == run.dealer.stats.cards_drawn

    for result in results:
        number = result["round"]
        assert result["status"] == "settled", result
        assert result["flags"] == [] and result["refused"] == [] and result["burned"] == []
        check_chip_flow(result)
        check_bets_settled(result, run.link.of_round(number, "bet"))
        # Every card drawn in the round is on a hand or the dealer's, in the order drawn.
        cards = run.link.of_round(number, "card")
        hands = [hand["cards"] for hand in result["hands"]]
        assert Counter(cards) == Counter(result["dealer"]) + Counter(
            card for hand in hands for card in hand)
        for hand in hands + [result["dealer"]]:
            assert is_subsequence(hand, cards)
        # The deal: a card to each box, one to the dealer, then the boxes' second cards.
        boxes = sorted({hand["box"] for hand in result["hands"]})
        first_cards = [next(h for h in result["hands"] if h["box"] == box)["cards"][0]
                       for box in boxes if not any(
                           h["box"] == box and h["hand"] > 0 for h in result["hands"])]
        if len(first_cards) == len(boxes):
            assert cards[:len(boxes)] == first_cards
        assert cards[len(boxes)] == result["dealer"][0]

    actions = Counter(do["action"] for do in run.sent("do"))
    assert EXPECTED_ACTIONS[profile] <= set(actions), actions
    spots = {bet.get("spot", "main") for bet in run.sent("bet")}
    assert spots == {"main", *rules.side_bets}
    for bet in run.sent("bet"):
        if bet.get("spot") == "sevens":
            assert rules.sevens_min <= bet["amount"] <= rules.sevens_max
            assert bet["amount"] % rules.sevens_step == 0
        assert bet["amount"] % 10 == 0 and 10 <= bet["amount"] <= 500

    # What the table stored replays to the same results on a fresh table.
    replay = Table(rules)
    for event in run.link.events:
        replay.apply(event)
    assert replay.results() == results


def test_boxes_are_the_first_boxes_and_never_more_than_the_table_has() -> None:
    run = make_run("st-moritz", boxes=7)  # a 5-box table
    run.dealer.play(5)
    assert {bet["box"] for bet in run.sent("bet")} == {1, 2, 3, 4, 5}
    run = make_run("casinos-austria", boxes=2)
    run.dealer.play(5)
    assert {bet["box"] for bet in run.sent("bet")} == {1, 2}


def test_insurance_is_declined_for_every_box_against_an_ace() -> None:
    run = make_run("casinos-austria", seed=3)
    run.dealer.play(120)
    aces = [r for r in run.results() if r["dealer"][0][0] == "A"]
    assert len(aces) >= 3
    for result in run.results():
        declines = [do["box"] for do in run.link.of_round(result["round"], "do")
                    if do["action"] == "decline"]
        assert declines == (list(range(1, 8)) if result in aces else []), result["round"]
        assert not any(line["spot"] == "insurance" for line in result["settlement"])


def test_british_pontoon_banker_box_never_bets_and_players_raise() -> None:
    run = make_run("pontoon-british", seed=4)
    run.dealer.play(150)
    banker = "dealer"
    banks_moved = raises = 0
    for result in run.results():
        number = result["round"]
        events = [event for r, event in run.link.log if r == number]
        deal = next(i for i, event in enumerate(events) if "deal" in event)
        boxes = {event["bet"]["box"] for event in events if "bet" in event}
        assert banker == "dealer" or int(banker[3:]) not in boxes
        assert len(boxes) == (7 if banker == "dealer" else 6)
        raises += sum(1 for event in events[deal:] if "bet" in event)
        banks_moved += result["next_banker"] != banker
        banker = result["next_banker"]
        for hand in result["hands"]:
            assert len(hand["cards"]) <= 5
            if hand["status"] == "stood" and len(hand["cards"]) < 5:
                assert hand["total"] >= run.rules.stick_minimum  # no stick below the line
    assert banks_moved > 0 and raises > 0
    assert run.shoe.loads == 149  # one pack, shuffled for every round


def test_same_seed_same_rounds_other_seed_other_rounds() -> None:
    first = make_run("live-studio", seed=21)
    second = make_run("live-studio", seed=21)
    other = make_run("live-studio", seed=22)
    for run in (first, second, other):
        run.dealer.play(60)
    assert first.results() == second.results()
    assert first.link.events == second.link.events
    assert first.results() != other.results()


@dataclass
class FlakyLink:
    """A table that is sometimes out of reach: a send fails before it is stored, or
    after (the answer is lost); reads fail too."""

    inner: InProcessTable
    rng: random.Random
    rate: float = 0.15
    counts: Counter[str] = field(default_factory=Counter)

    def _maybe_fail(self, where: str) -> None:
        if self.rng.random() < self.rate:
            self.counts[where] += 1
            raise TableUnavailable(f"connection refused ({where})")

    def due(self) -> Due:
        self._maybe_fail("due")
        return self.inner.due()

    def view(self) -> TableView:
        self._maybe_fail("view")
        return self.inner.view()

    def send(self, event: dict[str, Any], ref: str) -> Sent:
        self._maybe_fail("before storing")
        sent = self.inner.send(event, ref)
        self._maybe_fail("after storing")
        return sent


@pytest.mark.parametrize("profile", ["casinos-austria", "pontoon-british"])
def test_an_unreachable_table_changes_nothing(profile: str) -> None:
    clean = make_run(profile, seed=8, mistake_rate=0.1)
    clean.dealer.play(80)
    flaky_links: list[FlakyLink] = []

    def wrap(link: InProcessTable) -> FlakyLink:
        flaky_links.append(FlakyLink(link, random.Random(99)))
        return flaky_links[0]

    flaky = make_run(profile, seed=8, mistake_rate=0.1, wrap=wrap)
    flaky.dealer.play(80)
    counts = flaky_links[0].counts
    assert counts["before storing"] > 10 and counts["after storing"] > 10
    assert counts["due"] > 10 and counts["view"] > 10
    # An answer lost after storing: the resend under the same ref is a duplicate.
    assert 0 < flaky.dealer.stats.duplicates <= counts["after storing"]
    assert flaky.dealer.stats.retries == sum(counts.values())
    # Nothing applied twice, same refs, same rounds.
    assert flaky.link.events == clean.link.events
    assert flaky.link.refs == clean.link.refs
    assert flaky.results() == clean.results()


def test_dealer_mistakes_are_flagged_and_the_pit_ends_every_round() -> None:
    run = make_run("casinos-austria", seed=5, mistake_rate=0.2)
    run.dealer.play(150)
    results = run.results()
    flags = Counter(flag for r in results for flag in r["flags"])
    assert flags["DEALER_STOOD_ON_DRAW"] >= 5 and flags["DEALER_DREW_ON_STAND"] >= 5
    assert run.dealer.stats.mistakes == sum(flags.values())
    resolves = run.sent("resolve")
    assert resolves == ["accept"] * sum(flags.values())
    for result in results:
        assert result["status"] == "settled" and result["refused"] == []
        check_chip_flow(result)
        drew = result["flags"].count("DEALER_DREW_ON_STAND")
        assert len(result["burned"]) == drew
        if "DEALER_STOOD_ON_DRAW" in result["flags"]:
            # Overruled: the dealer drew on to a complete hand.
            total = hand_value(result["dealer"])[0]
            assert total >= 17 or len(result["dealer"]) == 2, result


def test_live_studio_voids_a_round_with_a_dealer_mistake() -> None:
    run = make_run("live-studio", seed=5, mistake_rate=0.2)
    run.dealer.play(100)
    results = run.results()
    void = [r for r in results if r["status"] == "void"]
    assert void and all(r["flags"] for r in void)
    assert set(run.sent("resolve")) == {"void"}
    for result in results:
        assert result["refused"] == []
        check_chip_flow(result)
        assert (result["status"] == "void") == bool(result["flags"])


@dataclass
class RefusingLink:
    """A table that refuses some decisions without applying them."""

    inner: InProcessTable
    refuse: Callable[[dict[str, Any]], bool]
    refused: int = 0

    def due(self) -> Due:
        return self.inner.due()

    def view(self) -> TableView:
        return self.inner.view()

    def send(self, event: dict[str, Any], ref: str) -> Sent:
        if self.refuse(event):
            self.refused += 1
            return Sent(True, False, "not today")
        return self.inner.send(event, ref)


def test_a_refused_decision_is_replaced_by_a_legal_one() -> None:
    links: list[RefusingLink] = []

    def wrap(link: InProcessTable) -> RefusingLink:
        links.append(RefusingLink(link, lambda e: "do" in e and e["do"]["action"] in (
            "double", "split")))
        return links[0]

    run = make_run("casinos-austria", seed=2, wrap=wrap)
    run.dealer.play(60)
    assert links[0].refused > 5
    assert run.dealer.stats.refused == links[0].refused
    assert all(r["status"] == "settled" for r in run.results())
    assert all(len(r["hands"]) == len({h["box"] for h in r["hands"]}) for r in run.results())


def test_a_table_that_refuses_everything_stops_the_dealer_with_a_clear_error() -> None:
    links: list[RefusingLink] = []

    def wrap(link: InProcessTable) -> RefusingLink:
        links.append(RefusingLink(link, lambda e: "deal" in e or "resolve" in e
                                  or ("do" in e and e["do"]["box"] == "dealer")))
        return links[0]

    run = make_run("casinos-austria", seed=2, wrap=wrap)
    with pytest.raises(DealerError, match="round 1: the table refused"):
        run.dealer.play(3)


def test_a_table_that_never_comes_back_stops_the_dealer() -> None:
    class Gone:
        def due(self) -> Due:
            raise TableUnavailable("no daemon")

        def view(self) -> TableView:
            raise TableUnavailable("no daemon")

        def send(self, event: dict[str, Any], ref: str) -> Sent:
            raise TableUnavailable("no daemon")

    rules = load_profile("casinos-austria")
    link = InProcessTable(Table(rules))
    dealer = VirtualDealer(rules, Gone(), InProcessShoe(link, seeded_shoe(rules, 1)), seed=1,
                           retry_wait_s=0.01, patience_s=0.1)
    with pytest.raises(DealerError, match="unavailable"):
        dealer.play_round()
    assert dealer.stats.retries >= 2


def test_a_round_the_table_holds_open_is_played_on() -> None:
    # A stray card before any bet opens round 1 halted; the pit accepts, then bets and deal.
    run = make_run("casinos-austria", seed=6, boxes=3)
    assert run.link.feed({"card": "AS"}).flags == ("EXTRA_CARD",)
    assert run.dealer.play_round() == 1
    first = run.results()[0]
    assert first["status"] == "settled" and first["flags"] == ["EXTRA_CARD"]
    assert first["burned"] == ["AS"] and first["refused"] == []
    # Bets placed by someone else before the dealer came: the dealer deals them.
    run.link.send({"bet": {"box": 2, "amount": 40}}, "other:1")
    assert run.dealer.play_round() == 2
    second = run.results()[1]
    assert second["status"] == "settled" and list(second["net"]) == ["box2/main"]
    assert run.dealer.play_round() == 3
    assert {k.split("/")[0] for k in run.results()[2]["net"]} == {"box1", "box2", "box3"}


def test_refs_are_the_session_and_a_counter() -> None:
    rules = load_profile("pontoon-online")
    seen: list[str] = []

    class Spy(InProcessTable):
        def send(self, event: dict[str, Any], ref: str) -> Sent:
            seen.append(ref)
            return super().send(event, ref)

    link = Spy(Table(rules))
    dealer = VirtualDealer(rules, link, InProcessShoe(link, seeded_shoe(rules, 1)), seed=1)
    dealer.play(3)
    session = dealer.session
    assert len(session) >= 8 and int(session, 16) >= 0
    assert seen == [f"{session}:{n}" for n in range(1, len(seen) + 1)]
    again = VirtualDealer(rules, link, InProcessShoe(link, []), seed=1)
    assert again.session != session


# -- over the pty: the virtual shoe and a ShoeLink reader ---------------------------

SHOE_TIMING = ShoeTiming(resend_interval_s=0.05, heartbeat_interval_s=0.1)
HOST_TIMING = LinkTiming(offline_after_s=1.0, hello_interval_s=0.05)


@pytest.fixture
def pty_table() -> Iterator[Callable[[Rules, list[str]], tuple[InProcessTable, VirtualShoe]]]:
    started: list[tuple[VirtualShoe, ShoeLinkReader]] = []

    def start(rules: Rules, cards: list[str]) -> tuple[InProcessTable, VirtualShoe]:
        link = InProcessTable(Table(rules))
        shoe = VirtualShoe(cards, timing=SHOE_TIMING, seed=1, dealer_paced=True)
        reader_box: list[ShoeLinkReader] = []
        lock = threading.Lock()

        def store(event: ShoeEvent) -> None:
            with lock:  # the daemon's order: store, then acknowledge
                if isinstance(event, ShoeCard):
                    link.feed({"card": event.code})
                elif isinstance(event, ShoeUnreadable):
                    link.feed({"flag": "UNREADABLE_CARD"})
                elif isinstance(event, ShoeStatus) and event.event in ("loaded", "cut_card"):
                    link.feed({"shoe": event.event})
                if isinstance(event, ShoeCard | ShoeUnreadable | ShoeStatus):
                    reader_box[0].ack(event.seq)

        reader = ShoeLinkReader(shoe.path, store, resume_after=0, timing=HOST_TIMING,
                                backoff=Backoff(initial_s=0.01, max_s=0.05))
        reader_box.append(reader)
        started.append((shoe, reader))
        shoe.start()
        reader.start()
        return link, shoe

    yield start
    for shoe, reader in started:
        reader.stop()
        shoe.stop()


@pytest.mark.timeout(60)
def test_over_the_pty_shoe_the_rounds_are_the_in_process_rounds(
    pty_table: Callable[[Rules, list[str]], tuple[InProcessTable, VirtualShoe]],
) -> None:
    rules = load_profile("casinos-austria")
    reference = make_run(rules, seed=31, boxes=4, mistake_rate=0.1, first_shoe=120)
    reference.dealer.play(20)

    shoes = Shoes(rules, 31)
    link, shoe = pty_table(rules, shoes.first(120))
    dealer = VirtualDealer(rules, link, VirtualShoeCards(shoe), seed=31, boxes=4,
                           mistake_rate=0.1, session=SESSION, new_shoe=shoes)
    dealer.play(20)
    assert len(shoes.made) > 1  # a new shoe went in over the link
    results = link.table.results()
    assert results == reference.results()
    assert any(r["flags"] for r in results)
    # The shoe's frames: cards in the order loaded, every one acknowledged once stored.
    dealt = [record.card for record in shoe.records if record.kind == "card"]
    assert dealt == reference.shoe.drawn
    assert shoe.pending_count == 0
    assert [e for e in link.events if "shoe" in e] == [{"shoe": "loaded"}] * len(shoes.made)


def test_the_pty_shoe_needs_dealer_pacing() -> None:
    shoe = VirtualShoe(["AS"])
    with pytest.raises(ValueError, match="dealer_paced"):
        VirtualShoeCards(shoe)
