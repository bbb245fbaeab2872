"""Waiting on the page in a browser: woken by the page's own DOM changes.

A `MutationObserver` in the page counts every change of its document; a wait looks
at its condition, and while it does not hold blocks in the page (an asynchronous
script) until the count moves past what it saw before it looked, so no change is
missed and nothing is looked at again on a timer. A new document (after a
navigation) starts its count at once and is looked at straight away.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from selenium.common.exceptions import (
    NoSuchElementException,
    StaleElementReferenceException,
    TimeoutException,
    WebDriverException,
)

# Answers the page's count of DOM changes once it differs from `seen` (at once if it
# does already, or for a document not watched yet), or after `timeout_ms`.
_NEXT_CHANGE = """
const [seen, timeoutMs, done] = arguments;
if (window.__domChanges === undefined) {
  window.__domChanges = 0;
  window.__domWaiters = [];
  new MutationObserver(() => {
    window.__domChanges += 1;
    window.__domWaiters.splice(0).forEach((wake) => wake());
  }).observe(document, {subtree: true, childList: true, characterData: true,
                        attributes: true});
  done(-1);
  return;
}
if (window.__domChanges !== seen) {
  done(window.__domChanges);
  return;
}
const timer = setTimeout(() => done(window.__domChanges), timeoutMs);
window.__domWaiters.push(() => { clearTimeout(timer); done(window.__domChanges); });
"""


def _changes_after(driver: Any, seen: int, timeout_s: float) -> int:
    try:
        return int(driver.execute_async_script(_NEXT_CHANGE, seen, int(timeout_s * 1000)))
    except WebDriverException:  # the page navigated away while the script waited
        return -1


def wait_in_page(driver: Any, condition: Callable[[Any], Any], what: str,
                 timeout_s: float) -> Any:
    """The condition's first true answer; a `TimeoutException` naming `what` after
    `timeout_s`. A condition that finds no element (yet, or any more) is false."""
    driver.set_script_timeout(timeout_s + 10.0)
    deadline = time.monotonic() + timeout_s
    seen = _changes_after(driver, -2, 0)  # the count now (and the observer in place)
    while True:
        try:
            answer = condition(driver)
        except (NoSuchElementException, StaleElementReferenceException):
            answer = None
        if answer:
            return answer
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutException(what)
        seen = _changes_after(driver, seen, left)
