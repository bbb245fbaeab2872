"""The commands: `python -m hwsim shoe` in another process, read by
`tablectl shoe monitor`; `tablectl sim shoe` option errors."""

from __future__ import annotations

import gc
import json
import logging
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hwsim.shoe import shuffled_shoe
from hwsim.shoe.text_scanner import scanner_lines

from tablectl.cli import build_parser, main
from tablectl.commands.shoe import sim_subparsers


def start_sim(tmp_path: Path, *options: str) -> tuple[subprocess.Popen[str], str]:
    link = tmp_path / "usb-Virtual_Shoe-if00"
    process = subprocess.Popen(
        [sys.executable, "-m", "hwsim", "shoe", "--link", str(link), "--seconds", "20",
         *options],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert process.stdout is not None
    path = process.stdout.readline().strip()
    assert path == str(link)
    return process, path


def stop_sim(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=10)
    assert process.returncode == 0, err
    return err


def test_monitor_prints_each_card_of_the_virtual_shoe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    process, path = start_sim(tmp_path, "--rate", "0", "--seed", "3", "--faults", "drop=0.05")
    try:
        assert main(["shoe", "monitor", "--port", path, "--count", "30"]) == 0
    finally:
        sim_log = stop_sim(process)
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0] == {"seq": 1, "shoe": "loaded"}
    cards = lines[1:]
    assert [c["card"] for c in cards] == shuffled_shoe(6, seed=3)[:30]
    assert [c["index"] for c in cards] == list(range(1, 31))
    assert "link statistics:" in err and "crc_errors" in err and "reconnects" in err
    summary = json.loads(sim_log.strip().splitlines()[-1])
    assert summary["acked_seq"] == 31  # acknowledged after printing, nothing more
    assert summary["faults"]["drop"] > 0


def test_monitor_reads_a_text_scanner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stack = tmp_path / "stack.txt"
    stack.write_text("AS 10H QD\n" * 200, encoding="utf-8")
    # The scanner waits for the monitor to open the port, so the monitor reads
    # the lines of this seed from the very first: which ones are garbage is known.
    process, path = start_sim(tmp_path, "--text", "--stacked", str(stack), "--rate", "200",
                              "--garbage", "0.2", "--seed", "1", "--wait-for-host")
    try:
        assert main(["shoe", "monitor", "--port", path, "--driver", "text", "--count", "12"]) == 0
    finally:
        stop_sim(process)
    out, err = capsys.readouterr()
    cards = [json.loads(line) for line in out.splitlines()]
    assert cards == [{"number": n, "card": card}
                     for n, card in enumerate(["AS", "TH", "QD"] * 4, start=1)]
    sent = list(scanner_lines(["AS", "TH", "QD"] * 4, 0.2, 1))
    garbage = [line.strip() for _, lines in sent for line in lines[:-1]]
    assert garbage, "this seed sends garbage among the first twelve cards"
    rejected = [line for line in err.splitlines() if line.startswith("rejected line")]
    assert len(rejected) == len(garbage)
    for note, text in zip(rejected, garbage, strict=True):
        assert repr(text) in note
    assert "best-effort" in err
    # The monitor quiets the driver's warnings only while it runs.
    assert logging.getLogger("firmware_bridge.text_scanner").level == logging.NOTSET


def test_a_bad_stacked_file_is_refused_with_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = tmp_path / "stack.txt"
    stack.write_text("AS KD\nXX\n", encoding="utf-8")
    assert main(["sim", "shoe", "--stacked", str(stack)]) == 2
    assert f"{stack}:2: unknown card 'XX'" in capsys.readouterr().err


def test_a_bad_fault_spec_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["sim", "shoe", "--faults", "nois=0.1"])
    assert exit_info.value.code == 2
    assert "NAME one of" in capsys.readouterr().err


def test_monitor_needs_a_port(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["shoe", "monitor"])
    assert "--port" in capsys.readouterr().err


def test_the_sim_group_is_shared_by_later_simulators() -> None:
    parser = build_parser()
    top = next(a for a in parser._subparsers._group_actions)  # type: ignore[union-attr]
    group = sim_subparsers(top)
    assert sim_subparsers(top) is group
    group.add_parser("camera")
    assert parser.parse_args(["sim", "camera"]).sim_command == "camera"
    assert parser.parse_args(["sim", "shoe", "--decks", "8"]).decks == 8


def test_every_parser_gets_its_own_sim_group() -> None:
    """Parsers built one after another (as every `main()` call in the tests
    does) each register `sim shoe` afresh; freed parsers' memory is reused, so
    a group remembered by `id()` would collide within a few rounds."""
    for _ in range(50):
        parser = build_parser()
        assert parser.parse_args(["sim", "shoe"]).sim_command == "shoe"
        del parser
        gc.collect()
