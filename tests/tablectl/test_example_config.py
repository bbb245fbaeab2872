"""The shipped example config and systemd unit stay valid: the example loads
through the daemon's own config check, and the unit's command line parses."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

from firmware_bridge.panel import parse_pin_map
from firmware_bridge.panel.pin_map import DEFAULT_PIN_MAP
from tablectl.cli import build_parser
from tablectl.config import load_config

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
EXAMPLE = DEPLOY / "table.example.toml"
UNIT = DEPLOY / "tablectl.service"


def test_the_example_config_is_valid() -> None:
    config = load_config(EXAMPLE)  # raises ConfigError listing every problem
    assert config.table.profile == "casinos-austria" and dict(config.table.rules) == {}
    assert config.shoe.driver == "shoelink"
    assert config.shoe.port is not None and config.shoe.port.startswith("/dev/serial/by-id/")
    assert config.camera is None
    assert config.journal.path == "/var/lib/tablectl/journal.sqlite"
    assert (config.api.enabled, config.api.host, config.api.port) == (True, "127.0.0.1", 8765)


def test_the_example_panel_is_the_built_in_pin_map_written_out() -> None:
    config = load_config(EXAMPLE)
    assert parse_pin_map(dict(config.panel)) == parse_pin_map(DEFAULT_PIN_MAP)


def test_the_commented_camera_section_and_rules_are_valid_when_used(tmp_path: Path) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    lines = text.splitlines()
    start = lines.index("# [camera]")
    camera = []
    for line in lines[start:]:
        if not line.startswith("# "):
            break
        camera.append(line[2:])
    assert camera[0] == "[camera]" and len(camera) > 2
    used = text.replace("rules = {}\n# rules = ", "rules = ").replace(
        "\n".join(f"# {line}" for line in camera), "\n".join(camera))
    path = tmp_path / "table.toml"
    path.write_text(used, encoding="utf-8")
    config = load_config(path)
    assert config.camera is not None and config.camera.source == 0
    assert dict(config.table.rules) == {"dealer_hits_soft_17": True, "min_bet": 20}
    assert tomllib.loads(used)["table"]["profile"] == "casinos-austria"


def test_the_unit_runs_the_daemon_on_the_installed_config() -> None:
    unit = UNIT.read_text(encoding="utf-8")
    exec_start = re.search(r"^ExecStart=(.+)$", unit, re.MULTILINE)
    assert exec_start is not None
    argv = shlex.split(exec_start.group(1))
    assert argv[0] == "/opt/tablectl/.venv/bin/tablectl"
    args = build_parser().parse_args(argv[1:])
    assert args.command == "run" and args.config == "/etc/tablectl/table.toml"
    assert re.search(r"^WorkingDirectory=/var/lib/tablectl$", unit, re.MULTILINE)
    assert re.search(r"^Environment=GPIOZERO_PIN_FACTORY=lgpio$", unit, re.MULTILINE)
