"""Every `tablectl` command, as a new user meets it: --help, a missing argument,
a junk option or value, an interrupted run, a closed output. Each ends with a
message in words (one line, details indented below it) and exit status 0 (help,
a clean stop), 2 (usage) or 1 (failure); never a traceback."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from journal import Journal
from tablectl.cli import build_parser, main
from tests.tablectl.helpers import OutputLines, signal_when

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "cases" / "data"


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[
        tuple[str, ...]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name)
                yield from _commands(sub, (*path, name))


COMMANDS = sorted(_commands(build_parser()))


def message_lines(err: str) -> list[str]:
    """The lines of a message that are not argparse's usage or indented details."""
    return [line for line in err.splitlines()
            if line.strip() and not line.startswith(("usage:", " ", "\t"))]


def outcome(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse: --help, usage errors
        code = stop.code if isinstance(stop.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_every_command_is_walked() -> None:
    # The walk finds the commands the parser has, so a new one is walked too.
    assert {("replay",), ("journal", "export"), ("run",), ("hil",), ("vision", "preview"),
            ("panel", "test"), ("shoe", "monitor"), ("sim", "shoe")} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_and_a_junk_option(command: tuple[str, ...],
                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = outcome(capsys, [*command, "--help"])
    assert code == 0 and out.startswith("usage: tablectl " + " ".join(command)), err
    code, out, err = outcome(capsys, [*command, "--no-such-option"])
    assert code == 2 and "Traceback" not in err
    # The junk option, or a required argument missing before it, in one line.
    lines = message_lines(err)
    assert len(lines) == 1 and lines[0].startswith(f"tablectl {' '.join(command)}: error: "), err


# Missing arguments and junk values; the status is the one a user should get.
BAD_INPUT = [
    (["replay"], 2),
    (["replay", "{missing}"], 2),
    (["replay", "{junk}"], 2),
    (["conformance"], 2),
    (["conformance", "{missing}"], 2),
    (["profiles", "show"], 2),
    (["profiles", "show", "atlantis"], 2),
    (["journal", "rounds", "--journal", "{missing}"], 2),
    (["journal", "rounds", "--journal", "{junk}"], 2),
    (["journal", "show"], 2),
    (["journal", "show", "x", "--journal", "{missing}"], 2),
    (["journal", "export", "--format", "xml"], 2),
    (["run"], 2),
    (["run", "--config", "{missing}"], 2),
    (["run", "--config", "{junk}", "--check"], 2),
    (["run", "--sim", "--boxes", "9"], 2),
    (["run", "--sim", "--check", "--profile", "atlantis"], 2),
    (["run", "--config", "{junk}", "--rounds", "3"], 2),
    (["hil"], 2),
    (["hil", "{missing}"], 1),
    (["hil", "{junk}"], 1),
    (["shoe", "monitor"], 2),
    (["sim", "shoe", "--faults", "junk"], 2),
    (["panel", "test", "--config", "{junk}"], 2),
    (["panel", "test", "--step-ms", "x"], 2),
    (["vision", "detect"], 2),
    (["vision", "preview", "{junk}", "--out", "{tmp}/x.png"], 1),
    (["rtp"], 2),
    (["rtp", "atlantis"], 2),
    (["strategy", "atlantis"], 2),
]


@pytest.mark.parametrize(("argv", "status"), BAD_INPUT, ids=lambda v: " ".join(v)
                         if isinstance(v, list) else str(v))
def test_missing_and_junk_arguments_give_a_message_and_a_status(
        argv: list[str], status: int, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.json"
    junk.write_text("junk\n", encoding="utf-8")
    names = {"missing": str(tmp_path / "missing.json"), "junk": str(junk),
             "tmp": str(tmp_path)}
    code, out, err = outcome(capsys, [arg.format(**names) for arg in argv])
    assert "Traceback" not in err + out
    assert code == status, (code, out, err)
    lines = message_lines(err) or message_lines(out)
    assert len(lines) >= 1, (out, err)
    if err:
        assert len(message_lines(err)) == 1, err


def test_an_unexpected_error_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    import tablectl.commands.rules as rules

    def broken(name: str) -> None:
        raise RuntimeError("a library's message\nover two lines\n")

    monkeypatch.setattr(rules, "load_profile", broken)
    code, _, err = outcome(capsys, ["profiles", "show", "casinos-austria"])
    assert code == 1 and err.splitlines() == [
        "tablectl profiles show: unexpected error: RuntimeError: a library's message over "
        "two lines (--verbose shows where)"]


def test_version() -> None:
    result = subprocess.run([sys.executable, "-m", "tablectl", "--version"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.startswith("tablectl ")


def test_library_warnings_only_with_verbose(tmp_path: Path) -> None:
    # Off a Pi, gpiozero warns once for every pin library it tries before it gives up.
    config = tmp_path / "table.toml"
    config.write_text('[shoe]\nport = "loop://"\n[journal]\npath = "j.sqlite"\n'
                      "[api]\nenabled = false\n", encoding="utf-8")
    command = [sys.executable, "-m", "tablectl", "run", "--config", str(config)]
    env = {key: value for key, value in os.environ.items() if key != "GPIOZERO_PIN_FACTORY"}
    quiet = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path,
                           env=env)
    if quiet.returncode == 0:
        pytest.skip("this machine drives GPIO pins")
    assert "Warning" not in quiet.stderr, quiet.stderr
    assert quiet.returncode == 2
    assert message_lines(quiet.stderr) == [
        line for line in quiet.stderr.splitlines() if "cannot start" in line], quiet.stderr
    verbose = subprocess.run(command[:3] + ["--verbose"] + command[3:], capture_output=True,
                             text=True, timeout=60, cwd=tmp_path, env=env)
    assert "PinFactoryFallback" in verbose.stderr


# -- interrupted runs ---------------------------------------------------------------------


def _run_until(argv: list[str], ready: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Start a command, wait for a line holding `ready` on stdout, then send SIGINT."""
    process = subprocess.Popen([sys.executable, "-m", "tablectl", *argv], cwd=cwd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return signal_when(process, lambda lines: any(ready in line for line in lines),
                       f"a line with {ready!r}", signal.SIGINT)


@pytest.mark.parametrize(("argv", "ready", "status"), [
    # Ctrl-C is how these are meant to stop: a clean stop, status 0.
    (["run", "--sim", "--view", "rounds", "--journal", "sim.sqlite"], "round 1 ", 0),
    (["sim", "shoe"], "/shoe", 0),
    # hil is not: interrupted is a failure, said in one line.
    (["hil", str(CASES)], "", 1),
])
def test_sigint_stops_with_a_message_never_a_traceback(
        argv: list[str], ready: str, status: int, tmp_path: Path) -> None:
    if argv[0] == "hil":  # its first line comes when a case is done: wait for the start
        ready = "pass" if any(CASES.glob("*.json")) else ""
    result = _run_until(argv, ready, tmp_path)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == status, (result.returncode, result.stderr)
    if status == 1:
        assert message_lines(result.stderr)[-1] == f"tablectl {argv[0]}: interrupted"


@pytest.mark.parametrize("argv", [
    ["profiles"],
    ["replay", "{scenario}", "--json"],
    ["conformance", str(CASES)],
    ["journal", "rounds", "--journal", "{journal}"],
])
def test_a_closed_output_ends_with_a_message(argv: list[str], tmp_path: Path) -> None:
    events = [{"bet": {"box": 1, "amount": 10}}, {"deal": {}}, {"card": "TS"}, {"card": "7H"},
              {"card": "9C"}, {"do": {"box": 1, "action": "stand"}}, {"card": "KS"}]
    scenario = tmp_path / "case.json"
    scenario.write_text(json.dumps({"profile": "casinos-austria",
                                    "rounds": [{"events": events}]}), encoding="utf-8")
    journal = tmp_path / "journal.sqlite"
    Journal(journal, profile="casinos-austria").close()
    argv = [arg.format(scenario=scenario, journal=journal) for arg in argv]
    # The reader is gone before anything is written, as `tablectl ... | head -0` would be.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run([sys.executable, "-m", "tablectl", *argv], cwd=tmp_path,
                                stdout=write_end, stderr=subprocess.PIPE, text=True,
                                timeout=120)
    finally:
        os.close(write_end)
    err = result.stderr
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert result.returncode == 1, err
    assert message_lines(err) == [
        f"tablectl {' '.join(argv[:2] if argv[0] == 'journal' else argv[:1])}: the output "
        "was closed before everything was written"], err


def _where_it_is(pid: int) -> str:
    """What the kernel says a process is doing: its state, threads, and where each
    thread waits (for a failure message)."""
    proc = Path(f"/proc/{pid}")
    try:
        status = dict(line.split(":\t", 1) for line in
                      (proc / "status").read_text().splitlines() if ":\t" in line)
        waits = [(task / "wchan").read_text() for task in sorted((proc / "task").iterdir())]
    except OSError as error:
        return f"no /proc view ({error})"
    return (f"state {status.get('State', '?')}, {status.get('Threads', '?')} threads "
            f"waiting in {waits}, signals blocked {status.get('SigBlk', '?')} "
            f"ignored {status.get('SigIgn', '?')} caught {status.get('SigCgt', '?')}; "
            f"main thread: {_python_stack(pid)}")


def _python_stack(pid: int) -> str:
    """The Python stack of a process's main thread, as gdb (where installed) reads it."""
    if shutil.which("gdb") is None:
        return "no gdb to read its stack"
    try:
        done = subprocess.run(["gdb", "-p", str(pid), "-batch", "-iex", "set auto-load safe-path /",
                               "-ex", "thread 1", "-ex", "bt 8", "-ex", "py-bt"],
                              capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "gdb did not answer"
    return done.stdout[-3000:]


def test_the_simulators_camera_stops_on_sigint_in_one_line(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "hwsim", "camera", "scenes", "--out", str(tmp_path / "scenes"),
         "--n", "100000"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    assert process.stdout is not None and process.stderr is not None
    # Both pipes are read all along: a full pipe would stop the process.
    errors = OutputLines(process.stderr)
    try:
        # Well under way once it says it wrote 20 scenes (it says so after the first too).
        OutputLines(process.stdout).wait_for_line(lambda line: line.startswith("20/"),
                                                  "20 scenes written", 120)
        process.send_signal(signal.SIGINT)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running 60 s after SIGINT; {_where_it_is(process.pid)}; "
                        f"errors: {''.join(errors.lines)[-1000:]}")
        errors.wait_until(lambda: errors.ended, "the end of its errors", 10)
        err = "".join(errors.lines)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert "Traceback" not in err, err
    assert process.returncode == 1
    assert message_lines(err)[-1] == "python -m hwsim camera: interrupted", err
