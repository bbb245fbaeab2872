"""`tablectl journal check` and `tablectl journal salvage`: a damaged journal.

`check` reads the journal row by row (never writing it) and says whether it is
intact and, if not, what SQLite finds wrong and which events and rounds cannot
be read. `salvage -o NEW` copies every readable event, round and event time
into the new journal NEW (made whole or not at all) and reports what could not
be read; the damaged file is kept as it is, for the audit.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from journal import JournalError
from journal.salvage import inspect, salvage
from tablectl.commands.journal_common import journal_options, journal_path, run


def register(commands: Any) -> None:
    """Add `check` and `salvage` to the `journal` group."""
    check = commands.add_parser(
        "check",
        help="whether the journal is intact; what cannot be read of a damaged one",
        description="Read the whole journal row by row (it is never written) and say "
        "whether it is intact; for a damaged journal, what SQLite finds wrong and which "
        "events and rounds cannot be read. Exit status 0 when intact, 1 when damaged.",
    )
    journal_options(check)
    check.set_defaults(func=run(_check))

    rescue = commands.add_parser(
        "salvage",
        help="copy every readable event of a damaged journal into a new journal",
        description="Copy every readable event (under its own seq), round and event time "
        "of the journal into the new journal FILE, and list what could not be read. The "
        "damaged journal is only read: keep it for the audit.",
    )
    journal_options(rescue)
    rescue.add_argument("-o", "--output", type=Path, metavar="FILE", required=True,
                        help="the new journal (must not exist)")
    rescue.set_defaults(func=run(_salvage))


def _check(args: argparse.Namespace) -> int:
    path, _ = journal_path(args)
    report = inspect(path)
    for line in report.lines():
        print(line)
    if not report.intact:
        print(f"salvage it: tablectl journal salvage --journal {path} -o NEW.sqlite")
    return 0 if report.intact else 1


def _salvage(args: argparse.Namespace) -> int:
    path, _ = journal_path(args)
    output: Path = args.output
    try:
        report = salvage(path, output)
    except OSError as error:
        raise JournalError(f"{output}: cannot write the copy ({error.strerror})") from error
    for line in report.lines():
        print(line)
    print(f"copied {report.events_read} event(s) and {report.rounds_read} round(s) into "
          f"{output}; keep {path} for the audit and run the table on {output}")
    return 0
