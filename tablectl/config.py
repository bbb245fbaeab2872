"""The daemon's configuration: one TOML file, validated whole before anything starts.

Every problem in the file is collected and reported at once, each with its
key and what is allowed, so an installer fixes the file in one go.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablectl.mqtt.settings import MqttConfig, parse_section
from tablectl.shoe_feed import SHOE_READERS

DEFAULT_JOURNAL = "var/journal.sqlite"
DEFAULT_USERS = "var/users.json"
LOOPBACK = ("127.0.0.1", "::1", "localhost")
# `tablectl run --sim`'s: another table, so another file (`tablectl journal` finds it).
DEFAULT_SIM_JOURNAL = "var/sim-journal.sqlite"


class ConfigError(Exception):
    """The configuration cannot be used; `problems` lists every reason."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"{source}: {len(problems)} problem(s) in the configuration:\n{lines}")


@dataclass(frozen=True)
class TableConfig:
    profile: str = "casinos-austria"
    rules: Mapping[str, Any] = field(default_factory=dict)


def shoe_drivers() -> tuple[str, ...]:
    """The registered card readers (`tablectl.shoe_feed.SHOE_READERS`), and "none" for a
    camera-only table."""
    return (*SHOE_READERS, "none")


@dataclass(frozen=True)
class ShoeConfig:
    driver: str = "shoelink"
    port: str | None = None
    baudrate: int = 115_200


# `[camera] witness_doubt` unless set (tablectl.witness_doubt).
DEFAULT_WITNESS_DOUBT = 0.02


@dataclass(frozen=True)
class CameraConfig:
    source: str | int
    layout: str
    fps: float = 10.0
    width: int = 1280
    height: int = 720
    # Seconds without a usable frame before the camera is reported degraded.
    timeout: float = 5.0
    # The casino's enrolled deck (`tablectl vision enroll`), read by likeness; None: any deck.
    house_deck: str | None = None
    # Learn the house deck from play (beside a shoe) and write it to `house_deck`.
    learn_house_deck: bool = False
    # Beside a shoe: a read is taken as unknown, not as a card the shoe did not deal, when
    # the networks give a card the shoe put in that place at least this probability
    # (`tablectl.witness_doubt`); 0: every read stands.
    witness_doubt: float = DEFAULT_WITNESS_DOUBT
    # Look again for index corners the finder missed once its pairs are read
    # (`vision.faint_glyphs`): a few more cards of designs never enrolled, a quarter more
    # time a frame.
    faint_passes: bool = False
    # Read the learnt proposer's index corners away from the finder's reads
    # (`vision.proposer`): corners whose glyphs run into a line or the next card.
    proposer: bool = True


@dataclass(frozen=True)
class JournalConfig:
    path: str = DEFAULT_JOURNAL
    commit_batch: int = 256


@dataclass(frozen=True)
class ApiConfig:
    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = 8765
    # Users, roles, password hashes and token digests (`tablectl users`).
    users: str = DEFAULT_USERS
    # A certificate and key (PEM) to serve HTTPS; needed to bind beyond loopback,
    # unless `insecure_bind` acknowledges plain HTTP on the network.
    tls_cert: str | None = None
    tls_key: str | None = None
    insecure_bind: bool = False
    # The largest amount a call may carry where the profile sets no box limit.
    max_amount: int = 1_000_000


@dataclass(frozen=True)
class Config:
    table: TableConfig
    shoe: ShoeConfig
    camera: CameraConfig | None
    journal: JournalConfig
    api: ApiConfig
    panel: Mapping[str, Any]
    source: str = "<built-in>"
    # The broker the table publishes its journal to (docs/floor.md); None: off.
    mqtt: MqttConfig | None = None


_Checker = Callable[[Any], bool]


class _Section:
    """Reads one table of the TOML file, noting every problem instead of stopping."""

    def __init__(self, name: str, raw: Any, problems: list[str]) -> None:
        self.name = name
        self.problems = problems
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            problems.append(f"[{name}] must be a table of keys, got {type(raw).__name__}")
            raw = {}
        self.raw: dict[str, Any] = raw
        self.used: set[str] = set()

    def get(self, key: str, default: Any, check: _Checker, allowed: str) -> Any:
        self.used.add(key)
        if key not in self.raw:
            return default
        value = self.raw[key]
        if not check(value):
            self.problems.append(f"[{self.name}] {key} = {value!r}: expected {allowed}")
            return default
        return value

    def finish(self, known_extra: tuple[str, ...] = ()) -> None:
        unknown = sorted(set(self.raw) - self.used - set(known_extra))
        for key in unknown:
            allowed = ", ".join(sorted(self.used | set(known_extra)))
            self.problems.append(f"[{self.name}] unknown key {key!r}; allowed keys: {allowed}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _positive_int(value: Any) -> bool:
    return _is_int(value) and value > 0


def _port_number(value: Any) -> bool:
    return _is_int(value) and 0 <= value < 65536


def _text(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _number_or_zero(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


KNOWN_SECTIONS = ("table", "shoe", "camera", "journal", "api", "panel", "mqtt")


def parse_config(raw: Mapping[str, Any], source: str = "<built-in>") -> Config:
    """Validate a parsed TOML document; raise ConfigError listing every problem."""
    problems: list[str] = []
    for key in sorted(set(raw) - set(KNOWN_SECTIONS)):
        problems.append(
            f"unknown section [{key}]; allowed sections: {', '.join(KNOWN_SECTIONS)}"
        )

    table_section = _Section("table", raw.get("table"), problems)
    table = TableConfig(
        profile=_beside(
            table_section.get("profile", "casinos-austria", _text, "a profile name or path"),
            source,
        ),
        rules=table_section.get("rules", {}, lambda v: isinstance(v, dict), "a table of rule keys"),
    )
    table_section.finish()
    problems.extend(_profile_problems(table, source))

    shoe_section = _Section("shoe", raw.get("shoe"), problems)
    drivers = shoe_drivers()
    driver = shoe_section.get("driver", "shoelink", lambda v: v in drivers, " or ".join(drivers))
    shoe = ShoeConfig(
        driver=driver,
        port=shoe_section.get("port", None, _text, "a serial port path or URL"),
        baudrate=shoe_section.get("baudrate", 115_200, _positive_int, "a positive integer"),
    )
    shoe_section.finish()
    if shoe.driver != "none" and shoe.port is None:
        problems.append(
            f"[shoe] driver = {shoe.driver!r} needs port = \"/dev/serial/by-id/...\" "
            "(or socket://host:port); set driver = \"none\" for a camera-only table"
        )

    camera: CameraConfig | None = None
    if "camera" in raw:
        camera_section = _Section("camera", raw.get("camera"), problems)
        camera_source = camera_section.get(
            "source", None, lambda v: _text(v) or _is_int(v),
            "a device index, a file, a folder of stills or a stream URL",
        )
        layout = camera_section.get("layout", None, _text, "the path of a layout file")
        fps = camera_section.get("fps", 10.0, _number, "a positive number")
        width = camera_section.get("width", 1280, _positive_int, "a positive integer")
        height = camera_section.get("height", 720, _positive_int, "a positive integer")
        timeout = camera_section.get("timeout", 5.0, _number,
                                     "a positive number of seconds")
        house_deck = camera_section.get("house_deck", None, _text,
                                        "the path of a deck enrolled by tablectl vision enroll")
        learn = camera_section.get("learn_house_deck", False, lambda v: isinstance(v, bool),
                                   "true or false")
        doubt = camera_section.get("witness_doubt", DEFAULT_WITNESS_DOUBT,
                                   lambda v: _number_or_zero(v) and v < 1,
                                   "a probability from 0 (off) to under 1")
        faint = camera_section.get("faint_passes", False, lambda v: isinstance(v, bool),
                                   "true or false")
        proposer = camera_section.get("proposer", True, lambda v: isinstance(v, bool),
                                      "true or false")
        camera_section.finish()
        if learn and (house_deck is None or not str(house_deck).endswith(".npz")):
            problems.append("[camera] learn_house_deck = true needs house_deck = "
                            "\"path/of/house-deck.npz\": where the learnt deck is written")
        if learn and shoe.driver == "none":
            problems.append("[camera] learn_house_deck = true needs a shoe: the shoe names "
                            "the cards the deck is learnt from ([shoe] driver is \"none\")")
        if camera_source is None:
            problems.append("[camera] source is missing (device index, file or URL)")
        if layout is None:
            problems.append(
                "[camera] layout is missing: make one with `tablectl vision calibrate`"
            )
        if camera_source is not None and layout is not None:
            camera = CameraConfig(camera_source, layout, float(fps), width, height,
                                  float(timeout), house_deck, learn, float(doubt), faint,
                                  proposer)
    if shoe.driver == "none" and "camera" not in raw:
        problems.append("[shoe] driver = \"none\" needs a [camera] section: no card source")

    journal_section = _Section("journal", raw.get("journal"), problems)
    journal = JournalConfig(
        path=journal_section.get("path", DEFAULT_JOURNAL, _text, "a file path"),
        commit_batch=journal_section.get("commit_batch", 256, _positive_int, "a positive integer"),
    )
    journal_section.finish()

    api_section = _Section("api", raw.get("api"), problems)
    api = ApiConfig(
        enabled=api_section.get("enabled", True, lambda v: isinstance(v, bool), "true or false"),
        host=api_section.get("host", "127.0.0.1", _text, "a host address"),
        port=api_section.get("port", 8765, _port_number, "a TCP port 1-65535 (0: any free port)"),
        users=api_section.get("users", DEFAULT_USERS, _text, "the path of the users file"),
        tls_cert=api_section.get("tls_cert", None, _text, "a PEM certificate file"),
        tls_key=api_section.get("tls_key", None, _text, "its PEM key file"),
        insecure_bind=api_section.get("insecure_bind", False, lambda v: isinstance(v, bool),
                                      "true or false"),
        max_amount=api_section.get("max_amount", 1_000_000, _positive_int,
                                   "a positive whole number of units"),
    )
    api_section.finish()
    if (api.tls_cert is None) != (api.tls_key is None):
        problems.append("[api] tls_cert and tls_key go together: give both or neither")
    if (api.enabled and api.host not in LOOPBACK and api.tls_cert is None
            and not api.insecure_bind):
        problems.append(
            f"[api] host = {api.host!r} serves the table beyond this machine: set tls_cert "
            "and tls_key (HTTPS), or insecure_bind = true to accept plain HTTP on the "
            "network (logged at every start)")

    panel_raw = raw.get("panel", {})
    if not isinstance(panel_raw, dict):
        problems.append("[panel] must be a table of keys")
        panel_raw = {}
    problems.extend(_panel_problems(panel_raw))

    mqtt = parse_section(raw["mqtt"], problems) if "mqtt" in raw else None

    if problems:
        raise ConfigError(source, problems)
    return Config(table, shoe, camera, journal, api, panel_raw, source, mqtt)


def _beside(profile: str, source: str) -> str:
    """A profile file named relative to the config file lies beside it."""
    if profile.endswith(".toml") and not Path(profile).is_absolute() and Path(source).is_file():
        return str(Path(source).parent / profile)
    return profile


def _profile_problems(table: TableConfig, source: str) -> list[str]:
    from table.profiles import ProfileError, load_profile

    profile = table.profile
    where = f"[table] profile {table.profile!r}"
    overrides = dict(table.rules)
    try:
        rules = load_profile(profile, overrides)
    except ProfileError as error:
        # The profile loader stops at the first bad key: try each override alone
        # too, so every bad one is named (a bad combination is named as a whole).
        problems = []
        if overrides:
            try:
                load_profile(profile)
            except ProfileError:
                return [f"{where}: {error}"]
            for key, value in overrides.items():
                try:
                    load_profile(profile, {key: value})
                except ProfileError as key_error:
                    problems.append(f"{where}: {key_error}")
        return problems or [f"{where}: {error}"]
    if rules.max_box_total and rules.min_bet > rules.max_box_total:
        return [f"{where}: min_bet {rules.min_bet} is above max_box_total "
                f"{rules.max_box_total}, so no bet could be placed; lower min_bet or raise "
                "max_box_total (0: no limit)"]
    return []


def _panel_problems(panel: Mapping[str, Any]) -> list[str]:
    from firmware_bridge.panel import PinMapError, parse_pin_map

    try:
        parse_pin_map(dict(panel))
    except PinMapError as error:
        return [f"[panel] {problem}" for problem in error.problems]
    return []


def load_config(path: str | Path) -> Config:
    """Read and validate a config file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(str(path), [f"cannot read the file: {error.strerror}"]) from error
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(str(path), [f"not valid TOML: {error}"]) from error
    return parse_config(raw, str(path))
