"""The terminal view of the simulated table, from a real table's view."""

from __future__ import annotations

from table.machine import Table
from table.profiles import load_profile
from tablectl.display import render_table, round_line
from tablectl.lamps import lamp_picture


def test_the_view_shows_boxes_cards_totals_lamps_and_whose_turn() -> None:
    table = Table(load_profile("casinos-austria"))
    for event in ({"bet": {"box": 1, "amount": 100}}, {"bet": {"box": 3, "amount": 50}},
                  {"deal": {}}, {"card": "AS"}, {"card": "9D"}, {"card": "6C"},
                  {"card": "5H"}, {"card": "KD"}):
        assert table.apply(event).accepted
    # Box 1: A-5 soft 16 and up; box 3: 9-K 19; the dealer shows a 6.
    view, due = table.view(), table.due()
    text = render_table(view, due, lamp_picture(view, due))
    lines = text.splitlines()
    assert lines[0] == "round 1  playing"
    assert lines[1] == "  dealer  6C (6)"
    assert lines[2] == "  >> box1   100  AS 5H (soft 16)"
    assert lines[3] == "  () box3    50  9D KD (19)"
    assert lines[4] == "  lamps   -"


def test_a_settled_round_shows_results_and_a_round_line() -> None:
    table = Table(load_profile("casinos-austria"))
    for event in ({"bet": {"box": 2, "amount": 100}}, {"deal": {}}, {"card": "TS"},
                  {"card": "6D"}, {"card": "9C"}, {"do": {"box": 2, "action": "stand"}},
                  {"card": "KD"}, {"card": "8C"}):
        table.apply(event)
    # 19 against the dealer's 6-K-8 = 24, bust: box 2 wins 100.
    view, due = table.view(), table.due()
    text = render_table(view, due, lamp_picture(view, due))
    assert "  ++ box2   100  TS 9C (19) stood win" in text
    assert "  dealer  6D KD 8C (24)  BUST" in text  # the STAND lamp is lit, but he busted
    settled = render_table(view, due, lamp_picture(view, due), net={"box2/main": 100},
                           shoe={"size": 312, "dealt": 52, "online": True}, legend=True)
    assert "  ++ box2   100  TS 9C (19) stood win  net +100" in settled
    assert "  shoe    online, 260 of 312 cards left, penetration 16.7%" in settled
    assert "BJ blackjack" in settled.splitlines()[-1]
    result = table.current_result()
    assert result is not None
    assert round_line(result) == "round 1 settled: box2/main +100"
