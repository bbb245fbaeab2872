"""`tablectl journal rounds`, the figures of a round, and the events after the
last recorded round: a round in play, or one over but not recorded yet (the
daemon records a round when the next one begins)."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from journal import JournalEvent, JournalReader
from tablectl.commands.journal_common import dump, open_journal, print_rows

if TYPE_CHECKING:
    from tablectl.commands.journal_replayed import Replayed


def player_net(net: Mapping[str, int]) -> dict[str, int]:
    """The net per player (summed over spots); keys are `player/spot`."""
    players: dict[str, int] = {}
    for key, value in net.items():
        player = key.rpartition("/")[0] or key
        players[player] = players.get(player, 0) + int(value)
    return players


def _staked(result: Mapping[str, Any]) -> int | None:
    settlement = result.get("settlement") or []
    if not settlement:
        return None
    return sum(int(entry.get("stake", 0)) for entry in settlement)


def signed(value: int) -> str:
    return f"{value:+d}" if value else "0"


def net_text(players: Mapping[str, int]) -> str:
    if not players:
        return "no bets"
    parts = ", ".join(f"{player} {signed(value)}" for player, value in players.items())
    return f"{parts}; house {signed(-sum(players.values()))}"


def has_bet(events: Iterable[JournalEvent]) -> bool:
    return any("bet" in item.event for item in events)


@dataclass
class Unrecorded:
    """The events after the last recorded round. The daemon records a round
    when the next one begins, so they may be a round in play or a finished
    round not recorded yet; a replay of the journal tells which."""

    events: list[JournalEvent]
    round: int | None  # None: no bet yet, no round begun
    status: str  # "open", or the replayed status of a finished round
    replayed: Replayed | None


def unrecorded(journal: JournalReader, recorded: int) -> Unrecorded | None:
    events = journal.open_round_events()
    if not events:
        return None
    if not has_bet(events):
        return Unrecorded(events, None, "between", None)
    # The rules engine is loaded only for a round that needs a replay.
    from tablectl.commands.journal_replayed import replay_round

    replayed = replay_round(journal, events)
    result = replayed.result
    status = "open"
    if result is not None and result.get("round") == recorded + 1:
        status = str(result.get("status", "open"))
    else:
        replayed.result = None
    return Unrecorded(events, recorded + 1, status, replayed)


# -- rounds ---------------------------------------------------------------------------


def rounds_command(args: argparse.Namespace) -> int:
    with open_journal(args) as journal:
        records = journal.rounds()
        summary = [_round_summary(record.round_no, record.status, record.start_seq,
                                  record.end_seq, record.result) for record in records]
        after = unrecorded(journal, len(records))
    open_part: dict[str, Any] | None = None
    if after is not None:
        open_part = {
            "round": after.round, "status": after.status, "start_seq": after.events[0].seq,
            "end_seq": after.events[-1].seq, "events": len(after.events),
        }
        result = after.replayed.result if after.replayed else None
        if result is not None and after.status != "open":
            open_part.update(_round_summary(after.round or 0, after.status,
                                            after.events[0].seq, after.events[-1].seq, result))
    if args.json:
        print(dump({
            "journal": str(journal.path), "profile": journal.profile,
            "rules": journal.rules, "rounds": summary, "open": open_part,
        }))
        return 0
    print(f"{journal.path}: profile {journal.profile or '(none stored)'}, "
          f"{len(records)} round(s) recorded")
    rows: list[tuple[str, ...]] = [("round", "status", "seq", "staked", "flags", "net")]
    for item in summary:
        rows.append(_summary_row(item))
    footnote = None
    if open_part is not None:
        span = f"{open_part['start_seq']}-{open_part['end_seq']}"
        count = f"{open_part['events']} event(s)"
        if open_part["round"] is None:
            rows.append(("-", "between", span, "-", "-", f"{count}, no bet yet"))
        elif open_part["status"] == "open":
            rows.append((str(open_part["round"]), "open", span, "-", "-",
                         f"in play: {count}, not settled yet"))
        else:
            row = _summary_row(open_part)
            rows.append((row[0], row[1] + "*", *row[2:]))
            footnote = (f"* round {open_part['round']} is over but not recorded yet (the "
                        "daemon records a round when the next one begins); its figures come "
                        "from replaying the journal")
    print_rows(rows, right=(0, 3))
    if footnote:
        print(footnote)
    return 0


def _round_summary(number: int, status: str, start: int, end: int,
                   result: Mapping[str, Any]) -> dict[str, Any]:
    players = player_net(result.get("net") or {})
    return {
        "round": number,
        "status": status,
        "flags": list(result.get("flags", [])),
        "start_seq": start,
        "end_seq": end,
        "staked": _staked(result),
        "net": players,
        "house": -sum(players.values()),
    }


def _summary_row(item: Mapping[str, Any]) -> tuple[str, ...]:
    return (
        str(item["round"]), item["status"], f"{item['start_seq']}-{item['end_seq']}",
        "-" if item["staked"] is None else str(item["staked"]),
        ",".join(item["flags"]) or "-", net_text(item["net"]),
    )


