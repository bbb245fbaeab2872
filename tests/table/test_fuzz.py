"""Random event streams: the table never fails inside, and a round's money adds up."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from foundation.cards import ALL_CARDS
from table.events import Bet, Card, Deal, Do, Event, Resolve
from table.machine import Table
from table.profiles import list_profiles, load_profile

ACTIONS = ["hit", "stand", "double", "split", "surrender", "insurance", "even_money", "rescue",
           "buy", "twist", "follow", "decline", "timeout"]

events = st.one_of(
    st.builds(Bet, st.integers(1, 3), st.sampled_from([10, 20, 25])),
    st.just(Deal()),
    st.builds(Card, st.sampled_from(ALL_CARDS)),
    st.builds(Card, st.sampled_from(ALL_CARDS)),
    st.builds(Card, st.sampled_from(ALL_CARDS)),
    st.builds(Do, st.integers(1, 3), st.sampled_from(ACTIONS)),
    st.builds(Do, st.just("dealer"), st.just("stand")),
    st.builds(Resolve, st.sampled_from(["void", "accept"])),
)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(list_profiles()), st.lists(events, max_size=60))
def test_random_events_never_break_the_table(profile: str, stream: list[Event]) -> None:
    table = Table(load_profile(profile))
    for event in stream:
        outcome = table.apply(event)
        assert outcome.reason is None or "internal error" not in outcome.reason, outcome.reason
        table.due()
        table.view()
    for result in table.results():
        assert "INTERNAL_ERROR" not in result["flags"]
        if result["status"] == "void":
            assert set(result["net"].values()) <= {0}
        staked = sum(line["stake"] for line in result["settlement"])
        assert staked >= 0
