"""The floor's request on `tablectl/v1/<table>/resend`: which range to publish again."""

from __future__ import annotations

import json

from tablectl.mqtt import topics

MAX_RESEND = 10_000  # events (or rounds) one request may ask for


def parse_request(payload: bytes | bytearray) -> list[tuple[str, int, int]]:
    """`{"v": 1, "events": [first, last]}` and/or `"rounds"`: [(kind, first, last)],
    kind "e" or "r", at most MAX_RESEND each. ValueError says what is wrong."""
    doc = json.loads(payload)
    if not isinstance(doc, dict) or doc.get("v") != topics.VERSION:
        raise ValueError("not a version 1 request")
    wanted = []
    for kind, key in (("e", "events"), ("r", "rounds")):
        span = doc.get(key)
        if span is None:
            continue
        if (not isinstance(span, list) or len(span) != 2 or not all(
                isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in span)
                or span[1] < span[0]):
            raise ValueError(f"{key} must be [first, last]")
        wanted.append((kind, span[0], min(span[1], span[0] + MAX_RESEND - 1)))
    return wanted
