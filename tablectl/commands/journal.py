"""`tablectl journal`: read the table's journal without touching it.

- `rounds`: one line per recorded round (status, flags, stakes, net, seqs),
  and the round in play at the end;
- `show ROUND`: a round's history for the pit: every event with its journal
  seq and source, where each card went, refusals and flags, then the
  settlement of each bet and the net;
- `export`: recorded rounds as a replayable scenario (`table-scenario/1`,
  one JSON document or JSON lines), read back by `tablectl replay`.

The journal is opened read-only (`Journal(path, read_only=True)`): a running
daemon is not disturbed and the file is never written. Bad input gives one
`error:` line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table.journal import Journal, JournalError, JournalEvent, export_scenario
from tablectl.commands import journal_repair

EXPORT_FORMATS = ("json", "jsonl")


class _Fail(Exception):
    """A problem with the command's input; its text is the one-line error."""


def register(subparsers: Any) -> None:
    """Add this group's commands to the top-level parser."""
    journal = subparsers.add_parser(
        "journal",
        help="read the table's journal: rounds, a round's history, export",
        description="Read the table's journal (opened read-only; a running daemon is not "
        "disturbed).",
    )
    journal.set_defaults(func=lambda args: _help(journal))
    commands = journal.add_subparsers(dest="journal_command", metavar="COMMAND")

    rounds = commands.add_parser(
        "rounds",
        help="one line per recorded round: status, flags, staked, net, seqs",
        description="List the recorded rounds, and the round in play at the end.",
    )
    _journal_options(rounds)
    rounds.add_argument("--json", action="store_true", help="print the list as JSON")
    rounds.set_defaults(func=_run(_rounds))

    show = commands.add_parser(
        "show",
        help="a round's history: every event, where each card went, the settlement",
        description="Print one round as the pit reads it: every event with its journal seq "
        "and source, where each card went, refusals and flags, then each bet's settlement "
        "and the net.",
    )
    show.add_argument("round", metavar="ROUND", help="the round's number (see `journal rounds`)")
    _journal_options(show)
    show.add_argument(
        "--json", action="store_true", help="print the round's events and stored result as JSON"
    )
    show.set_defaults(func=_run(_show))

    export = commands.add_parser(
        "export",
        help="recorded rounds as a replayable scenario (table-scenario/1)",
        description="Write recorded rounds as a table-scenario/1 scenario that "
        "`tablectl replay` plays again; each round's recorded result is its `expect`.",
    )
    _journal_options(export)
    export.add_argument(
        "--rounds", metavar="LIST",
        help="round numbers and ranges, e.g. 3-7,9 (default: every recorded round)",
    )
    export.add_argument(
        "--format", default="json", choices=EXPORT_FORMATS,
        help="json (the default): one scenario document; jsonl: a header line, then one "
        "round a line",
    )
    export.add_argument(
        "-o", "--output", type=Path, metavar="FILE", help="write to FILE (default: stdout)"
    )
    export.set_defaults(func=_run(_export))

    journal_repair.register(commands, _journal_options, _run, _journal_path)


def _journal_options(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--journal", type=Path, metavar="PATH",
        help="the journal file (default: var/journal.sqlite in the current folder, the "
        "daemon's; if it is not there, var/sim-journal.sqlite, the simulated table's)",
    )
    where.add_argument(
        "--config", type=Path, metavar="PATH",
        help="take the journal's path from the daemon's config file ([journal] path)",
    )


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _run(command: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        try:
            result: int = command(args)
        except (_Fail, JournalError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        return result

    return run


# -- opening the journal ---------------------------------------------------------


def _journal_path(args: argparse.Namespace) -> tuple[Path, str]:
    """The journal's path and, for error messages, where it came from."""
    if args.journal is not None:
        return args.journal, "given with --journal"
    if args.config is not None:
        from tablectl.config import ConfigError, load_config

        try:
            path = Path(load_config(args.config).journal.path)
        except ConfigError as error:
            problems = "; ".join(error.problems)
            raise _Fail(f"{error.source}: {problems}; fix the config file or give the "
                        "journal with --journal PATH") from None
        return path, f"[journal] path of {args.config}"
    from tablectl.config import DEFAULT_JOURNAL, DEFAULT_SIM_JOURNAL

    daemon, simulated = Path(DEFAULT_JOURNAL), Path(DEFAULT_SIM_JOURNAL)
    if not daemon.exists() and simulated.exists():
        return simulated, f"the simulated table's journal: no {daemon} here"
    if daemon.exists() and simulated.exists():
        return daemon, (f"the daemon's journal; the simulated table's is {simulated}, "
                        "read with --journal")
    return daemon, "the default"


def _open(args: argparse.Namespace) -> Journal:
    path, origin = _journal_path(args)
    if args.journal is None and args.config is None and path.exists():
        # Which of the two default files was read, so that nobody reads the wrong table.
        print(f"reading {path} ({origin})", file=sys.stderr)
    if not path.exists():
        where = "" if path.is_absolute() else f", looked for in {Path.cwd()}"
        raise _Fail(
            f"no journal at {path} ({origin}{where}); give the journal file with "
            "--journal PATH, or the daemon's config with --config PATH"
        )
    return Journal(path, read_only=True)


def _round_list(journal: Journal) -> str:
    count = len(journal.rounds())
    if count == 0:
        return f"{journal.path} holds no recorded round yet"
    return f"{journal.path} holds rounds 1 to {count}"


# -- figures of a round ------------------------------------------------------------


def _player_net(net: Mapping[str, int]) -> dict[str, int]:
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


def _signed(value: int) -> str:
    return f"{value:+d}" if value else "0"


def _net_text(players: Mapping[str, int]) -> str:
    if not players:
        return "no bets"
    parts = ", ".join(f"{player} {_signed(value)}" for player, value in players.items())
    return f"{parts}; house {_signed(-sum(players.values()))}"


def _has_bet(events: Iterable[JournalEvent]) -> bool:
    return any("bet" in item.event for item in events)


# -- the events after the last recorded round ----------------------------------------


@dataclass
class _Replayed:
    """What replaying the journal tells about the events of one round."""

    notes: dict[int, str]
    result: dict[str, Any] | None
    dealer_total: int | None
    problem: str | None = None


@dataclass
class _Unrecorded:
    """The events after the last recorded round. The daemon records a round
    when the next one begins, so they may be a round in play or a finished
    round not recorded yet; a replay of the journal tells which."""

    events: list[JournalEvent]
    round: int | None  # None: no bet yet, no round begun
    status: str  # "open", or the replayed status of a finished round
    replayed: _Replayed | None


def _unrecorded(journal: Journal, recorded: int) -> _Unrecorded | None:
    events = journal.open_round_events()
    if not events:
        return None
    if not _has_bet(events):
        return _Unrecorded(events, None, "between", None)
    replayed = _replay(journal, events)
    result = replayed.result
    status = "open"
    if result is not None and result.get("round") == recorded + 1:
        status = str(result.get("status", "open"))
    else:
        replayed.result = None
    return _Unrecorded(events, recorded + 1, status, replayed)


# -- rounds --------------------------------------------------------------------------


def _rounds(args: argparse.Namespace) -> int:
    with _open(args) as journal:
        records = journal.rounds()
        summary = [_round_summary(record.round_no, record.status, record.start_seq,
                                  record.end_seq, record.result) for record in records]
        after = _unrecorded(journal, len(records))
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
        print(_dump({
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
    _print_rows(rows, right=(0, 3))
    if footnote:
        print(footnote)
    return 0


def _round_summary(number: int, status: str, start: int, end: int,
                   result: Mapping[str, Any]) -> dict[str, Any]:
    players = _player_net(result.get("net") or {})
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
        ",".join(item["flags"]) or "-", _net_text(item["net"]),
    )


def _print_rows(rows: list[tuple[str, ...]], right: tuple[int, ...] = ()) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [
            cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        print("  ".join(cells).rstrip())


# -- show ----------------------------------------------------------------------------


def _show(args: argparse.Namespace) -> int:
    number = _round_number(args.round)
    with _open(args) as journal:
        records = {record.round_no: record for record in journal.rounds()}
        record = records.get(number)
        recorded = record is not None
        replayed: _Replayed | None = None
        if record is not None:
            events = journal.round_events(number)
            status, result = record.status, record.result
        else:
            after = _unrecorded(journal, len(records))
            if after is None or after.round != number:
                in_play = (f", and round {after.round} not recorded yet"
                           if after and after.round else "")
                raise _Fail(
                    f"round {number} is not in the journal: {_round_list(journal)}{in_play}; "
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
            print(_dump(shown))
            return 0
        if replayed is None:
            replayed = _replay(journal, events)
    _print_round(number, status, recorded, journal, events, result, replayed)
    return 0


def _round_number(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise _Fail(
            f"{text!r} is not a round number; give a number from 1 up, as "
            "`tablectl journal rounds` lists them"
        )
    return int(text)


def _replay(journal: Journal, events: list[JournalEvent]) -> _Replayed:
    """Feed the journal to a fresh table up to the round's last event, noting
    where each card of the round went and what was refused or flagged."""
    if not events:
        return _Replayed({}, None, None)
    from table.machine import Table
    from table.profiles import ProfileError, load_profile

    if journal.profile is None:
        return _Replayed({}, None, None, "no profile is stored in the journal")
    try:
        rules = load_profile(journal.profile, journal.rules)
    except ProfileError as error:
        return _Replayed({}, None, None, f"its profile cannot be loaded ({error})")
    table = Table(rules, keep_rounds=2)
    first, last = events[0].seq, events[-1].seq
    notes: dict[int, str] = {}
    for item in journal.events():
        if item.seq > last:
            break
        if item.seq < first:
            table.apply(item.event)
            continue
        before = _places(table) if "card" in item.event else None
        outcome = table.apply(item.event)
        parts = []
        if before is not None and outcome.accepted:
            after = _places(table)
            went = [place for place, count in after.items() if count > before.get(place, 0)]
            parts.append("-> " + " and ".join(went) if went else "-> not dealt")
        if not outcome.accepted:
            parts.append(f"REFUSED: {outcome.reason}")
        if outcome.flags:
            parts.append("FLAG " + ", ".join(outcome.flags))
        notes[item.seq] = "  ".join(parts)
    view = table.view()
    return _Replayed(notes, table.current_result(), view.dealer_total if view.dealer else None)


def _places(table: Any) -> dict[str, int]:
    """How many cards each place of the table holds now."""
    view = table.view()
    places = {"dealer": len(view.dealer)}
    for box in view.boxes:
        for hand in box.hands:
            places[f"box {box.number}, hand {hand.index + 1}"] = len(hand.cards)
    result = table.current_result()
    places["burned"] = len(result.get("burned", [])) if result else 0
    return places


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


def _print_round(number: int, status: str, recorded: bool, journal: Journal,
                 events: list[JournalEvent], result: dict[str, Any] | None,
                 replayed: _Replayed) -> None:
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
    _print_rows(rows, right=(0,))
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
        _print_rows([("  " + row[0], *row[1:]) for row in table_rows], right=(2, 3, 4, 5))
    elif status == "void":
        print("settlement: none, the round is void: every bet is returned")
    net = result.get("net") or {}
    by_spot = ", ".join(f"{key} {_signed(int(value))}" for key, value in net.items())
    print(f"net: {_net_text(_player_net(net))}" + (f" ({by_spot})" if by_spot else ""))
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


# -- export --------------------------------------------------------------------------


def parse_rounds(text: str) -> list[tuple[int, int]]:
    """`3-7,9` -> [(3, 7), (9, 9)]; `_Fail` when malformed."""
    spans: list[tuple[int, int]] = []
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        ok = first.strip().isdigit() and (not dash or last.strip().isdigit())
        low = int(first) if ok else 0
        high = int(last) if ok and dash else low
        if not ok or low < 1 or high < low:
            raise _Fail(
                f"--rounds {text!r}: {part.strip()!r} is not a round number or range; write "
                "numbers and ranges from 1 up, low-high, separated by commas, e.g. 3-7,9"
            )
        spans.append((low, high))
    return spans


def _export(args: argparse.Namespace) -> int:
    wanted = parse_rounds(args.rounds) if args.rounds is not None else None
    output: Path | None = args.output
    with _open(args) as journal:
        if output is not None:
            _check_output(output, journal.path)
        recorded = len(journal.rounds())
        if recorded == 0:
            raise _Fail(f"{journal.path} holds no recorded round yet; nothing to export")
        numbers: list[int] | None = None
        if wanted is not None:
            beyond = [(low, high) for low, high in wanted if high > recorded]
            if beyond:
                missing = ", ".join(
                    str(max(low, recorded + 1)) if high == max(low, recorded + 1)
                    else f"{max(low, recorded + 1)}-{high}"
                    for low, high in beyond
                )
                in_play = _has_bet(journal.open_round_events()) and any(
                    low <= recorded + 1 <= high for low, high in beyond)
                raise _Fail(
                    f"--rounds {args.rounds}: round(s) {missing} not recorded: "
                    f"{_round_list(journal)}"
                    + (f" (round {recorded + 1} is not recorded yet: the daemon records a "
                       "round when the next one begins)" if in_play else "")
                    + "; list them with `tablectl journal rounds`"
                )
            numbers = sorted({n for low, high in wanted for n in range(low, high + 1)})
        doc = export_scenario(journal, numbers)
    if args.format == "json":
        text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    else:
        from table.scenario import to_jsonl

        text = to_jsonl(doc)
    if output is None:
        sys.stdout.write(text)
        return 0
    _write(output, text)
    count = len(doc["rounds"])
    print(f"wrote {count} round(s) of {journal.path} to {output} ({args.format})")
    return 0


def _check_output(output: Path, journal_path: Path) -> None:
    target = output.resolve()
    journal_file = journal_path.resolve()
    if target in (journal_file, Path(f"{journal_file}-wal"), Path(f"{journal_file}-shm")):
        raise _Fail(f"-o {output} is the journal itself; write the export to another file")
    if output.is_dir():
        raise _Fail(f"-o {output} is a folder; give a file name, e.g. {output}/rounds.json")
    if not target.parent.is_dir():
        raise _Fail(f"-o {output}: the folder {output.parent} does not exist; create it first")


def _write(output: Path, text: str) -> None:
    """Write the whole file or nothing (a temporary file renamed into place)."""
    temporary = output.resolve().parent / f".{output.name}.{os.getpid()}.tmp"
    try:
        try:
            with temporary.open("w", encoding="utf-8") as file:
                file.write(text)
            os.replace(temporary, output)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
    except OSError as error:
        raise _Fail(f"-o {output}: cannot write the file ({error.strerror})") from None


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)
