"""The daemon: one process, one loop owning the table, devices posting to it.

`Daemon(config).open()` opens the journal, replays it into a fresh table
(the state is a function of the events), applies the profile's policy to a
round a crash interrupted, then starts the shoe reader, the panel, the local
API and (optionally) the camera. `run()` owns the calling thread until
`stop()` (SIGTERM/SIGINT in `tablectl run`); `close()` releases everything.
"""

from __future__ import annotations

import json
import logging
import os
import ssl
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory

from firmware_bridge.panel import BoxLamp, ButtonPress, LampPicture, Panel, parse_pin_map
from firmware_bridge.panel.mock_pins import mock_factory
from journal import Journal, JournalError, JournalEvent, JournalReader
from journal.replay import ReplayWatcher, replay
from table.machine import IN_ROUND, Table
from table.profiles import Rules, load_profile
from table.views import Outcome
from tablectl.api import ApiServer
from tablectl.auth import Authenticator, UsersFile
from tablectl.buttons import button_event
from tablectl.config import LOOPBACK, Config
from tablectl.devices import Devices, PanelDevice
from tablectl.journal_retry import JournalRetry
from tablectl.lamps import lamp_picture
from tablectl.limits import AmountLimits
from tablectl.service import RECENT_ANSWERS, RefKey, Submission, TableService
from tablectl.shoe_feed import ShoeFeed

log = logging.getLogger(__name__)

# Finished rounds kept in memory: the journal holds them all.
KEEP_ROUNDS = 4


class DaemonError(Exception):
    """The daemon cannot start; the message says what to do."""


@dataclass(frozen=True)
class StartReport:
    events_replayed: int
    rounds_recorded: int
    interrupted_round: int | None
    interrupted_action: str | None


class _Answers(ReplayWatcher):
    """Keeps the outcomes of the newest referenced events a replay goes through."""

    def __init__(self) -> None:
        self.recent: deque[tuple[RefKey, Outcome]] = deque(maxlen=RECENT_ANSWERS)

    def after(self, stored: JournalEvent, outcome: Outcome, table: Table) -> None:
        if stored.source_ref is not None:
            self.recent.append(((stored.source, stored.source_ref), outcome))


class Daemon:
    """The composition root. `devices` replaces what the config names (mock pins,
    a simulated shoe or felt, a test's clock: `tablectl.devices`); by default the
    config's pin map on the default pins, its shoe port and its camera source."""

    def __init__(self, config: Config, devices: Devices | None = None, *,
                 resume_after_journal_fault: bool = True) -> None:
        """`resume_after_journal_fault`: once the journal stores again, rebuild the
        table from it and play on (`tablectl.journal_retry`); False keeps the table
        halted until a restart (the simulator, whose dealer's own table is ahead of
        what was stored: it stops and resumes from the journal at its next run)."""
        self.devices = devices = devices or Devices()
        self.resume_after_journal_fault = resume_after_journal_fault
        if devices.camera is not None and config.camera is None:
            raise DaemonError("a camera source was given but the config has no [camera] "
                              "section (its layout file and fps)")
        self.config = config
        self.panel: PanelDevice | None = devices.panel
        # The mock pins of a panel without lamps (GPIOZERO_PIN_FACTORY=mock).
        self.mock_pins: MockFactory | None = None
        self.rules: Rules | None = None
        self.journal: Journal | None = None
        self.service: TableService | None = None
        self.shoe: ShoeFeed | None = None
        self.api: ApiServer | None = None
        # Who may write through the API: the users file, and tokens issued in memory.
        self.auth = Authenticator(UsersFile(config.api.users))
        self.camera: Any = None
        self.publisher: Any = None  # tablectl.mqtt.publisher.Publisher with [mqtt]
        self._closers: list[Callable[[], None]] = []
        self._unwired_warned: set[int] = set()
        self._closed = False
        self.report: StartReport | None = None

    # -- start -----------------------------------------------------------------------

    def open(self) -> StartReport:
        config = self.config
        try:
            self.rules = load_profile(config.table.profile, dict(config.table.rules))
        except Exception as error:  # validated with the config; a file may have changed since
            raise DaemonError(f"the profile cannot be loaded: {error}") from error
        self.journal = self._open_journal()
        self._closers.append(self.journal.close)
        table, replayed, answers = self.replay(self.journal, self.rules)
        self.service = TableService(table, self.journal,
                                    commit_batch=config.journal.commit_batch,
                                    recent_answers=answers)
        journal, rules = self.journal, self.rules
        if self.resume_after_journal_fault:
            self.service.retry = JournalRetry(self.service,
                                              lambda: self.replay(journal, rules)[0],
                                              clock=self.devices.clock)
        self.report = self._settle_interrupted_round(replayed)
        self._start_panel()
        self._start_shoe()
        self._start_api()
        self._start_camera()
        self._start_mqtt()
        return self.report

    def _open_journal(self) -> Journal:
        path = Path(self.config.journal.path)
        if not path.parent.exists():
            path.parent.mkdir(parents=True)
            log.info("made the journal's folder %s", path.parent)
        rules = dict(self.config.table.rules)
        try:
            journal = Journal(path, profile=self.config.table.profile, rules=rules)
        except JournalError as error:
            raise DaemonError(str(error)) from error
        if journal.migrated_from is not None:
            log.info("the journal %s was brought from schema version %d to %d", path,
                     journal.migrated_from, journal.schema_version)
        if journal.rules != json.loads(json.dumps(rules)):
            journal.close()
            raise DaemonError(
                f"{path} was written with the rule overrides {journal.rules}, but the "
                f"config gives {rules}; keep the journal's rules, or start a new journal "
                "file for the new ones (its rounds would replay differently)"
            )
        return journal

    @staticmethod
    def replay(journal: JournalReader, rules: Rules, upto_seq: int | None = None
                ) -> tuple[Table, int, deque[tuple[RefKey, Outcome]]]:
        """The table rebuilt from the journal (its events up to `upto_seq`, if
        given), how many events, and the newest referenced events' outcomes
        (what a repeated call is answered)."""
        table = Table(rules, keep_rounds=KEEP_ROUNDS)
        answers = _Answers()
        count = replay(journal.events(), table, upto_seq=upto_seq, watcher=answers)
        return table, count, answers.recent

    def _settle_interrupted_round(self, replayed: int) -> StartReport:
        assert self.service is not None and self.rules is not None
        service = self.service
        table = service.table
        rounds = service.recorded_round
        interrupted = table.state in IN_ROUND or table.state == "halted"
        number = table.due().round if interrupted else None
        action = None
        if interrupted:
            action = self.rules.interrupted_round
            if action == "void":
                service.process([Submission({"resolve": "void"}, "daemon")])
            log.warning("round %s was interrupted by a stop: %s (profile rule "
                        "interrupted_round)", number, "voided, every bet returned"
                        if action == "void" else "it resumes where it stopped")
        return StartReport(replayed, rounds, number, action)

    def _start_panel(self) -> None:
        assert self.service is not None
        if self.panel is None:
            # Without lamps (GPIOZERO_PIN_FACTORY=mock): mock pins that can dim (the
            # RGB boxes dim by PWM) and forget old changes (gpiozero's keep them all).
            if os.environ.get("GPIOZERO_PIN_FACTORY") == "mock":
                self.mock_pins = mock_factory(pwm=True)
            try:
                self.panel = Panel(parse_pin_map(dict(self.config.panel)),
                                   pin_factory=self.mock_pins)
            except Exception as error:
                raise DaemonError(
                    f"the lamp panel cannot be driven: {error or type(error).__name__}. "
                    "On a Raspberry Pi check the "
                    "pin factory (GPIOZERO_PIN_FACTORY=lgpio on a Pi 5) and that the user is "
                    "in the gpio group; without lamps, set GPIOZERO_PIN_FACTORY=mock"
                ) from error
        panel = self.panel
        self._closers.append(panel.close)
        self.service.on_change(self._show_lamps)
        panel.on_button(self._on_button)
        self._show_lamps(self.service)

    def _show_lamps(self, service: TableService) -> None:
        if self.panel is None:
            return
        snapshot = service.snapshot
        picture = lamp_picture(snapshot.view, snapshot.due, shoe_online=snapshot.shoe_online,
                               journal_fault=snapshot.journal_fault is not None)
        self.panel.apply(self._wired_only(picture))

    def _wired_only(self, picture: LampPicture) -> LampPicture:
        assert self.panel is not None
        wired = set(self.panel.wired_boxes)
        boxes = list(picture.boxes)
        for number, state in enumerate(picture.boxes, start=1):
            if number not in wired and state is not BoxLamp.OFF:
                boxes[number - 1] = BoxLamp.OFF
                if number not in self._unwired_warned:
                    self._unwired_warned.add(number)
                    log.warning("box %d is in play but has no lamp in [panel.boxes]", number)
        return replace(picture, boxes=tuple(boxes))

    def _on_button(self, press: ButtonPress) -> None:
        assert self.service is not None
        name = press.name

        def meaning(table: Table) -> list[dict[str, Any]]:
            result = button_event(name, table.due())
            if result.event is None:
                log.info("button %s", result.note)
                return []
            return [result.event]

        self.service.submit(Submission(None, "button", derive=meaning))

    def _start_shoe(self) -> None:
        assert self.service is not None
        shoe = self.config.shoe
        if shoe.driver == "none" or shoe.port is None:
            return
        self.shoe = ShoeFeed(self.service, shoe.driver, shoe.port, baudrate=shoe.baudrate,
                             fresh_shoe=self.devices.fresh_shoe,
                             open_shoe_link=self.devices.shoe_link)
        self.shoe.start()
        self._closers.append(self.shoe.stop)

    def _start_api(self) -> None:
        assert self.service is not None
        api = self.config.api
        if not api.enabled:
            return
        ssl_context = None
        if api.tls_cert is not None and api.tls_key is not None:
            ssl_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            try:
                ssl_context.load_cert_chain(api.tls_cert, api.tls_key)
            except (OSError, ssl.SSLError) as error:
                raise DaemonError(f"[api] tls_cert/tls_key cannot be used: {error}") from error
        elif api.host not in LOOPBACK:
            log.warning("the local API listens on %s without TLS ([api] insecure_bind = "
                        "true): logins and tokens cross the network in clear", api.host)
        rules = self.service.table.rules
        amounts = AmountLimits(rules.min_bet, rules.max_box_total or api.max_amount)
        try:
            self.api = ApiServer(self.service, api.host, api.port, camera=self.camera_status,
                                 auth=self.auth, amounts=amounts, ssl_context=ssl_context,
                                 journal_path=self.config.journal.path,
                                 relearn=self._relearn_deck if self._learns_deck() else None)
        except OSError as error:
            raise DaemonError(
                f"the local API cannot listen on {api.host}:{api.port} ({error.strerror}); "
                "is another tablectl running? Change [api] port or stop the other one"
            ) from error
        self.api.start()
        self._closers.append(self.api.stop)

    def _start_camera(self) -> None:
        if self.config.camera is None:
            return
        # The camera pulls in OpenCV: imported only for a table that has one.
        from tablectl.camera_start import start_camera

        assert self.service is not None
        try:
            self.camera = start_camera(self.config, self.service,
                                       with_shoe=self.shoe is not None,
                                       source=self.devices.camera,
                                       clock=self.devices.clock)
        except Exception as error:  # a bad layout file or a missing model: fix the config
            raise DaemonError(f"the camera cannot start: {error}") from error
        self._closers.append(self.camera.stop)

    def _start_mqtt(self) -> None:
        if self.config.mqtt is None:
            return
        # paho is imported only for a table that publishes.
        from tablectl.mqtt.service_link import PublisherError, start_publisher

        assert self.service is not None
        try:
            self.publisher = start_publisher(self.config.mqtt, self.config.journal.path,
                                             self.service)
        except PublisherError as error:
            raise DaemonError(f"the MQTT publisher cannot start: {error}") from error
        self._closers.append(self.publisher.stop)
        if self.config.mqtt.floor_url is not None and self.api is not None:
            from tablectl.mqtt.floor_panel import FloorPanel

            self.api.display.floor = FloorPanel(self.config.mqtt.floor_url,
                                                self.config.mqtt.table)

    def camera_status(self) -> dict[str, Any] | None:
        """The camera's role and health for /state and /health; None without a camera."""
        if self.config.camera is None:
            return None
        role = "witness" if self.shoe is not None else "source"
        feed = self.camera
        if feed is None:  # open() starts the API just before the camera
            return {"role": role, "state": "ok", "reason": None, "last_frame_age_s": None,
                    "last_problem": "the camera is starting"}
        status: dict[str, Any] = {"role": role, **feed.health.report().to_json()}
        stats = feed.stats()
        status.update(frames=stats.frames, bad_frames=stats.bad_frames,
                      source_errors=stats.source_errors, detect_errors=stats.detect_errors,
                      index_px=stats.to_json()["index_px_p50"])
        if feed.doubt is not None:
            status["doubted"] = stats.doubted
            status["reclaimed"] = stats.reclaimed
        if feed.learning is not None:
            status["house_deck"] = feed.learning.status()
        return status

    def _learns_deck(self) -> bool:
        camera = self.config.camera
        return camera is not None and camera.learn_house_deck and self.shoe is not None

    def _relearn_deck(self) -> dict[str, Any] | None:
        """The pit's call: learn the house deck afresh (the API's thread); None while
        the camera is not started yet."""
        feed = self.camera
        if feed is None or feed.learning is None:
            return None
        feed.learning.restart()
        return feed.learning.status()

    # -- run and stop -------------------------------------------------------------------

    def run(self) -> None:
        """Own the calling thread until `stop()`."""
        assert self.service is not None, "open() first"
        self.service.run()

    def run_in_thread(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, name="table-loop", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        if self.service is not None:
            self.service.stop()

    def close(self) -> None:
        """Stop the devices, turn the lamps off and close the journal (last).
        A second call does nothing."""
        if self._closed:
            return
        self._closed = True
        self.stop()
        if self.service is not None and self.service.running:
            self.service.wait_stopped(5.0)
        if self.panel is not None:
            try:
                self.panel.apply(LampPicture())
            except Exception:  # closing must go on whatever the lamps do
                log.exception("the lamps could not be turned off")
        while self._closers:
            closer = self._closers.pop()
            try:
                closer()
            except Exception:
                log.exception("closing %r failed", closer)
