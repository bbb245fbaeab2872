"""The card readers register with the shoe feed by driver name: the config's
`[shoe] driver` picks one from the registry, and an unknown name is refused
with the names that are known."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.text_scanner import TextScannerReader
from journal import Journal
from table.machine import Table
from table.profiles import load_profile
from tablectl.config import ConfigError, load_config
from tablectl.devices import ShoeLinkSettings
from tablectl.service import TableService
from tablectl.shoe_feed import SHOE_READERS, ShoeFeed, register_reader


@pytest.fixture
def service(tmp_path: Path) -> Iterator[TableService]:
    journal = Journal(tmp_path / "journal.sqlite", profile="casinos-austria")
    yield TableService(Table(load_profile("casinos-austria")), journal)
    journal.close()


class FakeReader:
    """A reader of a kind the feed has never heard of (an RFID shoe, say)."""

    def __init__(self, settings: ShoeLinkSettings) -> None:
        self.settings = settings
        self.started = False

    @property
    def stats(self) -> FakeReader:
        return self

    def as_dict(self) -> dict[str, Any]:
        return {"tags": 0}

    def start(self) -> None:
        self.started = True

    def stop(self, timeout_s: float = 2.0) -> None:
        self.started = False


def test_an_unknown_driver_is_refused_naming_the_known_ones(service: TableService) -> None:
    with pytest.raises(ValueError, match="unknown shoe driver 'usb': one of shoelink, text"):
        ShoeFeed(service, "usb", "/dev/ttyUSB0")


def test_the_text_driver_opens_a_scanner_that_is_never_acknowledged(
        service: TableService, tmp_path: Path) -> None:
    feed = ShoeFeed(service, "text", str(tmp_path / "no-such-port"), baudrate=9600)
    assert isinstance(feed.reader, TextScannerReader)
    assert feed.link is None


def test_a_registered_reader_is_opened_by_its_name_and_the_config_knows_it(
        service: TableService, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    opened: list[FakeReader] = []

    def open_rfid(feed: ShoeFeed, settings: ShoeLinkSettings) -> FakeReader:
        opened.append(FakeReader(settings))
        return opened[-1]

    monkeypatch.setitem(SHOE_READERS, "rfid", open_rfid)
    feed = ShoeFeed(service, "rfid", "/dev/ttyACM0", baudrate=57_600)
    assert [reader.settings.port for reader in opened] == ["/dev/ttyACM0"]
    assert opened[0].settings.baudrate == 57_600
    feed.start()
    assert opened[0].started
    assert feed.stats() == {"tags": 0}
    feed.stop()
    assert not opened[0].started

    config = tmp_path / "table.toml"
    config.write_text('[shoe]\ndriver = "rfid"\nport = "/dev/ttyACM0"\n')
    assert load_config(config).shoe.driver == "rfid"
    monkeypatch.delitem(SHOE_READERS, "rfid")
    with pytest.raises(ConfigError, match="shoelink or text or none"):
        load_config(config)


@pytest.mark.parametrize("name", ["shoelink", "text", "none"])
def test_a_driver_name_cannot_be_taken_twice(name: str) -> None:
    with pytest.raises(ValueError, match=f"shoe driver '{name}' is taken"):
        register_reader(name, lambda feed, settings: FakeReader(settings))
    assert set(SHOE_READERS) == {"shoelink", "text"}
