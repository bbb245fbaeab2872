"""A compact view of the table for a terminal: boxes, cards, totals, lamps, payouts,
the dealer's instruction, the shoe and a legend."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from firmware_bridge.panel import BoxLamp, LampPicture
from table.views import BoxView, Due, TableView

_LAMP_MARKS = {
    BoxLamp.OFF: "  ", BoxLamp.BET: "()", BoxLamp.TURN: ">>", BoxLamp.WON: "++",
    BoxLamp.LOST: "--", BoxLamp.PUSH: "==", BoxLamp.BLACKJACK: "BJ",
}
LEGEND = ("legend  () bet  >> deciding  ++ won  -- lost  == push  BJ blackjack  |  "
          "DRAW: dealer must draw  STAND: dealer stands  BUST: dealer over 21")


def dealer_instruction(view: TableView, picture: LampPicture) -> str:
    """DRAW while the dealer must take a card, BUST once over 21, else STAND when the
    STAND lamp is lit (the dealer's hand is done); empty before the dealer's turn."""
    if picture.draw:
        return "DRAW"
    if view.dealer and view.dealer_total > 21:
        return "BUST"
    return "STAND" if picture.stand else ""


def render_table(view: TableView, due: Due, picture: LampPicture,
                 stats: Mapping[str, Any] | None = None, *,
                 net: Mapping[str, int] | None = None,
                 shoe: Mapping[str, Any] | None = None, legend: bool = False) -> str:
    """Several lines: a header, the dealer, one line per box in play, the lamps, the
    payouts (`net`: the round's result's net per bettor and spot, once settled),
    the shoe (`shoe`: cards left, size, penetration, cut card) and the legend."""
    lines = [f"round {view.round}  {view.phase}" + ("  HALTED" if view.halted else "")]
    dealer = " ".join(view.dealer) or "-"
    total = f" ({_total(view.dealer_total, view.dealer_soft)})" if view.dealer else ""
    instruction = dealer_instruction(view, picture)
    lines.append(f"  dealer  {dealer}{total}  {instruction}".rstrip())
    per_box = _net_per_box(net) if net is not None else {}
    for box in view.boxes:
        lamp = picture.box(box.number) if 1 <= box.number <= len(picture.boxes) else BoxLamp.OFF
        line = "  " + _box_line(box, lamp)
        if f"box{box.number}" in per_box:
            line += f"  net {per_box[f'box{box.number}']:+d}"
        lines.append(line)
    behind = {who: value for who, value in per_box.items() if not who.startswith("box")}
    if behind:
        lines.append("  behind  " + "  ".join(f"{who} {value:+d}" for who, value in behind.items()))
    lamps = [name.upper() for name in ("draw", "stand", "alarm", "shoe_fault")
             if picture.lamp(name)]
    lines.append(f"  lamps   {' '.join(lamps) or '-'}")
    if view.flags:
        lines.append(f"  flags   {', '.join(view.flags)}")
    if due.halted:
        lines.append(f"  waiting for the pit: {' or '.join(due.resolutions)}")
    if shoe is not None:
        lines.append("  " + shoe_line(shoe))
    if stats:
        lines.append("  " + "  ".join(f"{key} {value}" for key, value in stats.items()))
    if legend:
        lines.append("  " + LEGEND)
    return "\n".join(lines)


def shoe_line(shoe: Mapping[str, Any]) -> str:
    size = int(shoe.get("size", 0))
    dealt = int(shoe.get("dealt", 0))
    share = 100.0 * dealt / size if size else 0.0
    text = (f"shoe    {'online' if shoe.get('online', True) else 'OFFLINE'}, "
            f"{size - dealt} of {size} cards left, penetration {share:.1f}%")
    if shoe.get("cut_card_out"):
        text += ", cut card out: new shoe after this round"
    return text


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


def _net_per_box(net: Mapping[str, int]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for key, value in net.items():
        owner = key.split("/", 1)[0]
        totals[owner] = totals.get(owner, 0) + int(value)
    return totals


def round_line(result: Mapping[str, Any]) -> str:
    """One line for a finished round: status, flags, each player's net."""
    net = result.get("net", {})
    parts = " ".join(f"{key} {value:+d}" for key, value in sorted(net.items()))
    flags = result.get("flags") or []
    flag_text = f" [{', '.join(flags)}]" if flags else ""
    return f"round {result.get('round')} {result.get('status')}{flag_text}: {parts}"
