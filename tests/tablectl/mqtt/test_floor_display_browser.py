"""The floor on a table's pit display, in a real browser (headless Chromium through
Selenium): two tables publish to a real Mosquitto, the floor stores them and serves its
page, and the pit display of a table shows every table of the floor beside its own:
status, profile, round, the shift's net, flags. A table that stops shows offline; a
floor that goes away is said on the display, which keeps its last picture.
(TABLECTL_SCREENSHOTS: docs/display-floor.png was made so.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablectl.mqtt.floor import Floor, open_floor
from tablectl.mqtt.floor_panel import FloorPanel
from tablectl.mqtt.floor_store import FloorStore
from tablectl.mqtt.floor_view import parse_shifts
from tablectl.mqtt.floor_web import FloorWeb, floor_json
from tablectl.mqtt.publisher import Publisher
from tablectl.mqtt.settings import from_options, parse_url
from tests.tablectl.http_calls import call, login_cookie
from tests.tablectl.mqtt.broker import Mosquitto
from tests.tablectl.mqtt.helpers import make_journal
from tests.tablectl.test_display_browser import (
    CHROMIUM,
    DRIVER,
    PIT,
    Table_,
    _log_in,
    _shoot,
    _text,
    _wait,
    browser,
    table,
)

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="needs Debian's chromium and chromium-driver (sh tools/install-test-deps.sh)")

__all__ = ["browser", "table"]  # the fixtures, used by name
SHIFTS = parse_shifts("00:00")  # one shift a day: every round of the test is in it


class FloorRig:
    """Two tables publishing, the floor storing them and serving its page."""

    def __init__(self, broker: Mosquitto, folder: Path) -> None:
        # bj-1's players win 20, lose 10, win 5: the house is 15 down. bj-2's win 10
        # twice: the house 20 down. The floor: the house 35 down.
        self.journals = {"bj-1": make_journal(folder / "bj-1.sqlite", 3, nets=[20, -10, 5]),
                         "bj-2": make_journal(folder / "bj-2.sqlite", 2, nets=[10, 10])}
        self.publishers = {name: Publisher(from_options(broker.url, name), journal.path)
                           for name, journal in self.journals.items()}
        self.floor: Floor = open_floor(parse_url(broker.url), folder / "floor.sqlite")
        self.reader = FloorStore(folder / "floor.sqlite", read_only=True)
        self.page: FloorWeb | None = FloorWeb(
            lambda: floor_json(self.floor, self.reader, SHIFTS), "127.0.0.1", 0)
        for publisher in self.publishers.values():
            publisher.start()

    def stop_page(self) -> None:
        if self.page is not None:
            self.page.stop()
            self.page = None

    def close(self) -> None:
        self.stop_page()
        for publisher in self.publishers.values():
            publisher.stop()
        self.floor.stop()
        self.reader.close()
        self.floor.store.close()
        for journal in self.journals.values():
            journal.close()


@pytest.fixture
def floor(broker: Mosquitto, tmp_path: Path) -> Iterator[FloorRig]:
    folder = tmp_path / "floor"
    folder.mkdir()
    rig = FloorRig(broker, folder)
    try:
        yield rig
    finally:
        rig.close()


def _cells(driver: Any, table_id: str) -> list[str]:
    rows = driver.find_elements(By.ID, f"floor-{table_id}")
    try:
        return [cell.text for cell in rows[0].find_elements(By.TAG_NAME, "td")] if rows else []
    except Exception:  # redrawn between finding the row and reading it
        return []


def test_the_pit_display_shows_the_floor(table: Table_, floor: FloorRig, browser: Any) -> None:
    assert floor.page is not None
    table.server.display.floor = FloorPanel(floor.page.url, "bj-1")
    _log_in(browser, table.server.url, PIT)
    _wait(browser, lambda d: d.find_element(By.ID, "floor").is_displayed(), "the floor")
    # Once the floor has stored every round: each table's line, as the floor has it.
    _wait(browser, lambda d: _cells(d, "bj-1")[:7] == [
        "bj-1", "online", "casinos-austria", "3", "–", "-15", "3"], "bj-1 on the floor")
    _wait(browser, lambda d: _cells(d, "bj-2")[:7] == [
        "bj-2", "online", "casinos-austria", "2", "–", "-20", "2"], "bj-2 on the floor")
    assert _text(browser, "floor-house") == "-35"
    assert "this-table" in (browser.find_element(By.ID, "floor-bj-1").get_attribute("class")
                            or "")
    assert "this-table" not in (browser.find_element(By.ID, "floor-bj-2").get_attribute(
        "class") or "")
    assert "shift since" in _text(browser, "floor-head")
    assert _text(browser, "floor-error") == ""
    _shoot(browser, "floor")

    # bj-2 stops: it says so on the broker, and the display shows it offline.
    floor.publishers["bj-2"].stop()
    _wait(browser, lambda d: _cells(d, "bj-2")[1:2] == ["offline"], "bj-2 offline")

    # The floor's page goes away: the display says so and keeps the last picture.
    floor.stop_page()
    _wait(browser, lambda d: "does not answer" in _text(d, "floor-error"), "the floor away")
    assert _cells(browser, "bj-1")[:2] == ["bj-1", "online"]


def _get(table: Table_, path: str, cookie: str | None = None) -> tuple[int, dict[str, Any]]:
    answer = call(table.server.address, "GET", path, headers={"Cookie": cookie} if cookie else {})
    return answer.status, answer.body


def test_the_floor_route_needs_a_login_and_a_floor(table: Table_, tmp_path: Path) -> None:
    assert _get(table, "/display/floor")[0] == 401
    cookie = login_cookie(table.server.address, *PIT)
    status, answer = _get(table, "/display/floor", cookie)
    assert status == 404 and "shows no floor" in answer["error"]
    # Where nothing is a floor: said on the display, nothing shown.
    table.server.display.floor = FloorPanel(table.server.url + "/health", "bj-1")
    status, answer = _get(table, "/display/floor", cookie)
    assert status == 200 and answer["floor"] is None
    assert answer["error"].startswith(f"the floor at {table.server.url}/health/floor.json "
                                      "does not answer (it answered HTTP 4")
    other = FloorWeb(lambda: {"tables": "none"}, "127.0.0.1", 0)
    try:
        table.server.display.floor = FloorPanel(other.url, "bj-1")
        status, answer = _get(table, "/display/floor", cookie)
    finally:
        other.stop()
    assert status == 200 and answer["floor"] is None
    assert answer["error"] == f"{other.url}floor.json is not a floor's page (tablectl floor --http)"
