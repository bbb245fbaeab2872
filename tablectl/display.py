"""A compact view of the table for a terminal: boxes, cards, totals, lamps, alarms."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from firmware_bridge.panel import BoxLamp, LampPicture
from table.views import BoxView, Due, TableView

_LAMP_MARKS = {
    BoxLamp.OFF: "  ", BoxLamp.BET: "()", BoxLamp.TURN: ">>", BoxLamp.WON: "++",
    BoxLamp.LOST: "--", BoxLamp.PUSH: "==", BoxLamp.BLACKJACK: "BJ",
}


def render_table(view: TableView, due: Due, picture: LampPicture,
                 stats: Mapping[str, Any] | None = None) -> str:
    """Several lines: a header, the dealer, one line per box in play, the lamps."""
    lines = [f"round {view.round}  {view.phase}" + ("  HALTED" if view.halted else "")]
    dealer = " ".join(view.dealer) or "-"
    total = f" ({_total(view.dealer_total, view.dealer_soft)})" if view.dealer else ""
    instruction = "DRAW" if picture.draw else "STAND" if picture.stand else ""
    lines.append(f"  dealer  {dealer}{total}  {instruction}".rstrip())
    for box in view.boxes:
        lines.append("  " + _box_line(box, picture.box(box.number)
                                      if 1 <= box.number <= len(picture.boxes) else BoxLamp.OFF))
    lamps = [name.upper() for name in ("draw", "stand", "alarm", "shoe_fault")
             if picture.lamp(name)]
    lines.append(f"  lamps   {' '.join(lamps) or '-'}")
    if view.flags:
        lines.append(f"  flags   {', '.join(view.flags)}")
    if due.halted:
        lines.append(f"  waiting for the pit: {' or '.join(due.resolutions)}")
    if stats:
        lines.append("  " + "  ".join(f"{key} {value}" for key, value in stats.items()))
    return "\n".join(lines)


def _box_line(box: BoxView, lamp: BoxLamp) -> str:
    stake = sum(amount for player, spot, amount in box.bets
                if player == box.owner and spot == "main")
    hands = []
    for hand in box.hands:
        cards = " ".join(hand.cards) or "-"
        status = f" {hand.status}" if hand.status != "playing" else ""
        verdict = f" {hand.result}" if hand.result else ""
        hands.append(f"{cards} ({_total(hand.total, hand.soft)}){status}{verdict}")
    marker = _LAMP_MARKS[lamp]
    return f"{marker} box{box.number} {stake:>5}  " + " | ".join(hands)


def _total(total: int, soft: bool) -> str:
    return f"soft {total}" if soft else str(total)


def round_line(result: Mapping[str, Any]) -> str:
    """One line for a finished round: status, flags, each player's net."""
    net = result.get("net", {})
    parts = " ".join(f"{key} {value:+d}" for key, value in sorted(net.items()))
    flags = result.get("flags") or []
    flag_text = f" [{', '.join(flags)}]" if flags else ""
    return f"round {result.get('round')} {result.get('status')}{flag_text}: {parts}"
