"""A shoe that never speaks after the daemon starts, dead (its port cannot be
opened) or silent (the port opens, no frame comes), is reported offline once
its timeout has passed: /state and /health say so, the alarm and shoe-fault
lamps are lit; once the shoe speaks the table is well again."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hwsim.panel import MockPanel
from hwsim.shoe import ShoeTiming, VirtualShoe

from tablectl.config import ApiConfig, parse_config
from tablectl.daemon import Daemon
from tablectl.devices import Devices
from tests.tablectl.helpers import Signal
from tests.tablectl.http_calls import call

PIN_MAP: dict[str, Any] = {
    "pwm": True,
    "boxes": {str(box): {"rgb": [3 * box - 3, 3 * box - 2, 3 * box - 1]} for box in range(1, 8)},
    "lamps": {"draw": 21, "stand": 22, "alarm": 23, "shoe_fault": 24},
}
# The link's timeout (3 s) plus the longest reopening back-off (2 s), and a margin.
OFFLINE_WITHIN_S = 10.0


class Table:
    def __init__(self, folder: Path, port: str) -> None:
        config = parse_config({
            "table": {"profile": "casinos-austria"},
            "shoe": {"driver": "shoelink", "port": port},
            "journal": {"path": str(folder / "journal.sqlite")},
            "panel": PIN_MAP,
        }, "<test>")
        self.mock = MockPanel(PIN_MAP)
        self.daemon = Daemon(replace(config, api=ApiConfig(enabled=True, host="127.0.0.1",
                                                           port=0)),
                             Devices(panel=self.mock.panel))
        self.daemon.open()
        assert self.daemon.service is not None
        # Woken after each batch the table's loop applied: the shoe's link state comes
        # that way, and the lamps are lit before it wakes.
        self.changed = Signal()
        self.daemon.service.on_change(self.changed.notify)
        self.thread = self.daemon.run_in_thread()

    def get(self, path: str) -> tuple[int, dict[str, Any]]:
        assert self.daemon.api is not None
        answer = call(self.daemon.api.address, "GET", path)
        return answer.status, answer.body

    def close(self) -> None:
        self.daemon.close()
        self.thread.join(5.0)
        self.mock.close()


@pytest.fixture
def tables() -> Iterator[list[Table]]:
    made: list[Table] = []
    yield made
    for table in made:
        table.close()


def _assert_offline(table: Table) -> None:
    table.changed.wait_until(lambda: table.get("/health")[0] == 503, "/health 503",
                             OFFLINE_WITHIN_S)
    status, health = table.get("/health")
    assert health["ok"] is False and "the shoe is offline" in health["reason"]
    assert "since start" in health["reason"]
    assert table.get("/state")[1]["shoe_online"] is False
    table.changed.wait_until(lambda: table.mock.lamp("alarm") and table.mock.lamp("shoe_fault"),
                             "the alarm and shoe-fault lamps")


def test_a_dead_shoe_is_offline_from_boot(tmp_path: Path, tables: list[Table]) -> None:
    table = Table(tmp_path, str(tmp_path / "no-such-port"))
    tables.append(table)
    _assert_offline(table)
    assert "cannot open" in table.get("/health")[1]["reason"]


def test_a_silent_shoe_is_offline_from_boot_until_it_speaks(
        tmp_path: Path, tables: list[Table]) -> None:
    master, slave = os.openpty()  # a port that opens, where nothing ever speaks
    try:
        table = Table(tmp_path, os.ttyname(slave))
        tables.append(table)
        _assert_offline(table)
    finally:
        table.close()
        tables.clear()
        os.close(master)
        os.close(slave)
    # The same journal, now with a shoe that speaks: online, 200, lamps out.
    shoe = VirtualShoe(["2S"], dealer_paced=True, link_path=tmp_path / "shoe",
                       timing=ShoeTiming(heartbeat_interval_s=0.05), seed=1)
    shoe.start()
    try:
        table = Table(tmp_path, str(tmp_path / "shoe"))
        tables.append(table)
        table.changed.wait_until(lambda: table.get("/health")[0] == 200, "/health 200",
                                 OFFLINE_WITHIN_S)
        table.changed.wait_until(
            lambda: not table.mock.lamp("alarm") and not table.mock.lamp("shoe_fault"),
            "the lamps out")
    finally:
        for table in tables:
            table.close()
        tables.clear()
        shoe.stop()
