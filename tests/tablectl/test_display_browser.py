"""The pit display in a real browser (headless Chromium through Selenium): a pit boss
logs in, watches a round (DRAW, then STAND), a misdeal is held, a dealer's login
cannot resolve it, the pit voids it and finds the void on the round's audit page.

The round is dealt through the local API with a device's and a dealer's tokens,
as terminals and the dealer's console would. Set TABLECTL_SCREENSHOTS to a folder
to keep screenshots of the display (docs/display-*.png were made so).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import (
    NoSuchElementException,
    StaleElementReferenceException,
)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from journal import Journal
from table.machine import Table
from table.profiles import load_profile
from tablectl.api import ApiServer, CameraStatus, Relearn
from tablectl.auth import Authenticator, UsersFile
from tablectl.service import TableService
from tests.tablectl.browser_wait import wait_in_page
from tests.tablectl.http_calls import bearer, call

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="needs Debian's chromium and chromium-driver (sh tools/install-test-deps.sh)")

WAIT_S = 20.0
PIT = ("anna", "green felt 7")
DEALER = ("bob", "shuffle up 9")


class Table_:
    """A table behind its API, and the tokens of a betting terminal and the dealer."""

    def __init__(self, folder: Path, camera: CameraStatus | None = None,
                 relearn: Relearn | None = None) -> None:
        self.users = UsersFile(folder / "users.json")
        self.users.add_person(PIT[0], "pit", PIT[1])
        self.users.add_person(DEALER[0], "dealer", DEALER[1])
        self.journal = Journal(folder / "journal.sqlite", profile="casinos-austria")
        self.service = TableService(Table(load_profile("casinos-austria")), self.journal)
        self.loop = threading.Thread(target=self.service.run, daemon=True)
        self.loop.start()
        self.server = ApiServer(self.service, "127.0.0.1", 0,
                                camera=camera if camera is not None else (lambda: None),
                                auth=Authenticator(self.users), relearn=relearn)
        self.server.start()
        self.terminal = self.users.add_device("terminal-1")
        self.console = self.server.auth.issue_token("console", "dealer")
        self.sent = 0

    def send(self, event: dict[str, Any], token: str | None = None) -> dict[str, Any]:
        self.sent += 1
        answer = call(self.server.address, "POST", "/events",
                      {"event": event, "id": f"t:{self.sent}"}, bearer(token or self.terminal))
        assert answer.status == 200 and answer.body["accepted"], (event, answer)
        body: dict[str, Any] = answer.body
        return body

    def close(self) -> None:
        self.server.stop()
        self.service.stop()
        self.loop.join(5.0)
        self.journal.close()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table_]:
    rig = Table_(tmp_path)
    try:
        yield rig
    finally:
        rig.close()


@pytest.fixture
def browser() -> Iterator[Any]:
    profile = tempfile.mkdtemp(prefix="tablectl-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--window-size=1280,1000", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=str(DRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _wait(driver: Any, condition: Any, what: str) -> Any:
    """Woken by the page's own changes (`browser_wait`)."""
    return wait_in_page(driver, condition, what, WAIT_S)


def _text(driver: Any, element_id: str) -> str:
    """The element's text; "" while it is not there (the page redraws boxes and lists
    whole, so an element found a moment ago may be gone)."""
    try:
        return str(driver.find_element(By.ID, element_id).text)
    except (NoSuchElementException, StaleElementReferenceException):
        return ""


def _log_in(driver: Any, base: str, user: tuple[str, str]) -> None:
    driver.get(base + "/")
    _wait(driver, lambda d: d.find_element(By.ID, "login-user").is_displayed(), "the login")
    driver.find_element(By.ID, "login-user").send_keys(user[0])
    driver.find_element(By.ID, "login-password").send_keys(user[1])
    driver.find_element(By.ID, "login-submit").click()
    _wait(driver, lambda d: _text(d, "status") == "live", "the live stream")


def _shoot(driver: Any, name: str) -> None:
    folder = os.environ.get("TABLECTL_SCREENSHOTS")
    if folder:
        driver.save_screenshot(str(Path(folder) / f"display-{name}.png"))


def test_the_pit_watches_a_round_and_voids_a_misdeal_a_dealer_cannot(
        table: Table_, browser: Any) -> None:
    base = table.server.url
    # A wrong password is refused on the page.
    browser.get(base + "/")
    _wait(browser, lambda d: d.find_element(By.ID, "login-user").is_displayed(), "the login")
    browser.find_element(By.ID, "login-user").send_keys(PIT[0])
    browser.find_element(By.ID, "login-password").send_keys("not the password")
    browser.find_element(By.ID, "login-submit").click()
    _wait(browser, lambda d: "wrong user or password" in _text(d, "login-error"), "refusal")

    _log_in(browser, base, PIT)
    # Round 1: box 1 stands on 19; the dealer shows a 6.
    for event in ({"bet": {"box": 1, "amount": 100}}, {"bet": {"box": 4, "amount": 50}},
                  {"deal": {}}, {"card": "TS"}, {"card": "8H"}, {"card": "6D"},
                  {"card": "9C"}, {"card": "9S"}):
        table.send(event)
    _wait(browser, lambda d: "Box 1" in _text(d, "box-1") and "TS" in _text(d, "box-1")
          and "turn" in _text(d, "box-1"), "box 1 up with its cards")
    table.send({"do": {"box": 1, "action": "stand"}})
    table.send({"do": {"box": 4, "action": "stand"}})
    # The dealer's 6 alone: he must draw.
    _wait(browser, lambda d: _text(d, "instruction") == "DRAW", "DRAW")
    assert _text(browser, "dealer-total") == "6"
    _shoot(browser, "draw")
    table.send({"card": "TD"})  # 16: he draws again
    _wait(browser, lambda d: _text(d, "dealer-total") == "16", "the dealer's 16")
    assert _text(browser, "instruction") == "DRAW"
    table.send({"card": "3C"})  # 19: he stands, the round settles
    _wait(browser, lambda d: _text(d, "instruction") == "STAND", "STAND")
    _wait(browser, lambda d: "push" in _text(d, "box-1") and "lost" in _text(d, "box-4"),
          "the results")
    # 19 against 19 pushes, 17 against 19 loses its 50.
    assert "net +0" in _text(browser, "box-1") and "net -50" in _text(browser, "box-4")
    assert "penetration" in _text(browser, "shoe") and "online" in _text(browser, "shoe")
    _shoot(browser, "settled")

    # Round 2: the dealer's console reports a card the shoe could not read.
    table.send({"bet": {"box": 2, "amount": 100}})
    _wait(browser, lambda d: _text(d, "round-1"), "round 1 in the list of rounds")
    assert "box1 +0" in _text(browser, "round-1") and "box4 -50" in _text(browser, "round-1")
    table.send({"deal": {}})
    table.send({"flag": "UNREADABLE_CARD"}, table.console)
    _wait(browser, lambda d: "UNREADABLE_CARD" in _text(d, "flag-list"), "the flag")
    assert "could not read" in _text(browser, "flag-list")
    _wait(browser, lambda d: d.find_elements(By.ID, "resolve-void"), "the pit's buttons")
    _shoot(browser, "misdeal")

    # A dealer's login sees the flag but has no button, and the API refuses him.
    browser.find_element(By.ID, "logout").click()
    _log_in(browser, base, DEALER)
    _wait(browser, lambda d: "Waiting for the pit" in _text(d, "pit-actions"), "no buttons")
    assert browser.find_elements(By.ID, "resolve-void") == []
    status = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const me = await (await fetch("/me")).json();
        const r = await fetch("/events", {method: "POST", headers: {"Content-Type":
          "application/json", "X-CSRF-Token": me.csrf},
          body: JSON.stringify({event: {resolve: "void"}, id: "bob:1"})});
        done(r.status);""")
    assert status == 403
    assert table.service.snapshot.due.halted

    # The pit voids the round from the display.
    browser.find_element(By.ID, "logout").click()
    _log_in(browser, base, PIT)
    _wait(browser, lambda d: d.find_elements(By.ID, "resolve-void"), "the pit's buttons")
    browser.find_element(By.ID, "resolve-void").click()
    _wait(browser, lambda d: "void" in _text(d, "phase"), "the round void")
    assert table.service.snapshot.view.phase == "void"

    # The audit page of round 2 names the pit's void, who and when.
    browser.get(base + "/#/round/2")
    _wait(browser, lambda d: "pit:anna" in _text(d, "audit-events"), "the audit page")
    rows = browser.find_elements(By.CSS_SELECTOR, "#audit-events tbody tr")
    # Round 2's events only: its bet, deal, the console's flag and the pit's void.
    assert [row.find_elements(By.TAG_NAME, "td")[3].text for row in rows] == [
        '{"bet":{"box":2,"amount":100}}', '{"deal":{}}', '{"flag":"UNREADABLE_CARD"}',
        '{"resolve":"void"}']
    pit_rows = [row for row in rows if "pit" in (row.get_attribute("class") or "")]
    assert len(pit_rows) == 1
    cells = [cell.text for cell in pit_rows[0].find_elements(By.TAG_NAME, "td")]
    assert cells[2].startswith("pit:anna") and cells[3] == '{"resolve":"void"}'
    assert cells[1][:4].isdigit()  # a date and time
    assert any("dealer:console" in row.text for row in rows)  # who raised the flag
    _shoot(browser, "audit")


def test_the_pit_sees_the_house_deck_learnt_and_starts_it_again(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, browser: Any) -> None:
    """A witness camera learning the house deck: the display shows how far it has got;
    a dealer has no button, the pit's button starts learning afresh."""
    from hwsim.camera.artwork import ArtworkDeck

    from tablectl.house_deck_learning import HouseDeckLearning
    from tests.vision.real_scenes import corpus_with, dealt_scene, index_corners
    from vision.recognizer import Recognizer

    deck = ArtworkDeck.named("aisleriot-simplistic",
                             corpus_with(tmp_path_factory, ["aisleriot-simplistic"]))
    scene = dealt_scene(deck, ["QH", "4C", "7D", "9S", "2H"], 1)
    recognizer = Recognizer()
    learning = HouseDeckLearning(recognizer, tmp_path / "house-deck.npz")
    for corner in index_corners(scene):
        learning.confirm(*corner)
    learning.after_frame(scene.image, recognizer.detect(scene.image))
    exemplars = learning.status()["exemplars"]
    assert exemplars > 0
    for _ in range(2):
        learning.look_alikes.record("9D", "6D")

    def camera() -> dict[str, Any]:
        return {"role": "witness", "state": "ok", "reason": None, "doubted": 3,
                "house_deck": learning.status()}

    def relearn() -> dict[str, Any]:
        learning.restart()
        return learning.status()

    rig = Table_(tmp_path, camera, relearn)
    try:
        base = rig.server.url
        _log_in(browser, base, DEALER)
        line = f"learning: 0 of 52 cards, {exemplars} exemplars"
        _wait(browser, lambda d: line in _text(d, "camera-text"), "the learning shown")
        assert "camera (witness) ok" in _text(browser, "camera-text")
        assert "3 reads doubted (the shoe's card possible)" in _text(browser, "camera-text")
        assert "not witnessed (seen misread here): 9D read as 6D" in _text(browser,
                                                                          "camera-text")
        assert not browser.find_element(By.ID, "relearn").is_displayed()
        browser.find_element(By.ID, "logout").click()
        _log_in(browser, base, PIT)
        _wait(browser, lambda d: d.find_element(By.ID, "relearn").is_displayed(),
              "the pit's button")
        _shoot(browser, "house-deck")
        browser.find_element(By.ID, "relearn").click()
        browser.switch_to.alert.accept()
        _wait(browser, lambda d: "learning: 0 of 52 cards, 0 exemplars" in
              _text(d, "camera-text"), "learning afresh")
        assert learning.status()["exemplars"] == 0
        assert "not witnessed" not in _text(browser, "camera-text")  # a new deck's
    finally:
        rig.close()
