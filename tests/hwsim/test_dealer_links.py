"""The virtual dealer against a table that is out of reach, refuses decisions, never
comes back or holds a round open; its refs."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
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
    seeded_shoe,
)

from table.machine import Table
from table.profiles import load_profile
from table.views import Due, TableView
from tests.hwsim.dealer_runs import make_run


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
