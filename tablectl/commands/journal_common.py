"""What the `tablectl journal` commands share: finding and opening the journal
(read-only: a running daemon is not disturbed), one-line errors, table output."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from journal import JournalError, JournalReader


class Fail(Exception):
    """A problem with the command's input; its text is the one-line error."""


def run(command: Any) -> Any:
    """The command, with its input problems as one `error:` line and exit code 2."""
    def run(args: argparse.Namespace) -> int:
        try:
            result: int = command(args)
        except (Fail, JournalError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        return result

    return run


def journal_options(parser: argparse.ArgumentParser) -> None:
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


def journal_path(args: argparse.Namespace) -> tuple[Path, str]:
    """The journal's path and, for error messages, where it came from."""
    if args.journal is not None:
        return args.journal, "given with --journal"
    if args.config is not None:
        from tablectl.config import ConfigError, load_config

        try:
            path = Path(load_config(args.config).journal.path)
        except ConfigError as error:
            problems = "; ".join(error.problems)
            raise Fail(f"{error.source}: {problems}; fix the config file or give the "
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


def open_journal(args: argparse.Namespace) -> JournalReader:
    path, origin = journal_path(args)
    if args.journal is None and args.config is None and path.exists():
        # Which of the two default files was read, so that nobody reads the wrong table.
        print(f"reading {path} ({origin})", file=sys.stderr)
    if not path.exists():
        where = "" if path.is_absolute() else f", looked for in {Path.cwd()}"
        raise Fail(
            f"no journal at {path} ({origin}{where}); give the journal file with "
            "--journal PATH, or the daemon's config with --config PATH"
        )
    return JournalReader(path)


def round_list(journal: JournalReader) -> str:
    count = len(journal.rounds())
    if count == 0:
        return f"{journal.path} holds no recorded round yet"
    return f"{journal.path} holds rounds 1 to {count}"


def print_rows(rows: list[tuple[str, ...]], right: tuple[int, ...] = ()) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [
            cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        print("  ".join(cells).rstrip())




def dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)
