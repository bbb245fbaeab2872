"""`tablectl run --check`: what a valid config file names must also be there.

`parse_config` checks the file's own keys and values. These checks open or
resolve what the values name, as the daemon would at start: the shoe's port
(with pyserial's `serial_for_url`, so `socket://` and `rfc2217://` URLs too),
the camera's layout file, the journal (its folder, or the file and the profile
it was written under), the panel's buttons and boxes. Each returns every
problem it finds, one line each, so that one run lists them all.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tablectl.config import Config

# What a button press can mean (tablectl/buttons.py); another name does nothing.
KNOWN_BUTTONS = ("stand", "double", "split", "surrender", "insurance", "void", "new_shoe")


def resource_problems(config: Config, open_port: bool = True) -> list[str]:
    """Everything the config names that cannot be opened or resolved."""
    problems: list[str] = []
    if open_port and config.shoe.driver != "none" and config.shoe.port is not None:
        problems += port_problems(config.shoe.port, config.shoe.baudrate)
    if config.camera is not None:
        problems += layout_problems(config.camera.layout)
        if config.camera.learn_house_deck and config.camera.house_deck is not None:
            problems += learnt_deck_problems(config.camera.house_deck)
        elif config.camera.house_deck is not None:
            problems += house_deck_problems(config.camera.house_deck)
    problems += journal_problems(config.journal.path, config.table.profile,
                                 dict(config.table.rules), "[journal] path")
    problems += panel_problems(dict(config.panel), config.table.profile,
                               dict(config.table.rules))
    return problems


def port_problems(url: str, baudrate: int) -> list[str]:
    """Open the shoe's port once and close it again, as the daemon's link would."""
    import serial

    try:
        port = serial.serial_for_url(url, baudrate=baudrate, timeout=0, do_not_open=True)
        port.open()
    except (serial.SerialException, ValueError, OSError) as error:
        return [f"[shoe] port {url!r} cannot be opened: {error}; check the device "
                "(`ls -l /dev/serial/by-id/`), the URL (socket://host:port, "
                "rfc2217://host:port) and that this user may open it"]
    port.close()
    return []


def layout_problems(path: str) -> list[str]:
    from vision.layout import LayoutError, load_layout

    try:
        load_layout(path)
    except LayoutError as error:
        return [f"[camera] layout: {error}"]
    return []


def house_deck_problems(path: str) -> list[str]:
    """The enrolled deck opens and fits the camera's model."""
    from vision.house_deck import HouseDeckError
    from vision.recognizer import ModelError, Recognizer

    try:
        Recognizer(house_deck=path)
    except (HouseDeckError, ModelError) as error:
        return [f"[camera] house_deck: {error}"]
    return []


def learnt_deck_problems(path: str) -> list[str]:
    """A deck learnt from play can be written where the config says. A deck already
    there that no longer fits the model is no problem: it is learnt again."""
    from vision.recognizer import ModelError, Recognizer

    try:
        if Recognizer().verifier_path is None:
            return ["[camera] learn_house_deck: the camera's model has no verifier network "
                    "to learn with"]
    except ModelError as error:
        return [f"[camera] learn_house_deck: {error}"]
    folder = Path(path).parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        return [f"[camera] house_deck: the learnt deck cannot be written to {path!r} "
                f"({folder} is not a folder this user may write)"]
    return []


def journal_problems(path_text: str, profile: str, rules: Mapping[str, Any],
                     where: str) -> list[str]:
    """The journal file is this table's, or its folder can be made and written."""
    from journal import JournalError, JournalReader

    path = Path(path_text)
    if path.is_dir():
        return [f"{where} {path_text!r} is a folder; give the journal's file name in it"]
    if path.exists():
        try:
            journal = JournalReader(path)
        except JournalError as error:
            return [f"{where}: {error}"]
        try:
            stored = journal.profile
            stored_rules = journal.rules
        finally:
            journal.close()
        if stored not in (None, profile):
            return [f"{where} {path_text!r} was written under profile {stored!r}, not "
                    f"{profile!r}; keep that profile or give a new journal file"]
        if stored_rules != json.loads(json.dumps(dict(rules))):
            return [f"{where} {path_text!r} was written with the rule overrides "
                    f"{stored_rules}, not {dict(rules)}; keep them or give a new journal file"]
        if not os.access(path, os.W_OK):
            return [f"{where} {path_text!r} cannot be written by this user"]
        return []
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return [f"{where} {path_text!r}: {folder} is not a folder"]
    if not os.access(folder, os.W_OK | os.X_OK):
        return [f"{where} {path_text!r}: the folder {folder} cannot be written by this "
                "user, so the journal cannot be made there"]
    return []


def panel_problems(section: Mapping[str, Any], profile: str,
                   rules: Mapping[str, Any]) -> list[str]:
    """Buttons the table knows by name, and a lamp for every box the profile deals."""
    from firmware_bridge.panel import PinMapError, parse_pin_map
    from table.profiles import ProfileError, load_profile

    try:
        pin_map = parse_pin_map(section)
    except PinMapError:
        return []  # already reported by parse_config
    problems = [
        f"[panel] buttons.{button.name}: no such button; a button is one of "
        f"{', '.join(KNOWN_BUTTONS)}"
        for button in pin_map.buttons if button.name not in KNOWN_BUTTONS
    ]
    try:
        boxes = load_profile(profile, dict(rules)).max_boxes
    except ProfileError:
        return problems  # already reported by parse_config
    wired = len(pin_map.boxes)
    if wired < boxes:
        origin = "[panel] boxes" if section else "the built-in pin map"
        problems.append(f"{origin} wires {wired} box(es) but profile {profile!r} deals up to "
                        f"{boxes}; wire boxes {wired + 1} to {boxes} (docs/panel.md) or set "
                        f"rules = {{ max_boxes = {wired} }} in [table]")
    return problems
