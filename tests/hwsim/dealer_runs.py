"""Runs of the virtual dealer against an in-process table, for the dealer's tests:
seeded shoes kept for checking, the table's rounds noted after each event, and checks
of the chips and bets of a settled round."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hwsim.dealer import InProcessShoe, InProcessTable, Sent, VirtualDealer, seeded_shoe

from table.machine import Table
from table.profiles import Rules, load_profile
from table.views import Outcome

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
