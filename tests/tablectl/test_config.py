"""The daemon's config file: read whole, every problem listed with its key and
what is allowed, and `tablectl run --config` refusing a bad file with exit 2."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tablectl.config import DEFAULT_JOURNAL, ConfigError, load_config, parse_config

GOOD_SHOE = {"driver": "shoelink", "port": "/dev/serial/by-id/usb-Acme_Shoe-if00"}

BAD_TOML = """\
[tabel]
profile = "casinos-austria"

[table]
profile = "casinos-austria"
colour = "green"
rules = { decks = 99 }

[shoe]
driver = "shoelink"
baudrate = "fast"

[camera]
source = 0

[journal]
commit_batch = -1

[api]
port = "eighty"
enabled = "yes"

[panel.boxes]
1 = { rgb = [4, 17, 27] }
2 = { rgb = [4, 10, 9] }

[panel.lamps]
draw = 23
stand = 24
alarm = 25
"""

# One fragment of each problem line the file above must produce: the key and what
# is allowed, in the words an installer needs to fix it.
EXPECTED_PROBLEMS = [
    ("unknown section [tabel]", "allowed sections: table, shoe, camera, journal, api, panel"),
    ("[table] unknown key 'colour'", "allowed keys: profile, rules"),
    ("[table] profile 'casinos-austria'", "'decks'", "99", "1 to 8"),
    ("[shoe] baudrate = 'fast'", "expected a positive integer"),
    ("[shoe] driver = 'shoelink' needs port",),
    ("[camera] layout is missing", "tablectl vision calibrate"),
    ("[journal] commit_batch = -1", "expected a positive integer"),
    ("[api] port = 'eighty'", "TCP port 1-65535"),
    ("[api] enabled = 'yes'", "true or false"),
    ("[panel]", "GPIO4 is already used by boxes.1.rgb red"),
    ("[panel]", "lamps: missing 'shoe_fault'"),
]


def _matching(problems: list[str], fragments: tuple[str, ...]) -> list[str]:
    return [p for p in problems if all(fragment in p for fragment in fragments)]


def test_a_good_minimal_config_takes_the_defaults() -> None:
    config = parse_config({"shoe": GOOD_SHOE}, "table.toml")
    assert config.table.profile == "casinos-austria"
    assert config.shoe.port == GOOD_SHOE["port"] and config.shoe.baudrate == 115_200
    assert config.camera is None
    assert config.journal.path == DEFAULT_JOURNAL
    assert (config.api.enabled, config.api.host, config.api.port) == (True, "127.0.0.1", 8765)
    assert config.panel == {}


def test_every_problem_of_a_bad_file_is_listed_at_once(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(BAD_TOML, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    problems = caught.value.problems
    for fragments in EXPECTED_PROBLEMS:
        assert len(_matching(problems, fragments)) == 1, (fragments, problems)
    # Nothing but those: each problem once, no noise an installer would chase.
    assert len(problems) == len(EXPECTED_PROBLEMS), problems
    message = str(caught.value)
    assert message.startswith(f"{path}: {len(EXPECTED_PROBLEMS)} problem(s)")
    assert all(f"  - {p}" in message for p in problems)


def test_two_bad_rule_keys_are_both_named() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({
            "table": {"rules": {"decks": 0, "hole_card": "sideways"}},
            "shoe": GOOD_SHOE,
        })
    problems = caught.value.problems
    assert _matching(problems, ("'decks'", "1 to 8")), problems
    assert _matching(problems, ("'hole_card'", "'none', 'peek'")), problems


@pytest.mark.parametrize(
    ("raw", "fragments"),
    [
        ({"table": {"profile": "vegas-strip"}, "shoe": GOOD_SHOE},
         ("no such profile", "casinos-austria", "live-studio")),
        ({"table": {"rules": {"interrupted_round": "maybe"}}, "shoe": GOOD_SHOE},
         ("'interrupted_round'", "'resume', 'void'")),
        ({"table": {"rules": {"min_bet": 500, "max_box_total": 100}}, "shoe": GOOD_SHOE},
         ("min_bet 500 is above max_box_total 100", "no bet could be placed")),
        ({"table": {"rules": {"no_such_rule": 1}}, "shoe": GOOD_SHOE},
         ("'no_such_rule'", "unknown key", "interrupted_round")),
        ({"shoe": {"driver": "usb", "port": "/dev/ttyUSB0"}},
         ("[shoe] driver = 'usb'", "shoelink or text or none")),
        ({"shoe": {"driver": "text"}}, ("needs port",)),
        ({"shoe": {"driver": "none"}}, ("needs a [camera] section",)),
        ({"shoe": {"driver": "none"}, "camera": {"layout": "layout.json"}},
         ("[camera] source is missing",)),
        ({"shoe": GOOD_SHOE, "table": {"min_bet": 10}},
         ("[table] unknown key 'min_bet'", "allowed keys: profile, rules")),
        ({"shoe": GOOD_SHOE, "api": {"port": 70000}}, ("[api] port = 70000", "1-65535")),
        ({"shoe": GOOD_SHOE, "journal": {"path": ""}}, ("[journal] path = ''", "a file path")),
        ({"shoe": GOOD_SHOE, "panel": {"boxes": {"1": {"rgb": [4, 17]}}}},
         ("[panel]", "three pins")),
        ({"shoe": GOOD_SHOE, "panel": {"lamps": {"draw": 99}}}, ("[panel]",)),
        ({"shoe": GOOD_SHOE, "table": "casinos-austria"},
         ("[table] must be a table of keys",)),
        ({"shoe": GOOD_SHOE, "camera": {"source": 0, "layout": "l.json",
                                        "learn_house_deck": True}},
         ("learn_house_deck = true needs house_deck", "where the learnt deck is written")),
        ({"shoe": GOOD_SHOE, "camera": {"source": 0, "layout": "l.json",
                                        "learn_house_deck": True, "house_deck": "deck.bin"}},
         ("learn_house_deck = true needs house_deck", ".npz")),
        ({"shoe": {"driver": "none"}, "camera": {"source": 0, "layout": "l.json",
                                                 "learn_house_deck": True,
                                                 "house_deck": "deck.npz"}},
         ("learn_house_deck = true needs a shoe",)),
        ({"shoe": GOOD_SHOE, "camera": {"source": 0, "layout": "l.json",
                                        "learn_house_deck": "yes"}},
         ("[camera] learn_house_deck", "true or false")),
        ({"shoe": GOOD_SHOE, "camera": {"source": 0, "layout": "l.json",
                                        "faint_passes": 1}},
         ("[camera] faint_passes", "true or false")),
        ({"shoe": GOOD_SHOE, "camera": {"source": 0, "layout": "l.json",
                                        "proposer": "off"}},
         ("[camera] proposer", "true or false")),
        *[({"shoe": GOOD_SHOE, "camera": {"source": 0, "layout": "l.json",
                                          "witness_doubt": bad}},
           ("[camera] witness_doubt", "from 0 (off) to under 1"))
          for bad in (1, 1.5, -0.01, "0.02", True)],
    ],
)
def test_each_kind_of_problem_names_its_key(raw: dict[str, object],
                                            fragments: tuple[str, ...]) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(raw)
    assert _matching(caught.value.problems, fragments), caught.value.problems


def test_a_camera_only_table_and_a_full_panel_are_accepted() -> None:
    config = parse_config({
        "shoe": {"driver": "none"},
        "camera": {"source": 0, "layout": "layout.json", "fps": 15},
        "panel": {"boxes": {"1": {"rgb": [4, 17, 27]}},
                  "lamps": {"draw": 23, "stand": 24, "alarm": 25, "shoe_fault": 8}},
    })
    assert config.camera is not None
    assert (config.camera.source, config.camera.layout, config.camera.fps) == (0, "layout.json",
                                                                               15.0)


def test_learning_the_house_deck_is_off_unless_asked_for() -> None:
    camera = {"source": 0, "layout": "layout.json", "house_deck": "var/house-deck.npz"}
    config = parse_config({"shoe": GOOD_SHOE, "camera": camera})
    assert config.camera is not None and not config.camera.learn_house_deck
    config = parse_config({"shoe": GOOD_SHOE, "camera": {**camera, "learn_house_deck": True}})
    assert config.camera is not None and config.camera.learn_house_deck


def test_the_faint_passes_are_off_unless_asked_for() -> None:
    camera = {"source": 0, "layout": "layout.json"}
    config = parse_config({"shoe": GOOD_SHOE, "camera": camera})
    assert config.camera is not None and not config.camera.faint_passes
    config = parse_config({"shoe": GOOD_SHOE, "camera": {**camera, "faint_passes": True}})
    assert config.camera is not None and config.camera.faint_passes


def test_the_learnt_proposer_is_on_unless_turned_off() -> None:
    camera = {"source": 0, "layout": "layout.json"}
    config = parse_config({"shoe": GOOD_SHOE, "camera": camera})
    assert config.camera is not None and config.camera.proposer
    config = parse_config({"shoe": GOOD_SHOE, "camera": {**camera, "proposer": False}})
    assert config.camera is not None and not config.camera.proposer


def test_the_witness_doubts_at_two_percent_unless_told() -> None:
    camera = {"source": 0, "layout": "layout.json"}
    config = parse_config({"shoe": GOOD_SHOE, "camera": camera})
    assert config.camera is not None and config.camera.witness_doubt == 0.02
    for value in (0, 0.1):
        config = parse_config({"shoe": GOOD_SHOE, "camera": {**camera, "witness_doubt": value}})
        assert config.camera is not None and config.camera.witness_doubt == value


def test_a_file_that_is_not_toml_or_not_there(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("[table\nprofile = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(broken)
    assert caught.value.problems[0].startswith("not valid TOML")
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "missing.toml")
    assert "cannot read the file" in caught.value.problems[0]


def test_tablectl_run_refuses_a_bad_config_with_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(BAD_TOML, encoding="utf-8")
    finished = subprocess.run(
        [sys.executable, "-m", "tablectl", "run", "--config", str(path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )
    assert finished.returncode == 2, finished.stderr
    stderr = finished.stderr
    assert f"{len(EXPECTED_PROBLEMS)} problem(s) in the configuration" in stderr
    lines = [line.strip()[2:] for line in stderr.splitlines() if line.strip().startswith("- ")]
    for fragments in EXPECTED_PROBLEMS:
        assert _matching(lines, fragments), (fragments, stderr)
    # Refused before anything started: no journal, no folder for it.
    assert not (tmp_path / "var").exists()


def test_a_profile_file_named_relative_to_the_config_is_taken_from_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from table.profiles import load_profile

    folder = tmp_path / "etc"
    folder.mkdir()
    shipped = Path(load_profile.__code__.co_filename).parent / "casinos-austria.toml"
    (folder / "house.toml").write_text(shipped.read_text(encoding="utf-8"), encoding="utf-8")
    config_file = folder / "table.toml"
    config_file.write_text('[table]\nprofile = "house.toml"\n[shoe]\ndriver = "shoelink"\n'
                           'port = "/dev/ttyACM0"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # not the config's folder
    config = load_config(config_file)
    assert config.table.profile == str(folder / "house.toml")
    assert load_profile(config.table.profile).decks > 0  # the daemon loads the same file


def test_run_check_says_a_good_config_is_valid_and_starts_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tablectl.cli import main

    config_file = tmp_path / "table.toml"
    # loop:// is pyserial's port that echoes what is written: one that opens anywhere.
    config_file.write_text('[shoe]\ndriver = "shoelink"\nport = "loop://"\n'
                           f'[journal]\npath = "{tmp_path / "j.sqlite"}"\n', encoding="utf-8")
    assert main(["run", "--config", str(config_file), "--check"]) == 0
    assert "the configuration is valid" in capsys.readouterr().out
    assert not (tmp_path / "j.sqlite").exists()
    config_file.write_text('[shoe]\ndriver = "usb"\n', encoding="utf-8")
    assert main(["run", "--config", str(config_file), "--check"]) == 2
    assert "[shoe] driver = 'usb'" in capsys.readouterr().err


def test_run_check_opens_what_the_config_names_and_lists_every_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tablectl.cli import main

    (tmp_path / "afile").write_text("", encoding="utf-8")
    config_file = tmp_path / "table.toml"
    config_file.write_text(
        '[shoe]\nport = "/nonexistent/serial-port"\n'
        '[camera]\nsource = 0\nlayout = "missing-layout.json"\n'
        f'[journal]\npath = "{tmp_path / "afile" / "j.sqlite"}"\n'
        "[panel]\nlamps = { draw = 23, stand = 24, alarm = 25, shoe_fault = 8 }\n"
        "[panel.boxes]\n1 = { rgb = [4, 17, 27] }\n2 = { rgb = [22, 10, 9] }\n"
        "[panel.buttons]\nstnad = 2\n", encoding="utf-8")
    assert main(["run", "--config", str(config_file), "--check"]) == 2
    err = capsys.readouterr().err
    assert "5 problem(s)" in err
    assert "[shoe] port '/nonexistent/serial-port' cannot be opened" in err
    assert "[camera] layout: missing-layout.json: cannot read the layout file" in err
    assert "afile is not a folder" in err
    assert "[panel] buttons.stnad: no such button" in err
    # casinos-austria deals up to 7 boxes; the map wires 2.
    assert "[panel] boxes wires 2 box(es) but profile 'casinos-austria' deals up to 7" in err
    # A socket:// URL is opened as the daemon's link would: nothing listens on it here.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config_file.write_text(f'[shoe]\nport = "socket://127.0.0.1:{port}"\n'
                           f'[journal]\npath = "{tmp_path / "j.sqlite"}"\n', encoding="utf-8")
    assert main(["run", "--config", str(config_file), "--check"]) == 2
    assert f"port 'socket://127.0.0.1:{port}' cannot be opened" in capsys.readouterr().err


def test_run_check_refuses_a_journal_of_another_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from journal import Journal
    from tablectl.cli import main

    Journal(tmp_path / "j.sqlite", profile="st-moritz").close()
    config_file = tmp_path / "table.toml"
    config_file.write_text('[shoe]\nport = "loop://"\n'
                           f'[journal]\npath = "{tmp_path / "j.sqlite"}"\n', encoding="utf-8")
    assert main(["run", "--config", str(config_file), "--check"]) == 2
    assert "was written under profile 'st-moritz', not 'casinos-austria'" in \
        capsys.readouterr().err


def test_binding_beyond_loopback_needs_tls_or_an_acknowledgement() -> None:
    shoe = {"driver": "shoelink", "port": "/dev/ttyUSB0"}
    with pytest.raises(ConfigError) as refused:
        parse_config({"shoe": shoe, "api": {"host": "0.0.0.0"}})
    assert "tls_cert" in str(refused.value) and "insecure_bind" in str(refused.value)
    with pytest.raises(ConfigError) as half:
        parse_config({"shoe": shoe, "api": {"host": "0.0.0.0", "tls_cert": "c.pem"}})
    assert "tls_cert and tls_key go together" in str(half.value)
    assert parse_config({"shoe": shoe, "api": {"host": "0.0.0.0", "tls_cert": "c.pem",
                                               "tls_key": "k.pem"}}).api.tls_key == "k.pem"
    assert parse_config({"shoe": shoe, "api": {"host": "0.0.0.0",
                                               "insecure_bind": True}}).api.insecure_bind
    assert parse_config({"shoe": shoe}).api.host == "127.0.0.1"


def test_run_check_of_a_learnt_deck_asks_for_a_place_to_write_it_not_a_deck(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from hwsim.camera.table_frames import table_layout

    from tablectl.cli import main

    layout = tmp_path / "layout.json"
    layout.write_text(json.dumps(table_layout()), encoding="utf-8")
    (tmp_path / "afile").write_text("", encoding="utf-8")
    config_file = tmp_path / "table.toml"

    def check(deck: Path) -> int:
        config_file.write_text(
            '[shoe]\ndriver = "shoelink"\nport = "loop://"\n'
            f'[journal]\npath = "{tmp_path / "j.sqlite"}"\n'
            f'[camera]\nsource = 0\nlayout = "{layout}"\nlearn_house_deck = true\n'
            f'house_deck = "{deck}"\n', encoding="utf-8")
        return main(["run", "--config", str(config_file), "--check"])

    assert check(tmp_path / "afile" / "house-deck.npz") == 2
    assert "the learnt deck cannot be written to" in capsys.readouterr().err
    # Not there yet, or there but of no use (an old model): it is learnt from play.
    assert check(tmp_path / "decks" / "house-deck.npz") == 0
    (tmp_path / "stale.npz").write_bytes(b"an old deck")
    assert check(tmp_path / "stale.npz") == 0
    assert "the configuration is valid" in capsys.readouterr().out
