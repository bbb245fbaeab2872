"""The journal's schema, and which version of it a file holds.

Version 1 (tablectl 0.1 up to this package): `meta` held `version = 1`; events
had no `refused` column; `event_times` came later and may be missing.
Version 2: `meta` holds `schema_version = 2`; each event says whether the table
refused it (`refused`, the reason), so that an export places a round's refusals
from stored columns instead of reading the table's position text.

`PRAGMA user_version` holds the same number, so an older tablectl that reads
only the header refuses a newer journal before it opens it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

FORMAT_NAME = "tablectl-journal"
SCHEMA_VERSION = 2
# PRAGMA application_id: "TBJL" as a big-endian 32-bit integer.
APPLICATION_ID = 0x54424A4C

VERSION_KEY = "schema_version"
# Where version 1 kept its number.
OLD_VERSION_KEY = "version"

EVENT_TIMES = "CREATE TABLE IF NOT EXISTS event_times (seq INTEGER PRIMARY KEY, at REAL NOT NULL)"

SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE events ("
    " seq INTEGER PRIMARY KEY,"
    " source TEXT NOT NULL,"
    " source_ref TEXT,"
    " event TEXT NOT NULL,"
    " refused TEXT,"
    " UNIQUE (source, source_ref))",
    "CREATE TABLE rounds ("
    " round_no INTEGER PRIMARY KEY,"
    " start_seq INTEGER NOT NULL,"
    " end_seq INTEGER NOT NULL,"
    " status TEXT NOT NULL,"
    " flags TEXT NOT NULL,"
    " result TEXT NOT NULL)",
    EVENT_TIMES,
)


def meta_rows(profile: str | None, rules: Mapping[str, Any] | None) -> dict[str, str]:
    """The meta rows of a new journal."""
    meta = {
        "format": FORMAT_NAME,
        VERSION_KEY: str(SCHEMA_VERSION),
        "rules": json.dumps(dict(rules or {}), sort_keys=True),
    }
    if profile is not None:
        meta["profile"] = profile
    return meta


def current_meta(meta: Mapping[str, str]) -> dict[str, str]:
    """Meta rows of an older journal as the current version writes them (for a
    copy made at the current version, such as a salvage)."""
    rows = {key: value for key, value in meta.items() if key != OLD_VERSION_KEY}
    rows[VERSION_KEY] = str(SCHEMA_VERSION)
    return rows


def stored_version(meta: Mapping[str, str]) -> int | None:
    """The schema version the meta rows name; None when they name none readable."""
    text = meta.get(VERSION_KEY, meta.get(OLD_VERSION_KEY, ""))
    return int(text) if text.isdigit() else None
