"""The table's journal: an append-only SQLite file of every input event and of
each round's outputs (`docs/journal.md`).

- `Journal` writes (`journal.writer`), `JournalReader` only reads
  (`journal.reader`); both hand out typed records (`journal.records`).
- `journal.schema` and `journal.migrations`: the versioned schema; an older
  journal is migrated when it is opened for writing.
- `journal.file` makes a new journal whole and checks an existing one;
  `journal.salvage` copies what is readable of a damaged one.
- `journal.replay` is the one loop that feeds stored events to a table;
  `journal.export` turns recorded rounds into a replayable scenario.

The package may import `table` (for the replay); `table` knows nothing of it
nor of SQLite.
"""

from journal.committer import GroupCommitter
from journal.errors import AlreadyStored, JournalDamaged, JournalError, JournalFullError
from journal.export import SCENARIO_FORMAT, export_scenario
from journal.reader import JournalReader
from journal.records import JournalEvent, RoundRecord, SealedBatch
from journal.schema import APPLICATION_ID, FORMAT_NAME, SCHEMA_VERSION
from journal.writer import Journal

__all__ = [
    "APPLICATION_ID", "FORMAT_NAME", "SCENARIO_FORMAT", "SCHEMA_VERSION", "AlreadyStored",
    "GroupCommitter", "Journal", "JournalDamaged", "JournalError", "JournalEvent",
    "JournalFullError", "JournalReader", "RoundRecord", "SealedBatch", "export_scenario",
]
