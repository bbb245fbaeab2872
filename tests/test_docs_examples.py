"""The examples in README.md and docs/ do what the text says: every scenario
example passes its own `expect`, every `tablectl` command line written there
is one the command line accepts, and the README's first steps run as shown."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from table.conformance import check_scenario
from table.scenario import validate_scenario
from tablectl.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def blocks(kinds: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    for page in PAGES:
        for kind, body in BLOCK.findall(page.read_text(encoding="utf-8")):
            if kind in kinds:
                yield page.relative_to(ROOT).as_posix(), body


def scenario_examples() -> list[tuple[str, dict[str, object]]]:
    found = []
    for page, body in blocks(("json",)):
        try:
            doc = json.loads(body)
        except json.JSONDecodeError:
            continue  # a fragment, not a whole document
        if isinstance(doc, dict) and "rounds" in doc and "profile" in doc:
            found.append((page, doc))
    return found


SCENARIOS = scenario_examples()


def test_the_scenario_format_page_has_its_example() -> None:
    assert any(page == "docs/scenario-format.md" for page, _ in SCENARIOS)


@pytest.mark.parametrize(("page", "doc"), SCENARIOS, ids=[page for page, _ in SCENARIOS])
def test_a_scenario_example_gives_what_its_expect_says(page: str, doc: dict[str, object]) -> None:
    validate_scenario(doc)
    rounds = doc["rounds"]
    assert isinstance(rounds, list) and all("expect" in rnd for rnd in rounds), page
    assert check_scenario(doc) == [], page


def command_lines() -> list[tuple[str, str]]:
    """Each `tablectl ...` invocation in a shell block, without what follows it on
    the line (a comment, a pipe, the next command of a `&&` chain)."""
    found = []
    for page, body in blocks(("sh", "bash", "console")):
        for line in body.splitlines():
            lexer = shlex.shlex(line, posix=True, punctuation_chars="&|;<>")
            lexer.commenters = "#"
            lexer.whitespace_split = True
            try:
                tokens = list(lexer)
            except ValueError:
                continue  # not a whole shell line
            part: list[str] = []
            for token in [*tokens, ";"]:
                if token not in ("&&", "||", "|", ";", "&", ">", "<", ">>"):
                    part.append(token)
                    continue
                for at, word in enumerate(part):
                    # The program: a path to it, or its name in the command's place
                    # (after VAR=value settings), not a user or group named tablectl.
                    if word.endswith("/bin/tablectl") or (word == "tablectl" and all(
                            re.match(r"^\w+=", before) for before in part[:at])):
                        found.append((page, shlex.join(part[at + 1:])))
                        break
                part = [] if token != ">" else ["<redirected>"]
    return found


COMMANDS = command_lines()


def test_commands_are_found_in_the_readme_and_the_manual() -> None:
    pages = {page for page, _ in COMMANDS}
    assert {"README.md", "docs/journal.md", "docs/panel.md"} <= pages, pages


@pytest.mark.parametrize(("page", "command"), COMMANDS,
                         ids=[f"{page}: {command}" for page, command in COMMANDS])
def test_every_documented_command_line_is_accepted(page: str, command: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # A shell variable of the example (`for t in 1 2; do ... --seed $t`) as a value.
    argv = [re.sub(r"\$\{?\w+\}?", "1", word) for word in shlex.split(command)]
    if argv in (["--help"], ["--version"]) or "--help" in argv:
        return
    try:
        build_parser().parse_args(argv)
    except SystemExit as stop:
        pytest.fail(f"{page}: `tablectl {command}` is refused: {capsys.readouterr().err}"
                    f" (exit {stop.code})")


def readme_steps() -> list[list[str]]:
    """The commands of the README's first steps after the two set-up commands."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    steps = []
    for _, body in BLOCK.findall(text)[:2]:
        for line in body.splitlines():
            if line.startswith(".venv/bin/tablectl"):
                for part in line.split("&&"):
                    steps.append(shlex.split(part)[1:])
    return steps


def test_the_readme_first_steps_run_as_shown(tmp_path: Path) -> None:
    steps = readme_steps()
    assert [step[:2] for step in steps] == [
        ["run", "--sim"], ["journal", "rounds"], ["journal", "show"], ["journal", "export"],
        ["replay", "rounds.json"]]
    outputs = []
    for step in steps:
        result = subprocess.run([sys.executable, "-m", "tablectl", *step], cwd=tmp_path,
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, (step, result.stderr)
        outputs.append(result)
    rounds = int(steps[0][steps[0].index("--rounds") + 1])
    # Watch: every round is shown, then the summary names the journal.
    assert outputs[0].stdout.splitlines()[-1] == (
        f"{rounds} rounds played; journal var/sim-journal.sqlite")
    # Read: the journal commands find the simulated table's journal, every round recorded.
    assert outputs[1].stdout.startswith(
        f"var/sim-journal.sqlite: profile casinos-austria, {rounds} round(s) recorded")
    assert "reading var/sim-journal.sqlite" in outputs[1].stderr
    assert outputs[2].stdout.startswith("round 1: ")
    # Replay: each round played again gives its recorded result.
    assert f"rounds.json: {rounds} round(s) as expected" in outputs[4].stderr
