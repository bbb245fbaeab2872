"""A camera that stops delivering usable frames: the daemon keeps running, reports the
camera degraded on /state and /health with the reason, stores every shoe event, and
recovers by itself when frames come back.

The daemon runs on the whole stack: a virtual ShoeLink shoe on a pty, the local API on
a free port, a real SQLite journal. Its camera is a source object injected at the
device interface (`Daemon(config, Devices(camera=...))`) that hands out the still images
of a folder (through `vision.sources`) until it is told to fail in one of the ways a
real camera does.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from hwsim.camera import table_frames
from hwsim.dealer import VirtualShoeCards
from hwsim.panel import MockPanel
from hwsim.shoe import ShoeTiming, VirtualShoe

from journal import JournalReader
from tablectl.config import parse_config
from tablectl.daemon import Daemon
from tablectl.devices import Devices
from tablectl.sim import SIM_PIN_MAP
from tests.tablectl.helpers import Signal, wait_watched
from tests.tablectl.http_calls import bearer, call
from vision.sources import open_source

TIMEOUT_S = 0.5  # [camera] timeout: no usable frame for this long is degraded
WAIT_S = 30.0  # generous: the feed backs off up to 10 s between failed reads
CARDS = ["9C", "7S", "5H", "KD", "AH"]


class CameraRig:
    """A camera whose frames come from a folder of stills, looping, until `fail` says
    how it misbehaves: "none" (no frame), "raise", "black", "garbage", "hang"."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.mode = "frames"
        self._released = threading.Event()
        self._stills = open_source(str(folder))

    def read(self) -> Any:
        mode = self.mode
        if mode == "none":
            return None
        if mode == "raise":
            raise OSError("the camera went away (USB reset)")
        if mode == "black":
            return np.zeros((720, 1280, 3), np.uint8)
        if mode == "garbage":
            return np.frombuffer(b"\x00garbage" * 64, np.uint8)
        if mode == "hang":
            self._released.wait()
        frame = self._stills.read()
        if frame is None:  # the folder's end: from the first still again
            self._stills = open_source(str(self.folder))
            frame = self._stills.read()
        return frame

    def fail(self, mode: str) -> None:
        self._released.clear()
        self.mode = mode

    def recover(self) -> None:
        self.mode = "frames"
        self._released.set()

    def close(self) -> None:
        self._released.set()


class RunningDaemon:
    def __init__(self, daemon: Daemon, camera: CameraRig, journal: Path,
                 shoe: VirtualShoe | None) -> None:
        self.daemon, self.camera, self.journal, self.shoe = daemon, camera, journal, shoe
        # Woken when the camera's health changes, ok to degraded or back.
        self.health_changed = Signal()
        daemon.camera.health.watchers.add(self.health_changed.notify)
        self.thread = daemon.run_in_thread()

    def wait_camera(self, state: str, what: str) -> None:
        self.health_changed.wait_until(lambda: self.camera_state() == state, what, WAIT_S)

    def get(self, path: str) -> tuple[int, dict[str, Any]]:
        assert self.daemon.api is not None
        answer = call(self.daemon.api.address, "GET", path)
        return answer.status, answer.body

    def post(self, event: dict[str, Any]) -> dict[str, Any]:
        assert self.daemon.api is not None
        token = self.daemon.auth.issue_token("terminal", "device")
        answer: dict[str, Any] = call(self.daemon.api.address, "POST", "/events",
                                      {"event": event}, bearer(token)).body
        return answer

    def camera_state(self) -> str:
        return str(self.get("/state")[1]["camera"]["state"])

    def stored(self) -> list[dict[str, Any]]:
        with JournalReader(self.journal) as reader:
            return [e.event for e in reader.events()]


def _stills(folder: Path) -> Path:
    folder.mkdir()
    for k, table in enumerate(({}, {"dealer": ["QS"]})):
        image, _layout = table_frames.render_table_frame(table, seed=k)
        cv2.imwrite(str(folder / f"frame{k}.png"), image)
    return folder


@pytest.fixture
def rig(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunningDaemon]:
    """A running daemon; `indirect` parameter True: with the shoe, False: camera only."""
    with_shoe = bool(getattr(request, "param", True))
    layout = tmp_path / "layout.json"
    layout.write_text(json.dumps(table_frames.table_layout()), encoding="utf-8")
    camera = CameraRig(_stills(tmp_path / "stills"))
    raw: dict[str, Any] = {
        "table": {"profile": "casinos-austria"},
        "shoe": {"driver": "none"},
        "journal": {"path": str(tmp_path / "journal.sqlite")},
        "api": {"enabled": True, "port": 0},
        "camera": {"source": str(tmp_path / "stills"), "layout": str(layout), "fps": 20,
                   "timeout": TIMEOUT_S},
    }
    shoe = None
    if with_shoe:
        shoe = VirtualShoe(CARDS, dealer_paced=True, link_path=tmp_path / "virtual-shoe",
                           timing=ShoeTiming(resend_interval_s=0.1, heartbeat_interval_s=0.05))
        raw["shoe"] = {"driver": "shoelink", "port": str(tmp_path / "virtual-shoe")}
        shoe.start()
    panel = MockPanel(SIM_PIN_MAP)
    daemon = Daemon(parse_config(raw, "<test>"), Devices(panel=panel.panel, camera=camera))
    try:
        daemon.open()
        yield RunningDaemon(daemon, camera, tmp_path / "journal.sqlite", shoe)
    finally:
        camera.close()
        daemon.close()
        if shoe is not None:
            shoe.stop()
        panel.close()


EXPECTED_REASON = {
    "none": "no frame",
    "raise": "USB reset",
    "black": "black",
    "garbage": "not a 3-channel colour picture",
    "hang": "has not returned",
}


@pytest.mark.parametrize("mode", sorted(EXPECTED_REASON))
def test_a_failing_witness_camera_is_degraded_while_the_shoe_deals_on(
        rig: RunningDaemon, mode: str) -> None:
    rig.wait_camera("ok", "the camera's first frames")
    status, health = rig.get("/health")
    assert (status, health["ok"], health["status"]) == (200, True, "ok")
    assert health["camera"]["role"] == "witness"
    # The stills' queen of spades is read: the size of its index is shown, in the range
    # of glyph sizes the finder takes (5 to 40 px glyphs, their centres nearer still).
    deadline = time.monotonic() + WAIT_S
    while rig.get("/state")[1]["camera"]["index_px"] is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert 5.0 < rig.get("/state")[1]["camera"]["index_px"] < 40.0

    rig.camera.fail(mode)
    rig.wait_camera("degraded", f"the camera degraded ({mode})")
    status, health = rig.get("/health")
    # The shoe is the card source: the table plays on, and /health says what is wrong.
    assert (status, health["ok"], health["status"]) == (200, True, "degraded")
    assert EXPECTED_REASON[mode] in health["camera"]["reason"]
    assert "witness" in health["reason"] and EXPECTED_REASON[mode] in health["reason"]
    state = rig.get("/state")[1]
    assert state["camera"]["state"] == "degraded"
    assert EXPECTED_REASON[mode] in state["camera"]["reason"]

    # A round is dealt from the shoe meanwhile: every event is stored.
    for box, amount in ((1, 10), (2, 20)):
        assert rig.post({"bet": {"box": box, "amount": amount}})["accepted"] is True
    assert rig.post({"deal": {}})["accepted"] is True
    assert rig.shoe is not None
    cards = VirtualShoeCards(rig.shoe)
    for _ in range(3):
        cards.draw()
        assert cards.wait_delivered(15.0)
    stored = rig.stored()
    assert [e["card"] for e in stored if "card" in e] == CARDS[:3]
    assert rig.daemon.service is not None and rig.daemon.service.running
    assert rig.thread.is_alive()

    rig.camera.recover()
    rig.wait_camera("ok", f"the camera back after {mode}")
    status, health = rig.get("/health")
    assert (status, health["ok"], health["status"]) == (200, True, "ok")
    assert rig.get("/state")[1]["camera"]["reason"] is None


@pytest.mark.parametrize("rig", [False], indirect=True)
def test_a_camera_that_is_the_only_card_source_makes_health_503(rig: RunningDaemon) -> None:
    rig.wait_camera("ok", "the camera's first frames")
    assert rig.get("/health")[0] == 200
    rig.camera.fail("black")
    rig.wait_camera("degraded", "the camera degraded")
    status, health = rig.get("/health")
    assert (status, health["ok"], health["status"]) == (503, False, "degraded")
    assert health["camera"]["role"] == "source" and "black" in health["reason"]
    assert "only card source" in health["reason"]
    # The API still takes bets meanwhile.
    assert rig.post({"bet": {"box": 1, "amount": 10}})["accepted"] is True
    rig.camera.recover()
    rig.wait_camera("ok", "the camera back")
    assert rig.get("/health")[0] == 200


# -- the pieces -----------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_health_goes_degraded_after_the_timeout_and_back_with_a_usable_frame() -> None:
    from tablectl.camera_health import CameraHealth

    clock = Clock()
    health = CameraHealth(timeout_s=2.0, clock=clock)
    assert health.report().state == "ok"  # just started
    clock.now += 2.5
    report = health.report()
    assert report.state == "degraded" and "since the camera started" in report.reason
    health.good_frame()
    assert health.report().state == "ok" and health.report().last_frame_age_s == 0.0
    health.bad("no frame (OSError: gone)")
    clock.now += 1.0
    assert health.report().state == "ok"  # a problem shorter than the timeout
    clock.now += 1.5
    report = health.report()
    assert report.state == "degraded" and "OSError: gone" in report.reason
    health.reading(True)  # a read that never returns
    clock.now += 3.0
    assert "has not returned for 3 s" in health.report().reason


def test_a_read_hanging_since_just_after_the_last_frame_is_named_as_the_reason() -> None:
    from tablectl.camera_health import CameraHealth

    clock = Clock()
    health = CameraHealth(timeout_s=2.0, clock=clock)
    health.good_frame()
    clock.now += 0.1
    health.reading(True)  # the next read starts a moment later and never returns
    clock.now += 2.0  # 2.1 s since the frame, 2.0 s into the read: degraded now
    report = health.report()
    assert report.state == "degraded"
    assert "has not returned for 2 s" in report.reason
    health.reading(False)
    health.reading(True)  # a read that has only just begun is no hang
    clock.now += 0.2
    assert "delivers nothing" in health.report().reason


def test_black_and_garbage_frames_never_reach_the_recognizer() -> None:
    from tablectl.camera_feed import CameraFeed

    class Recognizer:
        calls = 0

        def detect(self, frame: Any, layout: Any = None) -> list[Any]:
            self.calls += 1
            return []

    frames = [np.zeros((720, 1280, 3), np.uint8), b"garbage", np.full((64, 64, 3), 128,
                                                                       np.uint8)]

    class Source:
        reads = 0

        def read(self) -> Any:
            self.reads += 1
            return frames[self.reads % len(frames)]

        def close(self) -> None:
            pass

    recognizer, source = Recognizer(), Source()
    feed = CameraFeed(source, recognizer, None, lambda event: None, fps=200.0).start()
    try:
        wait_watched(feed.watchers, lambda: feed.stats().bad_frames >= 9, "bad frames skipped")
    finally:
        feed.stop()
    assert recognizer.calls == 0 and feed.stats().frames == 0
    assert feed.health.report().problem is not None


def test_the_camera_timeout_is_checked_with_the_config() -> None:
    from tablectl.config import ConfigError

    raw: dict[str, Any] = {"shoe": {"driver": "none"},
                           "camera": {"source": 0, "layout": "layout.json", "timeout": 0}}
    with pytest.raises(ConfigError) as refused:
        parse_config(raw, "<test>")
    assert any("timeout" in problem for problem in refused.value.problems)
    raw["camera"]["timeout"] = 2.5
    config = parse_config(raw, "<test>")
    assert config.camera is not None and config.camera.timeout == 2.5


def test_a_table_that_does_not_learn_its_deck_says_so_to_the_pit(rig: RunningDaemon) -> None:
    assert rig.daemon.api is not None
    pit = bearer(rig.daemon.auth.issue_token("pit-1", "pit"))
    answer = call(rig.daemon.api.address, "POST", "/camera/house-deck/relearn", {}, pit)
    assert answer.status == 409
    assert "learn_house_deck = true" in answer.body["error"]
    assert "house_deck" not in rig.get("/state")[1]["camera"]
