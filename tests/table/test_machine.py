"""The round machine: what is due, refusals that change nothing, misdeals and resolutions."""

from __future__ import annotations

import pytest

from table.events import Card, Do
from tests.table.helpers import DEAL, bet, cards, do, feed, last, play, table


def test_due_follows_a_round_from_betting_to_settlement() -> None:
    tbl = table("casinos-austria")
    assert tbl.due().phase == "betting"
    feed(tbl, [bet(1, 100), bet(3, 50), DEAL])
    due = tbl.due()
    assert (due.phase, due.card_expected, due.card_for) == ("dealing", True, 1)
    feed(tbl, cards("TS", "5H"))
    assert tbl.due().card_for == "dealer"
    feed(tbl, cards("6D", "9C", "6S"))
    due = tbl.due()
    assert (due.phase, due.box, due.hand) == ("playing", 1, 0)
    assert "stand" in due.actions and "double" in due.actions and "split" not in due.actions
    assert "timeout" not in due.actions
    feed(tbl, [do(1, "stand")])
    due = tbl.due()
    assert due.box == 3 and "double" in due.actions
    feed(tbl, [do(3, "double")])
    assert tbl.due().actions == () and tbl.due().card_expected
    feed(tbl, cards("9H"))
    due = tbl.due()
    assert (due.phase, due.dealer, due.card_for) == ("dealer", "draw", "dealer")
    feed(tbl, cards("KD"))
    assert tbl.due().dealer == "draw"
    feed(tbl, cards("8C"))
    assert tbl.due().phase == "settled"
    result = last(tbl)
    assert result["net"] == {"box1/main": 100, "box3/main": 100}


def test_view_is_a_frozen_snapshot_with_hands_and_results() -> None:
    tbl = play("casinos-austria", [bet(1, 100), DEAL, *cards("TS", "7H", "9C"), do(1, "stand"),
                                   *cards("KS")])
    view = tbl.view()
    assert view.phase == "settled" and view.dealer == ("7H", "KS") and view.dealer_total == 17
    hand = view.boxes[0].hands[0]
    assert (hand.cards, hand.total, hand.result) == (("TS", "9C"), 19, "win")
    with pytest.raises(AttributeError):
        view.phase = "betting"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("profile", "setup", "decision", "reason"),
    [
        ("live-studio", ["9S", "6C", "9H"], ("split",), None),
        ("live-studio", ["TS", "AC", "6H"], ("surrender",), "no surrender against a dealer AC"),
        ("pontoon-british", ["5S", "KD", "4H", "7C"], ("stand",), "sticking needs 15 or more"),
        ("casinos-austria", ["5S", "TC", "4H"], ("timeout",), "no decision timer"),
        ("pontoon-sydney", ["5H", "9D", "7C"], ("double",), "only on 9 to 11"),
    ],
)
def test_a_refused_decision_changes_nothing_and_says_why(
        profile: str, setup: list[str], decision: tuple[str], reason: str | None) -> None:
    tbl = play(profile, [bet(1, 100), DEAL, *cards(*setup)])
    if reason is None:
        # live-studio: one split is fine, the second is refused.
        feed(tbl, [do(1, "split"), *cards("9D")])
        reason = "2 hands in all"
    before = (tbl.view(), tbl.due())
    outcome = tbl.apply(Do(1, decision[0]))
    assert not outcome.accepted and outcome.reason is not None and reason in outcome.reason
    assert (tbl.view(), tbl.due()) == before
    refused = last(tbl)["refused"][-1]
    assert reason in refused["reason"] and refused["event"] == {"do": {"box": 1,
                                                                      "action": decision[0]}}


def test_only_the_box_up_may_decide() -> None:
    tbl = play("casinos-austria", [bet(1, 100), bet(2, 100), DEAL, *cards("9S", "8D", "6C",
                                                                           "7H", "9D")])
    outcome = tbl.apply(Do(2, "stand"))
    assert not outcome.accepted and "box 1 plays now" in (outcome.reason or "")


def test_a_co_bettor_cannot_decide_the_play() -> None:
    tbl = play("casinos-austria", [bet(1, 100), bet(1, 50, player="anna"), DEAL,
                                   *cards("9S", "8D", "6C")])
    outcome = tbl.apply(Do(1, "stand", player="anna"))
    assert not outcome.accepted and "only the box owner (box1)" in (outcome.reason or "")


def test_a_misdeal_halts_until_resolved_and_refuses_everything_else() -> None:
    tbl = play("casinos-austria", [bet(1, 100), {"card": "5H"}])
    due = tbl.due()
    assert due.halted and due.open_flags == ("EXTRA_CARD",)
    assert due.resolutions == ("void", "accept")
    assert not tbl.apply(Card("9S")).accepted
    assert not tbl.apply(Do(1, "stand")).accepted
    feed(tbl, [{"resolve": "accept"}])
    assert tbl.due().phase == "betting" and not tbl.due().halted
    assert last(tbl)["burned"] == ["5H"]
    assert tbl.inventory.left("5H") == 5


def test_live_studio_refuses_accept_and_void_returns_every_bet() -> None:
    tbl = play("live-studio", [bet(1, 100), bet(1, 10, spot="pair"), DEAL, *cards("9S"),
                               {"card": "4H", "box": 3}])
    assert tbl.due().open_flags == ("CARD_TO_EMPTY_BOX",)
    outcome = feed(tbl, [{"resolve": "accept"}])[0]
    assert not outcome.accepted and "only void" in (outcome.reason or "")
    feed(tbl, [{"resolve": "void"}])
    result = last(tbl)
    assert result["status"] == "void" and result["net"] == {"box1/main": 0, "box1/pair": 0}


def test_a_card_after_the_round_is_complete_is_a_dealer_error() -> None:
    tbl = play("casinos-austria", [bet(1, 100), DEAL, *cards("TS", "7H", "9C"), do(1, "stand"),
                                   *cards("KS")])
    assert last(tbl)["status"] == "settled"
    outcome = tbl.apply(Card("5D"))
    assert outcome.accepted and outcome.flags == ("DEALER_DREW_ON_STAND",)
    assert last(tbl)["status"] == "open"
    feed(tbl, [{"resolve": "accept"}])
    result = last(tbl)
    assert result["status"] == "settled" and result["dealer"] == ["7H", "KS"]
    assert result["burned"] == ["5D"]


def test_the_dealer_stopping_early_is_flagged_and_overruled() -> None:
    tbl = play("casinos-austria", [bet(1, 100), DEAL, *cards("KS", "6C", "9H"), do(1, "stand"),
                                   *cards("TD")])
    assert tbl.due().dealer == "draw"
    outcome = tbl.apply(Do("dealer", "stand"))
    assert outcome.flags == ("DEALER_STOOD_ON_DRAW",)
    feed(tbl, [{"resolve": "accept"}])
    assert tbl.due().dealer == "draw"
    feed(tbl, cards("3H"))
    assert last(tbl)["net"] == {"box1/main": 0}


def test_a_reported_fault_halts_the_round() -> None:
    tbl = play("casinos-austria", [bet(1, 100), DEAL, {"flag": "UNREADABLE_CARD"}])
    assert tbl.due().open_flags == ("UNREADABLE_CARD",)
    feed(tbl, [{"resolve": "accept"}])
    assert tbl.due().phase == "dealing"


def test_the_next_round_begins_with_the_next_bet() -> None:
    tbl = play("casinos-austria", [bet(1, 100), DEAL, *cards("TS", "9C", "5H", "KD")])
    assert tbl.due().phase == "settled"
    feed(tbl, [bet(2, 40)])
    assert tbl.due().phase == "betting" and tbl.due().round == 2
    assert [r["status"] for r in tbl.results()] == ["settled", "open"]


def test_bets_are_checked() -> None:
    tbl = table("ru-casino")
    assert not feed(tbl, [bet(7, 100, spot="pair")])[0].accepted
    assert not feed(tbl, [bet(1, 100, player="ivan")])[0].accepted
    feed(tbl, [bet(1, 100), bet(1, 50, player="ivan"), bet(1, 50, player="olga")])
    outcome = feed(tbl, [bet(1, 50, player="pavel")])[0]
    assert not outcome.accepted and "3 bettors" in (outcome.reason or "")
    outcome = feed(tbl, [bet(1, 15, spot="sevens")])[0]
    assert not outcome.accepted and "steps of 10" in (outcome.reason or "")
    outcome = feed(tbl, [bet(1, 10, spot="pair")])[0]
    assert not outcome.accepted and "not offered" in (outcome.reason or "")


def test_timeout_auto_play_expects_cards_until_twelve() -> None:
    tbl = play("live-studio", [bet(1, 100), DEAL, *cards("2S", "TC", "3H"), do(1, "timeout")])
    assert tbl.due().card_expected and tbl.due().box == 1
    feed(tbl, cards("6D"))
    assert tbl.due().card_expected and tbl.due().box == 1
    feed(tbl, cards("AC"))
    assert tbl.due().phase == "dealer"


def test_pontoon_british_names_the_next_banker_and_keeps_it() -> None:
    tbl = play("pontoon-british", [bet(1, 10), bet(2, 10), DEAL,
                                   *cards("AS", "9C", "7H", "KD", "8C", "9D"), do(2, "stand"),
                                   *cards("3S"), do("dealer", "stand")])
    assert last(tbl)["next_banker"] == "box1" and tbl.banker == "box1"


def test_apply_takes_event_dicts_and_refuses_malformed_ones_with_the_reason() -> None:
    tbl = table("casinos-austria")
    assert tbl.apply({"bet": {"box": 1, "amount": 100}}).accepted
    outcome = tbl.apply({"card": "1X"}, "shoe frame 17")
    assert not outcome.accepted
    assert outcome.reason is not None and outcome.reason.startswith("shoe frame 17: unknown card")
    assert tbl.due().phase == "betting"
    refused = last(tbl)["refused"][-1]
    assert refused["position"] == "shoe frame 17" and refused["event"] == {"card": "1X"}
    negative = tbl.apply({"bet": {"box": 2, "amount": -5}})
    assert not negative.accepted and "amount must be positive" in (negative.reason or "")


def test_results_since_skips_recorded_rounds_and_kept_rounds_are_bounded() -> None:
    events = [bet(1, 100), DEAL, *cards("TS", "9C", "5H", "KD")]
    tbl = table("casinos-austria")
    for _ in range(3):
        feed(tbl, events)
    assert [r["round"] for r in tbl.results(since=1)] == [2, 3]
    small = table("casinos-austria")
    small.keep_rounds = 2
    for _ in range(5):
        feed(small, events)
    assert small.rounds_played == 5
    assert [r["round"] for r in small.results()] == [4, 5]


def test_due_and_view_survive_a_trip_through_json() -> None:
    import json

    from table.machine import Table
    from table.profiles import load_profile
    from table.views import due_from_json, to_json, view_from_json

    table = Table(load_profile("casinos-austria"))
    for event in ({"bet": {"box": 2, "amount": 50}}, {"bet": {"box": 2, "amount": 10,
                  "spot": "dealer_bust"}}, {"deal": {}}, {"card": "8S"}, {"card": "6D"},
                  {"card": "8H"}):
        assert table.apply(event).accepted
    due, view = table.due(), table.view()
    assert due.box == 2 and "split" in due.actions
    assert due_from_json(json.loads(json.dumps(to_json(due)))) == due
    assert view_from_json(json.loads(json.dumps(to_json(view)))) == view


def test_a_view_is_made_once_per_event_and_always_shows_the_last_one() -> None:
    t = table("casinos-austria")
    before, due_before = t.view(), t.due()
    assert t.view() is before and t.due() is due_before  # nothing happened: the same
    t.apply(bet(1, 100))
    after = t.view()
    assert after is not before and [b.bets for b in after.boxes] == [(("box1", "main", 100),)]
    assert t.due() is not due_before and t.due().phase == "betting"
    # A refused event changes nothing the view shows.
    outcome = t.apply(do(1, "stand"))
    assert not outcome.accepted and t.view() == after
    t.apply(DEAL)
    assert t.due().phase == "dealing" and t.view().phase == "dealing"


def test_a_refusal_without_trace_leaves_the_table_as_if_it_never_came() -> None:
    from table.machine import Table
    from table.profiles import load_profile

    rules = load_profile("casinos-austria")
    traced, untraced, never = Table(rules), Table(rules), Table(rules)
    for each in (traced, untraced, never):
        each.apply({"bet": {"box": 1, "amount": 100}})
        each.apply({"deal": {}})
    refused = {"do": {"box": 1, "action": "split"}}  # no cards yet: nothing to split
    assert traced.apply(refused).accepted is False
    outcome = untraced.apply(refused, keep_refused=False)
    assert outcome.accepted is False and outcome.reason
    for each in (traced, untraced, never):
        for card in ("9S", "7H", "TD"):
            each.apply({"card": card})
    assert untraced.results() == never.results()
    assert traced.results() != never.results()  # the traced refusal is in its round
    assert untraced.view() == never.view() and untraced.due() == never.due()
