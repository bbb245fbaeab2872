"""Watchers: a component tells them of a change on its thread; a waiter blocks until
its condition holds, woken by the changes, never looking again on a timer."""

from __future__ import annotations

import logging
import threading

import pytest

from tablectl.watchers import Wakeup, Watchers


def test_every_watcher_hears_each_change_and_one_that_raises_stops_none(
        caplog: pytest.LogCaptureFixture) -> None:
    watchers = Watchers()
    heard: list[str] = []

    def broken() -> None:
        raise RuntimeError("a broken status page")

    watchers.add(lambda: heard.append("first"))
    watchers.add(broken)
    watchers.add(lambda: heard.append("last"))
    with caplog.at_level(logging.ERROR):
        watchers()
        watchers()
    assert heard == ["first", "last", "first", "last"]
    assert caplog.text.count("a watcher failed") == 2


def test_a_wait_ends_at_the_change_that_makes_its_condition_hold() -> None:
    watchers = Watchers()
    count = [0]

    def component() -> None:
        for _ in range(3):
            count[0] += 1
            watchers()

    result: list[bool] = []
    waiter = threading.Thread(target=lambda: result.append(
        watchers.wait_until(lambda: count[0] >= 3, 30.0)))
    waiter.start()
    threading.Thread(target=component).start()
    waiter.join(30.0)
    assert result == [True]
    assert watchers._watchers == []  # the waiter's own watcher is gone again


def test_a_wait_whose_condition_never_holds_says_so_and_leaves_no_watcher() -> None:
    watchers = Watchers()
    assert watchers.wait_until(lambda: False, 0.01) is False
    assert watchers._watchers == []


def test_a_notification_while_the_condition_is_looked_at_is_not_lost() -> None:
    wakeup = Wakeup()
    looks = [0]

    def condition() -> bool:
        looks[0] += 1
        if looks[0] == 1:
            wakeup.notify()  # the change comes between the look and the wait
            return False
        return True

    assert wakeup.wait(condition, 30.0) is True
    assert looks[0] == 2
