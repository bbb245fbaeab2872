"""`tablectl` commands for the table core: replay, conformance and profiles."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from table.conformance import check_scenario
from table.events import ScenarioError
from table.profiles import ProfileError, list_profiles, load_profile
from table.scenario import load_scenario, run_scenario


def register(subparsers: Any) -> None:
    """Add this group's commands to the top-level parser."""
    replay = subparsers.add_parser(
        "replay", help="run a table-scenario/1 file through the table and print the result"
    )
    replay.add_argument("file", type=Path, help="scenario file (JSON)")
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
        result = run_scenario(load_scenario(args.file))
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(_dump(result))
        return 0
    for index, rnd in enumerate(result["rounds"], start=1):
        net = ", ".join(f"{key} {value:+d}" for key, value in rnd["net"].items())
        flags = ", ".join(rnd["flags"]) or "no flags"
        print(f"round {index}: {rnd['status']}; dealer {' '.join(rnd['dealer'])}; {flags}; {net}")
        for refused in rnd["refused"]:
            print(f"  refused at {refused['position']}: {refused['reason']}")
    return 0


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
