"""`tablectl journal show ROUND`: a round's history as the pit reads it."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from journal import JournalEvent, JournalReader
from tablectl.commands.journal_common import Fail, dump, open_journal, print_rows, round_list
from tablectl.commands.journal_rounds import net_text, player_net, signed, unrecorded

if TYPE_CHECKING:
    from tablectl.commands.journal_replayed import Replayed


def show_command(args: argparse.Namespace) -> int:
    number = _round_number(args.round)
    with open_journal(args) as journal:
        records = {record.round_no: record for record in journal.rounds()}
        record = records.get(number)
        recorded = record is not None
        replayed: Replayed | None = None
        if record is not None:
            events = journal.round_events(number)
            status, result = record.status, record.result
        else:
            after = unrecorded(journal, len(records))
            if after is None or after.round != number:
                in_play = (f", and round {after.round} not recorded yet"
                           if after and after.round else "")
                raise Fail(
                    f"round {number} is not in the journal: {round_list(journal)}{in_play}; "
                    "list them with `tablectl journal rounds`"
                )
            events, status, result, replayed = after.events, after.status, None, after.replayed
        if args.json:
            shown: dict[str, Any] = {
                "round": number, "status": status, "recorded": recorded,
                "start_seq": events[0].seq if events else None,
                "end_seq": events[-1].seq if events else None,
                "events": [
                    {"seq": e.seq, "source": e.source, "source_ref": e.source_ref,
                     "event": e.event}
                    for e in events
                ],
                "result": result,
            }
            if not recorded:
                shown["replayed_result"] = replayed.result if replayed else None
            print(dump(shown))
            return 0
        if replayed is None:
            # The rules engine is loaded only here, not for the other commands.
            from tablectl.commands.journal_replayed import replay_round

            replayed = replay_round(journal, events)
    _print_round(number, status, recorded, journal, events, result, replayed)
    return 0


def _round_number(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise Fail(
            f"{text!r} is not a round number; give a number from 1 up, as "
            "`tablectl journal rounds` lists them"
        )
    return int(text)


def _describe(event: Mapping[str, Any]) -> str:
    """One event in words."""
    kind, body = next(iter(event.items()))
    if kind == "bet" and isinstance(body, dict):
        text = f"bet {body.get('amount')} on box {body.get('box')} {body.get('spot', 'main')}"
        player = body.get("player")
        return text + (f" by {player}" if player and player != f"box{body.get('box')}" else "")
    if kind == "deal":
        return "deal (no more bets)"
    if kind == "card":
        seen = event.get("box")
        where = ""
        if seen == "dealer":
            where = " (seen on the dealer's spot)"
        elif seen is not None:
            where = f" (seen on box {seen})"
        return f"card {body}{where}"
    if kind == "do" and isinstance(body, dict):
        who = "dealer" if body.get("box") == "dealer" else f"box {body.get('box')}"
        text = f"{who} {body.get('action')}"
        if body.get("player"):
            text += f" by {body['player']}"
        if body.get("amount") is not None:
            text += f" {body['amount']}"
        return text
    if kind == "resolve":
        return f"pit resolution: {body}"
    if kind == "shoe":
        return {"loaded": "new shoe loaded", "cut_card": "cut card came out"}.get(
            str(body), f"shoe {body}")
    if kind == "flag":
        return f"fault reported: {body}"
    return json.dumps(event, sort_keys=True)


def _print_round(number: int, status: str, recorded: bool, journal: JournalReader,
                 events: list[JournalEvent], result: dict[str, Any] | None,
                 replayed: Replayed) -> None:
    span = f"seq {events[0].seq}-{events[-1].seq}" if events else "no events"
    state = status if recorded or status == "open" else f"{status}, not recorded yet"
    print(f"round {number}: {state} ({journal.path}, profile {journal.profile}, {span})")
    if replayed.problem:
        print(f"note: where the cards went is not shown: {replayed.problem}")
    rows: list[tuple[str, ...]] = [("seq", "source", "event")]
    for item in events:
        source = item.source + (f" {item.source_ref}" if item.source_ref is not None else "")
        note = replayed.notes.get(item.seq, "")
        rows.append((str(item.seq), source, _describe(item.event) + (f"  {note}" if note else "")))
    print_rows(rows, right=(0,))
    if result is None and status != "open" and replayed.result is not None:
        print("note: the daemon records a round when the next one begins; the result "
              "below comes from replaying the journal")
        result = replayed.result
    if result is None:
        print("in play: no result recorded yet")
        return
    if replayed.result is not None and not _same_result(replayed.result, result):
        print("note: replaying the journal gives another result than the one recorded "
              "(was the profile changed?); the recorded result follows")
    flags = ", ".join(result.get("flags", [])) or "none"
    print(f"flags: {flags}")
    dealer = " ".join(result.get("dealer", [])) or "no card"
    total = ""
    if replayed.dealer_total is not None and replayed.result is not None and result.get(
            "dealer"):
        total = f" ({replayed.dealer_total})"
    print(f"dealer: {dealer}{total}")
    if result.get("burned"):
        print(f"burned: {' '.join(result['burned'])}")
    for hand in result.get("hands", []):
        cards = " ".join(hand.get("cards", [])) or "no card"
        print(f"box {hand.get('box')}, hand {int(hand.get('hand', 0)) + 1}: {cards} = "
              f"{hand.get('total')}, {hand.get('status')}")
    settlement = result.get("settlement") or []
    if settlement:
        print("settlement:")
        header = ("player", "spot", "box", "hand", "stake", "payout", "rule")
        table_rows: list[tuple[str, ...]] = [header]
        for entry in settlement:
            hand_no = entry.get("hand")
            table_rows.append((
                str(entry.get("player")), str(entry.get("spot")), str(entry.get("box")),
                "-" if hand_no is None else str(int(hand_no) + 1), str(entry.get("stake")),
                str(entry.get("payout")), str(entry.get("rule")),
            ))
        print_rows([("  " + row[0], *row[1:]) for row in table_rows], right=(2, 3, 4, 5))
    elif status == "void":
        print("settlement: none, the round is void: every bet is returned")
    net = result.get("net") or {}
    by_spot = ", ".join(f"{key} {signed(int(value))}" for key, value in net.items())
    print(f"net: {net_text(player_net(net))}" + (f" ({by_spot})" if by_spot else ""))
    if replayed.problem:  # the refusals were not shown beside their events
        for refusal in result.get("refused", []):
            print(f"refused at {refusal.get('position')}: {refusal.get('reason')}")


def _same_result(replayed: Mapping[str, Any], recorded: Mapping[str, Any]) -> bool:
    """Equal apart from where refusals are numbered (the daemon's own count)."""
    def core(result: Mapping[str, Any]) -> dict[str, Any]:
        refused = [
            {k: v for k, v in item.items() if k != "position"}
            for item in result.get("refused", []) if isinstance(item, dict)
        ]
        return {**result, "refused": refused}

    return core(replayed) == core(recorded)


