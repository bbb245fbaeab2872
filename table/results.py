"""A round's result object, in the shape of the scenario format."""

from __future__ import annotations

from typing import Any

from table.round_state import Round


def hand_results(rnd: Round) -> dict[tuple[int, int], str]:
    """The owner's verdict per (box, hand) once settled: win, push or lose."""
    out: dict[tuple[int, int], str] = {}
    for entry in rnd.ledger:
        if entry.spot == "main" and entry.hand is not None:
            box = rnd.boxes.get(entry.box)
            if box is not None and entry.player == box.owner:
                net = entry.payout - entry.stake
                out[(entry.box, entry.hand)] = "win" if net > 0 else "push" if net == 0 else "lose"
    return out


def round_result(rnd: Round, banker: str | None) -> dict[str, Any]:
    """The result object; `banker` is given for the banker game (British pontoon)."""
    net: dict[str, int] = {}
    for box in rnd.boxes.values():
        for player in box.main:
            net.setdefault(f"{player}/main", 0)
        for player, spot in box.side:
            net.setdefault(f"{player}/{spot}", 0)
    for entry in rnd.ledger:
        key = f"{entry.player}/{entry.spot}"
        net[key] = net.get(key, 0) + entry.payout - entry.stake
    hands = [
        {"box": number, "hand": index, "cards": list(hand.cards), "total": hand.total(),
         "status": hand.status}
        for number in sorted(rnd.boxes)
        for index, hand in enumerate(rnd.boxes[number].hands)
    ]
    status = rnd.status
    if status != "void" and (rnd.halt is not None or status != "settled"):
        status = "open"
    result: dict[str, Any] = {
        "round": rnd.number,
        "status": status,
        "flags": list(rnd.flags),
        "net": dict(sorted(net.items())),
        "dealer": list(rnd.dealer),
        "burned": list(rnd.burned),
        "hands": hands,
        "refused": list(rnd.refused),
        "settlement": [entry.to_json() for entry in rnd.ledger],
    }
    if rnd.notices:
        result["notices"] = list(rnd.notices)
    if banker is not None:
        result["next_banker"] = rnd.next_banker or banker
    return result
