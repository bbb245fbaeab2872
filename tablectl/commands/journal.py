"""`tablectl journal`: read the table's journal without touching it.

- `rounds`: one line per recorded round (status, flags, stakes, net, seqs),
  and the round in play at the end;
- `show ROUND`: a round's history for the pit: every event with its journal
  seq and source, where each card went, refusals and flags, then the
  settlement of each bet and the net;
- `export`: recorded rounds as a replayable scenario (`table-scenario/1`,
  one JSON document or JSON lines), read back by `tablectl replay`.

The journal is opened read-only (`JournalReader`): a running daemon is not
disturbed and the file is never written. `rounds` lives in `journal_rounds`,
`show` in `journal_show`, `check` and `salvage` in `journal_repair`. Bad input gives one
`error:` line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from journal import export_scenario
from tablectl.commands import journal_repair
from tablectl.commands.journal_common import (
    Fail,
    journal_options,
    open_journal,
    round_list,
    run,
)
from tablectl.commands.journal_rounds import has_bet, rounds_command
from tablectl.commands.journal_show import show_command

EXPORT_FORMATS = ("json", "jsonl")


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
    journal_options(rounds)
    rounds.add_argument("--json", action="store_true", help="print the list as JSON")
    rounds.set_defaults(func=run(rounds_command))

    show = commands.add_parser(
        "show",
        help="a round's history: every event, where each card went, the settlement",
        description="Print one round as the pit reads it: every event with its journal seq "
        "and source, where each card went, refusals and flags, then each bet's settlement "
        "and the net.",
    )
    show.add_argument("round", metavar="ROUND", help="the round's number (see `journal rounds`)")
    journal_options(show)
    show.add_argument(
        "--json", action="store_true", help="print the round's events and stored result as JSON"
    )
    show.set_defaults(func=run(show_command))

    export = commands.add_parser(
        "export",
        help="recorded rounds as a replayable scenario (table-scenario/1)",
        description="Write recorded rounds as a table-scenario/1 scenario that "
        "`tablectl replay` plays again; each round's recorded result is its `expect`.",
    )
    journal_options(export)
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
    export.set_defaults(func=run(_export))

    journal_repair.register(commands)


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


# -- export --------------------------------------------------------------------------


def parse_rounds(text: str) -> list[tuple[int, int]]:
    """`3-7,9` -> [(3, 7), (9, 9)]; `Fail` when malformed."""
    spans: list[tuple[int, int]] = []
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        ok = first.strip().isdigit() and (not dash or last.strip().isdigit())
        low = int(first) if ok else 0
        high = int(last) if ok and dash else low
        if not ok or low < 1 or high < low:
            raise Fail(
                f"--rounds {text!r}: {part.strip()!r} is not a round number or range; write "
                "numbers and ranges from 1 up, low-high, separated by commas, e.g. 3-7,9"
            )
        spans.append((low, high))
    return spans


def _export(args: argparse.Namespace) -> int:
    wanted = parse_rounds(args.rounds) if args.rounds is not None else None
    output: Path | None = args.output
    with open_journal(args) as journal:
        if output is not None:
            _check_output(output, journal.path)
        recorded = len(journal.rounds())
        if recorded == 0:
            raise Fail(f"{journal.path} holds no recorded round yet; nothing to export")
        numbers: list[int] | None = None
        if wanted is not None:
            beyond = [(low, high) for low, high in wanted if high > recorded]
            if beyond:
                missing = ", ".join(
                    str(max(low, recorded + 1)) if high == max(low, recorded + 1)
                    else f"{max(low, recorded + 1)}-{high}"
                    for low, high in beyond
                )
                in_play = has_bet(journal.open_round_events()) and any(
                    low <= recorded + 1 <= high for low, high in beyond)
                raise Fail(
                    f"--rounds {args.rounds}: round(s) {missing} not recorded: "
                    f"{round_list(journal)}"
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
        raise Fail(f"-o {output} is the journal itself; write the export to another file")
    if output.is_dir():
        raise Fail(f"-o {output} is a folder; give a file name, e.g. {output}/rounds.json")
    if not target.parent.is_dir():
        raise Fail(f"-o {output}: the folder {output.parent} does not exist; create it first")


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
        raise Fail(f"-o {output}: cannot write the file ({error.strerror})") from None


