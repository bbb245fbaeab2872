"""The lamp picture for hand-built moments of a round on a real table: the
expected lamps are worked out from the rules (docs/rules.md, docs/panel.md)."""

from __future__ import annotations

from typing import Any

from firmware_bridge.panel import BoxLamp, LampPicture
from table.machine import Table
from table.profiles import load_profile
from tablectl.lamps import lamp_picture

OFF, BET, TURN = BoxLamp.OFF, BoxLamp.BET, BoxLamp.TURN
WON, LOST, PUSH, BJ = BoxLamp.WON, BoxLamp.LOST, BoxLamp.PUSH, BoxLamp.BLACKJACK


def bet(box: int, amount: int) -> dict[str, Any]:
    return {"bet": {"box": box, "amount": amount}}


def do(box: int | str, action: str) -> dict[str, Any]:
    return {"do": {"box": box, "action": action}}


DEAL: dict[str, Any] = {"deal": {}}


class Moment:
    """A real table fed event by event; `picture()` is what the lamps show now."""

    def __init__(self, profile: str = "casinos-austria") -> None:
        self.table = Table(load_profile(profile))

    def feed(self, *events: dict[str, Any] | str) -> Moment:
        for event in events:
            as_event = {"card": event} if isinstance(event, str) else event
            outcome = self.table.apply(as_event)
            assert outcome.accepted, (as_event, outcome)
        return self

    def picture(self, **status: bool) -> LampPicture:
        return lamp_picture(self.table.view(), self.table.due(), **status)


def boxes(*states: BoxLamp) -> tuple[BoxLamp, ...]:
    return tuple(states) + (OFF,) * (7 - len(states))


def test_an_empty_table_is_dark() -> None:
    assert Moment().picture() == LampPicture()


def test_bets_light_their_boxes_and_nothing_else() -> None:
    picture = Moment().feed(bet(1, 100), bet(3, 50)).picture()
    assert picture == LampPicture(boxes=boxes(BET, OFF, BET))


def test_the_box_that_is_up_blinks_its_turn_and_the_others_show_their_bet() -> None:
    # Deal order: box 1, box 3, dealer, box 1, box 3.
    moment = Moment().feed(bet(1, 100), bet(3, 50), DEAL, "TS", "5H", "6D")
    assert moment.picture() == LampPicture(boxes=boxes(BET, OFF, BET)), "still dealing"
    moment.feed("7C", "6S")  # box 1: 17, box 3: 11
    assert moment.picture() == LampPicture(boxes=boxes(TURN, OFF, BET))
    moment.feed(do(1, "stand"))
    assert moment.picture() == LampPicture(boxes=boxes(BET, OFF, TURN))
    moment.feed("9D")  # box 3: 20, still up until it stands
    assert moment.picture() == LampPicture(boxes=boxes(BET, OFF, TURN))
    moment.feed(do(3, "stand"))
    # The dealer holds a 6: a live hand waits, so the dealer must draw.
    assert moment.picture() == LampPicture(boxes=boxes(BET, OFF, BET), draw=True)
    moment.feed("TC")  # 16: draw again
    assert moment.picture() == LampPicture(boxes=boxes(BET, OFF, BET), draw=True)
    moment.feed("2C")  # 18: the dealer's hand is complete and the round settles
    # Box 1's 17 loses to 18, box 3's 20 wins.
    picture = moment.picture()
    assert picture.boxes == boxes(LOST, OFF, WON)
    assert not picture.draw and not picture.alarm


def test_results_after_settlement_worked_out_by_hand() -> None:
    moment = Moment().feed(
        bet(1, 100), bet(2, 50), bet(3, 40), bet(4, 30), bet(5, 20), DEAL,
        "TS", "AS", "9C", "TC", "5C",  # first cards, box 1 to 5
        "7S",                          # the dealer's first card: no insurance
        "9H", "KH", "9D", "6S", "6C",  # second cards
    )
    # Box 2's A+K is a natural and waits; box 1 is up.
    assert moment.picture().boxes == boxes(TURN, BET, BET, BET, BET)
    moment.feed(do(1, "stand"))  # 19
    assert moment.picture().boxes == boxes(BET, BET, TURN, BET, BET)
    moment.feed(do(3, "stand"))  # 18
    moment.feed("9S")            # box 4: 16 + 9 = 25, bust
    assert moment.picture().boxes == boxes(BET, BET, BET, BET, TURN)
    moment.feed(do(5, "double"), "2D")  # box 5: 11 doubled, 13, finished
    assert moment.picture() == LampPicture(boxes=boxes(BET, BET, BET, BET, BET), draw=True)
    moment.feed("AD")  # dealer 7 + A = soft 18: stands on every 17
    # 19 beats 18; the natural pays 3:2; 18 against 18 is a stand-off; the bust
    # box lost at once; the doubled 13 loses 2 x 20.
    result = moment.table.current_result()
    assert result is not None and result["status"] == "settled"
    assert result["net"] == {"box1/main": 100, "box2/main": 75, "box3/main": 0,
                             "box4/main": -30, "box5/main": -40}
    # The dealer's soft 18 is final: STAND tells the dealer to stop.
    assert moment.picture() == LampPicture(boxes=boxes(WON, BJ, PUSH, LOST, LOST), stand=True)


def test_a_natural_against_a_dealer_natural_is_a_push_not_a_blackjack() -> None:
    # Box 1: A+Q, natural; box 2: 10+9. Dealer A then K: blackjack. Insurance is
    # declined for both; the naturals push, the 19 loses.
    moment = Moment().feed(bet(1, 100), bet(2, 100), DEAL, "AH", "TD", "AC", "QS", "9S",
                           do(1, "decline"), do(2, "decline"))
    assert moment.picture().boxes == boxes(BET, TURN)
    moment.feed(do(2, "stand"), "KD")
    assert moment.picture() == LampPicture(boxes=boxes(PUSH, LOST), stand=True)


def test_a_split_box_shows_what_its_hands_won_together() -> None:
    # 8+8 split against a dealer 9. Hand 1: 8+3 = 11, doubled, +10 = 21.
    # Hand 2: 8+K = 18. The dealer's 9+T = 19 beats the 18 and loses to the 21:
    # the doubled hand wins 200, the other loses 100: the box is up 100.
    moment = Moment().feed(bet(1, 100), DEAL, "8S", "9D", "8H", do(1, "split"),
                           "3C", do(1, "double"), "TH", "KC", do(1, "stand"))
    assert moment.picture() == LampPicture(boxes=boxes(BET), draw=True)
    moment.feed("TD")
    result = moment.table.current_result()
    assert result is not None and result["net"] == {"box1/main": 100}
    assert moment.picture() == LampPicture(boxes=boxes(WON), stand=True)  # 19: stop


def test_a_halted_round_lights_the_alarm_and_blinks_no_box() -> None:
    moment = Moment().feed(bet(2, 100), DEAL, "TS", "6D", "7C")  # box 2: 17, up
    assert moment.picture().boxes == boxes(OFF, TURN)
    moment.feed(do(2, "stand"))
    assert moment.picture().draw  # the dealer's 6 must draw
    # The dealer stops on a 6: a dealer error halts the round for the pit.
    outcome = moment.table.apply(do("dealer", "stand"))
    assert outcome.flags == ("DEALER_STOOD_ON_DRAW",)
    assert moment.picture() == LampPicture(boxes=boxes(OFF, BET), alarm=True)
    moment.feed({"resolve": "accept"})  # the pit overrules: the dealer draws on
    assert moment.picture() == LampPicture(boxes=boxes(OFF, BET), draw=True)


def test_a_card_before_the_deal_halts_with_the_alarm() -> None:
    moment = Moment().feed(bet(1, 50))
    outcome = moment.table.apply({"card": "5S"})
    assert outcome.flags == ("EXTRA_CARD",)
    assert moment.picture() == LampPicture(boxes=boxes(BET), alarm=True)
    # The pit voids the round: every bet is returned, the alarm goes out.
    moment.feed({"resolve": "void"})
    assert moment.picture() == LampPicture()


def test_shoe_fault_and_journal_fault_lamps() -> None:
    moment = Moment().feed(bet(1, 50))
    # A shoe offline: no card can be read, so the alarm is lit beside the shoe fault.
    assert moment.picture(shoe_online=False) == LampPicture(boxes=boxes(BET), shoe_fault=True,
                                                            alarm=True)
    assert moment.picture(journal_fault=True) == LampPicture(boxes=boxes(BET), alarm=True)
    assert moment.picture(shoe_online=True, journal_fault=False) == LampPicture(
        boxes=boxes(BET))
