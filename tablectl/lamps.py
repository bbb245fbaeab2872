"""The lamp picture as a pure function of what the table shows.

The panel driver only applies pictures; this module is the one place that
knows what each lamp means at the table (docs/panel.md).
"""

from __future__ import annotations

from firmware_bridge.panel.picture import BOX_COUNT, BoxLamp, LampPicture
from table.views import BoxView, Due, TableView

_SIGN = {"win": 1, "lose": -1, "push": 0}


def lamp_picture(
    view: TableView, due: Due, *, shoe_online: bool = True, journal_fault: bool = False
) -> LampPicture:
    """Every lamp for this moment of the round.

    - a box: off without a bet; `bet` while in play; `turn` (blinking) while its
      owner must decide; after settlement the owner's result (`blackjack` for a
      natural that won, else `won`/`lost`/`push` by the owner's stakes won minus
      lost over the box's hands, so a split with mixed verdicts shows its balance);
      off again once a round is void (every bet returned).
    - DRAW / STAND: the dealer's instruction: DRAW while the hand must take a card,
      STAND when it must stop, which in the casino games is when the round
      settles (it stays lit until the next round begins).
    - the alarm: a misdeal or dealer error holds the round, the journal cannot store,
      or the shoe is offline (no card can be read).
    - the shoe-fault lamp: the shoe's link is down.
    """
    boxes = [BoxLamp.OFF] * BOX_COUNT
    turn_box = due.box if due.phase == "playing" and not due.halted else None
    for box in view.boxes:
        if 1 <= box.number <= BOX_COUNT:
            boxes[box.number - 1] = _box_lamp(box, view.phase, turn_box)
    return LampPicture(
        boxes=tuple(boxes),
        draw=due.dealer == "draw" and not due.halted,
        stand=(due.dealer == "stand" or view.phase == "settled") and not due.halted,
        alarm=view.halted or journal_fault or not shoe_online,
        shoe_fault=not shoe_online,
    )


def _box_lamp(box: BoxView, phase: str, turn_box: int | None) -> BoxLamp:
    if not box.bets or phase == "void":
        return BoxLamp.OFF
    if box.number == turn_box:
        return BoxLamp.TURN
    if phase != "settled":
        return BoxLamp.BET
    if all(hand.result is None for hand in box.hands):
        return BoxLamp.BET  # only side bets or nothing of the owner's settled on a hand
    if any(hand.status == "natural" and hand.result == "win" for hand in box.hands):
        return BoxLamp.BLACKJACK
    # The owner's stakes won minus lost, over the box's hands (a split can be mixed).
    balance = sum(
        _SIGN[hand.result] * sum(amount for player, amount in hand.stakes if player == box.owner)
        for hand in box.hands if hand.result is not None
    )
    return BoxLamp.WON if balance > 0 else BoxLamp.LOST if balance < 0 else BoxLamp.PUSH
