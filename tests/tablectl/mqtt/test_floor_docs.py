"""The two commands of docs/floor.md's "Try it on one machine", as written there but
for the ports and folder (free ones, the test's) and the broker (started by the test
as the first command would): two simulated tables and the floor, each table's pit
display showing the floor."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from tests.tablectl.helpers import OutputLines, wait_on_clock, wait_process_gone
from tests.tablectl.http_calls import call, login_cookie
from tests.tablectl.mqtt.broker import Mosquitto, free_ports

DOCS = Path(__file__).resolve().parents[3] / "docs" / "floor.md"


def _commands() -> list[str]:
    text = DOCS.read_text()
    block = text[text.index("## Try it on one machine"):]
    found = re.search(r"```sh\n(.*?)```", block, re.S)
    assert found is not None
    return found.group(1).strip().splitlines()


def _localize(command: str, broker: Mosquitto, folder: Path, ports: dict[str, int]) -> str:
    broker_start = "mosquitto -d -p 1883 && "
    assert command.startswith((".venv/bin/tablectl", broker_start)), command
    command = command.removeprefix(broker_start)  # the test's broker instead
    command = command.replace(".venv/bin/tablectl", f"{sys.executable} -m tablectl")
    command = command.replace("var/", f"{folder}/").replace("1883", str(broker.port))
    command = command.replace("876$t", "${API[$t]}").replace("8770", str(ports["floor"]))
    return command


def test_the_try_it_commands_show_two_tables_on_the_floor_and_their_displays(
        broker: Mosquitto, tmp_path: Path) -> None:
    tables_command, floor_command = _commands()
    ports = dict(zip(("floor", "1", "2"), free_ports(3), strict=True))
    folder = tmp_path / "var"
    folder.mkdir()
    started = subprocess.run(
        ["bash", "-c", f"API=([1]={ports['1']} [2]={ports['2']}); "
         + _localize(tables_command, broker, folder, ports).replace("& done",
                                                                    "& echo $!; done")],
        capture_output=True, text=True, check=True, timeout=30)
    tables = [int(pid) for pid in started.stdout.split()]
    assert len(tables) == 2
    floor_line = _localize(floor_command, broker, folder, ports) + " --every 1"
    floor = subprocess.Popen(["bash", "-c", "exec " + floor_line], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)
    assert floor.stdout is not None
    output = OutputLines(floor.stdout, copy_to=tmp_path / "floor.out")

    def seen() -> str:
        return "".join(output.lines)

    try:
        output.wait_until(lambda: re.search(r"^bj-1 +online", seen(), re.M)
                          and re.search(r"^bj-2 +online", seen(), re.M),
                          "both tables on the floor", 90)
        for table in ("1", "2"):  # each table its folder, its users file, its pit login
            log = (folder / f"bj-{table}.log").read_text()
            login = re.search(r"user (\S+), password (\S+)", log)
            assert login is not None, log
            address = ("127.0.0.1", ports[table])
            cookie = login_cookie(address, login.group(1), login.group(2))
            # The table's display asks the floor's web page on its own: nothing tells
            # this process when it has.
            wait_on_clock(lambda a=address, c=cookie: call(
                a, "GET", "/display/floor", headers={"Cookie": c}).body.get("floor") is not None,
                f"bj-{table}'s display showing the floor", 30)
            shown = call(address, "GET", "/display/floor", headers={"Cookie": cookie})
            status, answer = shown.status, shown.body
            assert status == 200 and answer["table"] == f"bj-{table}"
            assert {row["table"] for row in answer["floor"]["tables"]} == {"bj-1", "bj-2"}
    finally:
        floor.send_signal(signal.SIGINT)
        assert floor.wait(30) == 0
        for pid in tables:
            os.kill(pid, signal.SIGTERM)
        for pid in tables:
            wait_process_gone(pid, f"table process {pid} to stop", 30)
        output.join(10)
    assert "floor stopped:" in seen()
