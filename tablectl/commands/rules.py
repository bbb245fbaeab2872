"""`tablectl` commands for the table core: replay, conformance and profiles."""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from table.conformance import check_scenario, compare_result
from table.events import ScenarioError
from table.profiles import ProfileError, list_profiles, load_profile
from table.scenario import load_scenario, read_scenario, run_scenario


def register(subparsers: Any) -> None:
    """Add this group's commands to the top-level parser."""
    replay = subparsers.add_parser(
        "replay", help="run a table-scenario/1 file through the table, print the result and "
        "check each round's expect block (exit 1 on a difference)"
    )
    replay.add_argument("file", type=Path, help="scenario file (JSON or JSON lines)")
    replay.add_argument("--json", action="store_true", help="print the result object as JSON")
    replay.set_defaults(func=_replay)

    conformance = subparsers.add_parser(
        "conformance", help="run every scenario of a folder and compare with its expectations"
    )
    conformance.add_argument("folder", type=Path, help="folder of scenario files (*.json)")
    conformance.set_defaults(func=_conformance)

    profiles = subparsers.add_parser("profiles", help="list the house-rule profiles")
    profiles.set_defaults(func=_profiles_list)
    profile_commands = profiles.add_subparsers(dest="profiles_command", metavar="COMMAND")
    show = profile_commands.add_parser("show", help="print a profile's resolved rules")
    show.add_argument("name", help="a shipped profile's name or a profile TOML file")
    show.set_defaults(func=_profiles_show)


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)


def _replay(args: argparse.Namespace) -> int:
    try:
        with _collector_paused():
            doc, parsed = read_scenario(args.file)
            result = run_scenario(doc, parsed)
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.write(result_json(result))
    else:
        for index, rnd in enumerate(result["rounds"], start=1):
            net = ", ".join(f"{key} {value:+d}" for key, value in rnd["net"].items())
            flags = ", ".join(rnd["flags"]) or "no flags"
            print(f"round {index}: {rnd['status']}; dealer {' '.join(rnd['dealer'])}; "
                  f"{flags}; {net}")
            for refused in rnd["refused"]:
                print(f"  refused at {refused['position']}: {refused['reason']}")
    checked = sum(1 for rnd in doc["rounds"] if isinstance(rnd.get("expect"), dict))
    if not checked:
        return 0
    differences = compare_result(doc, result)
    for line in differences:
        print(f"differs: {line}", file=sys.stderr)
    if differences:
        print(f"{args.file}: {len(differences)} difference(s) from the expect blocks "
              f"({checked} round(s) checked)", file=sys.stderr)
        return 1
    print(f"{args.file}: {checked} round(s) as expected", file=sys.stderr)
    return 0


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a scenario is read and played: the
    collector would walk the whole document (millions of objects for a long
    file) again and again while nothing it holds is garbage."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            # What the command read and played is freed by reference counting; left
            # to the collector, its first full pass would walk all of it once more.
            gc.freeze()
            gc.enable()


def result_json(result: dict[str, Any]) -> str:
    """The result object as JSON, keys sorted, one round a line: the same events
    give the same bytes, and a diff of two replays shows the rounds that differ."""
    rounds = result["rounds"]
    if not rounds:
        return '{"rounds": []}\n'
    body = ",\n".join(json.dumps(rnd, sort_keys=True, ensure_ascii=False) for rnd in rounds)
    return '{"rounds": [\n' + body + "\n]}\n"


def _conformance(args: argparse.Namespace) -> int:
    folder: Path = args.folder
    if not folder.is_dir():
        print(f"error: {folder} is not a folder", file=sys.stderr)
        return 2
    paths = sorted(folder.glob("*.json"))
    if not paths:
        print(f"error: {folder} holds no scenario files (*.json)", file=sys.stderr)
        return 2
    failures = 0
    for path in paths:
        try:
            differences = check_scenario(load_scenario(path))
        except ScenarioError as exc:
            differences = [f"malformed: {exc}"]
        if differences:
            failures += 1
            print(f"FAIL {path.name}")
            for line in differences:
                print(f"     {line}")
        else:
            print(f"pass {path.name}")
    print(f"{len(paths) - failures} passed, {failures} failed")
    return 1 if failures else 0


def _profiles_list(args: argparse.Namespace) -> int:
    for name in list_profiles():
        print(f"{name:18} {load_profile(name).description}")
    return 0


def _profiles_show(args: argparse.Namespace) -> int:
    try:
        rules = load_profile(args.name)
    except ProfileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(_dump(rules.to_dict()))
    return 0
