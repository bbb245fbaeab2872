"""What the local API takes: body size, JSON depth, ids and amounts; and a bounded
record of what it refused.

The checks run before anything reaches the table: a call that fails one is
answered with the reason and nothing of it is applied or journaled. Refused
calls are logged, at most `RefusalLog.per_minute` lines a minute (with a count of
those left out), so a flood of bad calls cannot fill the disk.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("tablectl.api.refused")

MAX_BODY = 16 * 1024  # a table event is well under 1 KiB
MAX_DEPTH = 6  # {"event": {"bet": {...}}} is 3 deep
MAX_ID = 200
DEFAULT_MAX_AMOUNT = 1_000_000  # without a box limit in the profile


class BadInput(Exception):
    """A call the API does not take: `status` and the message for the caller."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def json_depth_exceeds(raw: bytes, limit: int) -> bool:
    """Whether brackets nest deeper than `limit` (outside strings): checked before
    parsing, so a deeply nested body never reaches the parser's recursion."""
    depth = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x7B, 0x5B):  # { [
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x7D, 0x5D):
            depth -= 1
    return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_call(raw: bytes) -> tuple[dict[str, Any], str | None]:
    """The event and id of a POST /events body; `BadInput` says what is wrong."""
    if not raw:
        raise BadInput(400, 'send a JSON body: {"event": {...}, "id": "..."}')
    if json_depth_exceeds(raw, MAX_DEPTH):
        raise BadInput(400, f"the body nests deeper than {MAX_DEPTH} levels; a table "
                       'event is {"event": {"bet": {"box": 1, "amount": 100}}, "id": "..."}')
    try:
        body = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError) as error:
        raise BadInput(400, f"the body is not JSON: {error}") from None
    if not isinstance(body, dict) or not isinstance(body.get("event"), dict):
        raise BadInput(400, 'expected {"event": {...}, "id": "..."} with a scenario event, '
                       'e.g. {"event": {"bet": {"box": 1, "amount": 100}}}')
    unknown = sorted(set(body) - {"event", "id"})
    if unknown:
        raise BadInput(400, f"unknown key(s) {unknown}; a call has \"event\" and \"id\"")
    ref = body.get("id")
    if ref is not None and (not isinstance(ref, str) or not ref or len(ref) > MAX_ID):
        raise BadInput(400, f"id must be a text of 1 to {MAX_ID} characters")
    return body["event"], ref


@dataclass(frozen=True)
class AmountLimits:
    """Whole units a bet or a decision's amount may be: from the profile's minimum
    to its box limit (or `[api] max_amount` where the profile sets none)."""

    minimum: int
    maximum: int

    def check(self, event: dict[str, Any]) -> None:
        for kind in ("bet", "do"):
            body = event.get(kind)
            if isinstance(body, dict) and "amount" in body:
                self._check_amount(body["amount"], kind)

    def _check_amount(self, amount: Any, kind: str) -> None:
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise BadInput(422, f"{kind} amount must be a whole number of units, "
                           f"got {_short(amount)}")
        low = self.minimum if kind == "bet" else 1
        if not low <= amount <= self.maximum:
            raise BadInput(422, f"{kind} amount {_short(amount)} is outside this table's "
                           f"limits: {low} to {self.maximum} units")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 24 else f"{text[:12]}...({len(text)} characters)"


class RefusalLog:
    """Logs refused calls, at most `per_minute` a minute; counts the rest."""

    def __init__(self, per_minute: int = 60, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self.total = 0
        self._lock = threading.Lock()
        self._window_start = clock()
        self._logged = 0
        self._skipped = 0

    def note(self, status: int, who: str, what: str) -> None:
        now = self.clock()
        with self._lock:
            self.total += 1
            if now - self._window_start >= 60.0:
                if self._skipped:
                    log.warning("%d more refused calls in the last minute were not logged",
                                self._skipped)
                self._window_start, self._logged, self._skipped = now, 0, 0
            if self._logged >= self.per_minute:
                self._skipped += 1
                return
            self._logged += 1
        log.warning("refused %d from %s: %s", status, who, what[:200])
