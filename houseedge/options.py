"""`--option key=value` arguments: parsed as TOML values, validated by the profile."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from typing import Any

from table.profiles import ProfileError, Rules, load_profile


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """'decks=8', 'dealer_hits_soft_17=true', 'blackjack_pays=6:5' -> overrides."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ProfileError("--option", item, "write key=value, e.g. decks=8")
        text = text.strip()
        try:
            value: Any = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:
            value = text
        out[key] = value
    return out


def profile_with_options(name: str, items: Sequence[str]) -> Rules:
    """The profile with its options applied; ProfileError names the key and what is allowed."""
    return load_profile(name, parse_options(items) or None)
