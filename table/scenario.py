"""Scenarios (`table-scenario/1`): load, validate and run them through a real `Table`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from table.events import Event, ScenarioError, parse_event
from table.machine import Table
from table.profiles import ProfileError, load_profile

FORMAT = "table-scenario/1"


def _event_lines(text: str) -> dict[tuple[int, int], int]:
    """Line of each event in the file, keyed by (round, event), found by a light scan."""
    lines: dict[tuple[int, int], int] = {}
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        return lines
    rounds = doc.get("rounds") if isinstance(doc, dict) else None
    if not isinstance(rounds, list):
        return lines
    decoder = json.JSONDecoder()
    offset = text.find('"rounds"')
    line, counted = 1, 0
    for r, rnd in enumerate(rounds):
        events = rnd.get("events") if isinstance(rnd, dict) else None
        offset = text.find('"events"', offset + 1)
        if offset < 0 or not isinstance(events, list):
            break
        pos = text.find("[", offset) + 1
        for e in range(len(events)):
            while pos < len(text) and text[pos] in " \t\r\n,":
                pos += 1
            line += text.count("\n", counted, pos)  # only the text since the last event
            counted = pos
            lines[(r, e)] = line
            try:
                _, end = decoder.raw_decode(text, pos)
            except json.JSONDecodeError:
                return lines
            pos = end
    return lines


def validate_scenario(doc: Any, lines: dict[tuple[int, int], int] | None = None) -> list[
    list[Event]
]:
    """Parse every event of a scenario; the first bad one raises `ScenarioError`."""
    if not isinstance(doc, dict):
        raise ScenarioError("scenario", "a scenario is a JSON object")
    if doc.get("format", FORMAT) != FORMAT:
        raise ScenarioError("scenario", f"format must be {FORMAT!r}, got {doc.get('format')!r}")
    if not isinstance(doc.get("profile"), str):
        raise ScenarioError("scenario", 'a scenario names its "profile"')
    rounds = doc.get("rounds")
    if not isinstance(rounds, list):
        raise ScenarioError("scenario", '"rounds" must be a list of rounds')
    parsed: list[list[Event]] = []
    for r, rnd in enumerate(rounds):
        if not isinstance(rnd, dict) or not isinstance(rnd.get("events"), list):
            raise ScenarioError(f"round {r + 1}", 'a round is an object with an "events" list')
        events: list[Event] = []
        try:
            for obj in rnd["events"]:
                events.append(parse_event(obj, ""))  # the position is written only on a fault
        except ScenarioError as exc:
            e = len(events)
            where = f"round {r + 1}, event {e + 1}"
            if lines and (r, e) in lines:
                where += f" (line {lines[(r, e)]})"
            raise ScenarioError(where, exc.message) from None
        parsed.append(events)
    return parsed


def to_jsonl(doc: dict[str, Any]) -> str:
    """A scenario as JSON lines: the document without its rounds on the first
    line, then one round object per line (what `tablectl journal export
    --format jsonl` writes; `load_scenario` reads it back)."""
    header = {key: value for key, value in doc.items() if key != "rounds"}
    lines = [header, *doc.get("rounds", [])]
    return "".join(
        json.dumps(line, sort_keys=True, ensure_ascii=False, separators=(", ", ": ")) + "\n"
        for line in lines
    )


def _is_jsonl(path: Path, text: str) -> bool:
    if path.suffix.lower() == ".jsonl":
        return True
    first, _, rest = text.lstrip().partition("\n")
    if not rest.strip():
        return False
    try:
        header = json.loads(first)
    except json.JSONDecodeError:
        return False
    return isinstance(header, dict) and "rounds" not in header and "profile" in header


def _from_jsonl(path: Path, text: str) -> tuple[dict[str, Any], dict[tuple[int, int], int]]:
    """The document of a JSON-lines scenario, and the line of each event."""
    doc: dict[str, Any] | None = None
    rounds: list[Any] = []
    lines: dict[tuple[int, int], int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ScenarioError(
                f"{path}, line {number}", f"not valid JSON: {exc.msg} (one JSON object a line)"
            ) from None
        if doc is None:
            if not isinstance(value, dict) or "rounds" in value:
                raise ScenarioError(
                    f"{path}, line {number}",
                    "the first line of a JSON-lines scenario is its header "
                    '{"format": ..., "profile": ..., "rules": ...} without "rounds"',
                )
            doc = dict(value)
            continue
        if isinstance(value, dict) and isinstance(value.get("events"), list):
            for e in range(len(value["events"])):
                lines[(len(rounds), e)] = number
        rounds.append(value)
    if doc is None:
        raise ScenarioError(str(path), "the file is empty: no scenario header line")
    doc["rounds"] = rounds
    return doc, lines


def load_scenario(path: str | Path) -> dict[str, Any]:
    """Read and validate a scenario file, a JSON document or JSON lines (a
    header line, then one round a line); errors name the line of the bad event."""
    return read_scenario(path)[0]


def read_scenario(path: str | Path) -> tuple[dict[str, Any], list[list[Event]]]:
    """`load_scenario`, with the events it parsed (one list a round) for
    `run_scenario`, which then need not parse them again."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(str(path), f"cannot read the file: {exc.strerror}") from None
    lines: dict[tuple[int, int], int] | None
    if _is_jsonl(path, text):
        doc, lines = _from_jsonl(path, text)
    else:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ScenarioError(
                f"{path}, line {exc.lineno}", f"not valid JSON: {exc.msg}"
            ) from None
        lines = None  # found only when an event is at fault: the scan reads the file again
    try:
        try:
            parsed = validate_scenario(doc, lines)
        except ScenarioError:
            if lines is not None:
                raise
            validate_scenario(doc, _event_lines(text))
            raise
        assert isinstance(doc, dict)
        table_for(doc)  # the profile and its overrides, checked before anything runs
    except ScenarioError as exc:
        key_line = _key_line(path, text, exc.position)
        if key_line is not None:
            raise ScenarioError(f"{path}, line {key_line}", exc.message) from None
        raise ScenarioError(f"{path}: {exc.position}", exc.message) from None
    return doc, parsed


def _key_line(path: Path, text: str, key: str) -> int | None:
    """The line of a top-level key ("profile", "rules") of a scenario file, or
    None when `key` is not one of them (or cannot be found)."""
    if key not in ("profile", "rules"):
        return None
    if _is_jsonl(path, text):
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                return number  # the header line holds both
        return None
    found = re.search(rf'"{key}"\s*:', text)
    return text.count("\n", 0, found.start()) + 1 if found else None


def table_for(doc: dict[str, Any], keep_rounds: int | None = None) -> Table:
    """A table under the scenario's profile and overrides. A bad one raises
    `ScenarioError` whose position is the key at fault: "profile" or "rules"."""
    overrides = doc.get("rules")
    if overrides is not None and not isinstance(overrides, dict):
        raise ScenarioError("rules", '"rules" must be an object of profile keys')
    try:
        rules = load_profile(doc["profile"], overrides)
    except ProfileError as exc:
        at_fault = "rules" if overrides and (
            exc.source == "rules overrides" or exc.key in overrides) else "profile"
        raise ScenarioError(at_fault, str(exc)) from None
    return Table(rules, keep_rounds=keep_rounds)


def run_scenario(doc: dict[str, Any],
                 parsed: list[list[Event]] | None = None) -> dict[str, Any]:
    """Play every round of the scenario through one table; one result per round.
    `parsed` is the scenario's events as `read_scenario` gave them (parsed here
    when None)."""
    rounds = validate_scenario(doc) if parsed is None else parsed
    # Each result is taken as its round ends: the table need not keep finished rounds.
    table = table_for(doc, keep_rounds=1)
    apply = table.apply
    results: list[dict[str, Any]] = []
    for r, events in enumerate(rounds):
        for e, event in enumerate(events):
            apply(event, f"round {r + 1}, event {e + 1}")
        result = table.current_result()
        results.append(result if result is not None else {
            "status": "open", "flags": [], "net": {}, "dealer": [], "hands": [],
            "refused": [], "settlement": [],
        })
    return {"rounds": results}
