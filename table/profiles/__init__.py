"""House rules as TOML profiles, validated into frozen `Rules` objects.

Every key a profile may set is a field of `Rules` with its type and allowed
values; an unknown key, a wrong type or an impossible combination is refused
with a `ProfileError` naming the file, the key and what is allowed.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from foundation.cards import RANKS
from table.cards import SHOE_KINDS
from table.sidebets import SIDE_BETS

RATIOS = ("1:2", "1:1", "6:5", "3:2", "2:1", "5:2", "3:1", "5:1")


class ProfileError(ValueError):
    """A profile that cannot be used, with the file, the key and what is allowed."""

    def __init__(self, source: str, key: str | None, message: str) -> None:
        self.source = source
        self.key = key
        where = f"{source}: key '{key}'" if key else source
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True, slots=True)
class Rules:
    """One table's house rules. Field comments say what each key means."""

    name: str
    description: str = ""
    # "casino": the house deals and draws by rule; "banker": British pontoon, a player banks.
    game: str = "casino"
    shoe: str = "standard"
    decks: int = 6
    max_boxes: int = 7
    # Players on one box (owner included); 0 = no limit.
    max_bettors_per_box: int = 0
    min_bet: int = 1
    # Highest total of the main bets on one box; 0 = no limit.
    max_box_total: int = 0
    # "none": European no-hole-card deal; "peek": hole card dealt after the boxes, checked.
    hole_card: str = "none"
    dealer_hits_soft_17: bool = False
    # "needed": the dealer draws only while an open bet depends on it; "always".
    dealer_plays_out: str = "needed"
    blackjack_pays: str = "3:2"
    # "push" or "lose": what a tie does to the player's bet.
    ties: str = "push"
    # A dealer natural against a player natural: "push" or "dealer" (the dealer's wins).
    natural_vs_natural: str = "push"
    # When a player's natural is paid: "end" of the round, "at_once", or at once
    # only when the dealer's first card is neither an ace nor ten-value ("unless_ace_or_ten").
    natural_paid: str = "end"
    # A player's 21 (not a natural) wins at once, whatever the dealer makes later.
    twenty_one_wins_at_once: bool = False
    dealer_blackjack_takes: str = "enhc"
    max_split_hands: int = 4
    # Ten-value cards split "value" (J+Q) or only the same "rank".
    split_by: str = "value"
    # Ranks that may be split at all ("A" for a split-aces-only table).
    split_ranks: str = RANKS
    resplit_aces: bool = False
    split_aces_one_card: bool = True
    # pontoon-british deals one card to each split hand at once.
    split_deals_both_hands: bool = False
    double_after_split: bool = True
    double_split_aces: bool = False
    # "two": only on the first two cards; "any": any number of cards.
    double_cards: str = "two"
    # "any" total, or only "9-11".
    double_totals: str = "any"
    # An ace in a hand being doubled counts one, before and after the double.
    double_ace_counts_one: bool = False
    hit_after_double: bool = False
    doubles_per_hand: int = 1
    double_down_rescue: bool = False
    # "none", "early" (settled at once) or "late" (waits for the dealer's second card).
    surrender: str = "none"
    # Ranks of the dealer's first card against which surrender is allowed.
    surrender_against: str = "23456789TJQK"
    surrender_first_decision_only: bool = False
    insurance: bool = True
    even_money: bool = True
    insure_naturals: bool = True
    # Co-bettors / bets behind on a split: "follow" (always), "ask" (only on `follow`),
    # "may_decline" (follow unless they `decline`).
    co_bettor_split: str = "follow"
    # On a double: "ask" (only on `follow`) or "never".
    co_bettor_double: str = "ask"
    co_bettor_surrender: bool = False
    owner_even_money_carries: bool = False
    # "none" or "hit_to_12": a `timeout` plays the hand (hit while 11 or less, then stand).
    decision_timeout: str = "none"
    # Pit resolutions allowed after a misdeal: "void" always; "accept" only when listed.
    misdeal_resolutions: tuple[str, ...] = ("void", "accept")
    # What the daemon does with a round interrupted by a crash: "resume" or "void".
    interrupted_round: str = "resume"
    side_bets: tuple[str, ...] = ()
    pair_pays: int = 11
    dealer_bust_pays: str = "5:2"
    sevens_min: int = 10
    sevens_max: int = 50
    sevens_step: int = 10
    # Three sevens in an unsplit hand: "none", "at_once_ends_box" (paid at once, box over),
    # "at_once_plays_on" (paid at once, the stake stays in play).
    triple_seven: str = "none"
    triple_seven_pays: str = "3:2"
    # A-spades + J-spades pays this at once and ends the box ("none" = no such bonus).
    bonus_blackjack_pays: str = "none"
    # Spanish-21 family bonuses on 21 (card count, 6-7-8 / 7-7-7, super and envy bonus).
    pontoon_bonuses: bool = False
    super_bonus_min_stake: int = 5
    super_bonus_small: int = 1000
    super_bonus_large: int = 5000
    super_bonus_large_from: int = 25
    envy_bonus: int = 50
    # Prize combinations of sevens on the main bet, stake plays on (ru-casino).
    sevens_prizes: bool = False
    # British pontoon (game = "banker").
    stick_minimum: int = 15
    # Three 7s is a royal pontoon, paid treble (an option of the British game).
    royal_pontoon: bool = False
    max_hand_cards: int = 0
    banker_trick_collects: int = 1
    # The cards go back to the pack after each round: the inventory is per round.
    inventory_per_round: bool = False
    payout_rounding: str = "down"

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        for key, value in out.items():
            if isinstance(value, tuple):
                out[key] = list(value)
        return out


_CHOICES: dict[str, tuple[Any, ...]] = {
    "game": ("casino", "banker"),
    "shoe": SHOE_KINDS,
    "hole_card": ("none", "peek"),
    "dealer_plays_out": ("needed", "always"),
    "blackjack_pays": ("3:2", "6:5", "2:1"),
    "ties": ("push", "lose"),
    "natural_vs_natural": ("push", "dealer"),
    "natural_paid": ("end", "at_once", "unless_ace_or_ten"),
    "dealer_blackjack_takes": ("obo", "bb+1", "obbo", "enhc"),
    "split_by": ("value", "rank"),
    "double_cards": ("two", "any"),
    "double_totals": ("any", "9-11"),
    "surrender": ("none", "early", "late"),
    "co_bettor_split": ("follow", "ask", "may_decline"),
    "co_bettor_double": ("ask", "never"),
    "decision_timeout": ("none", "hit_to_12"),
    "interrupted_round": ("resume", "void"),
    "dealer_bust_pays": RATIOS,
    "triple_seven": ("none", "at_once_ends_box", "at_once_plays_on"),
    "triple_seven_pays": RATIOS,
    "bonus_blackjack_pays": ("none",) + RATIOS,
    "banker_trick_collects": (1, 2),
    "payout_rounding": ("down",),
}
_LIST_CHOICES: dict[str, tuple[str, ...]] = {
    "misdeal_resolutions": ("void", "accept"),
    "side_bets": tuple(SIDE_BETS),
}
_RANGES: dict[str, tuple[int, int]] = {
    "decks": (1, 8),
    "max_boxes": (1, 7),
    "max_bettors_per_box": (0, 20),
    "min_bet": (1, 10**9),
    "max_box_total": (0, 10**12),
    "max_split_hands": (1, 4),
    "doubles_per_hand": (1, 4),
    "pair_pays": (1, 100),
    "stick_minimum": (1, 21),
    "max_hand_cards": (0, 11),
    "sevens_min": (1, 10**9),
    "sevens_max": (1, 10**9),
    "sevens_step": (1, 10**9),
    "super_bonus_min_stake": (1, 10**9),
    "super_bonus_small": (0, 10**9),
    "super_bonus_large": (0, 10**9),
    "super_bonus_large_from": (1, 10**9),
    "envy_bonus": (0, 10**9),
}
# Keys a game fixes: the value it needs and the reason a profile is told.
_GAME_FIXES: dict[str, dict[str, tuple[Any, str]]] = {
    "casino": {"royal_pontoon": (False, "the royal pontoon belongs to the banker game")},
    "banker": {
        "hole_card": ("none", "the banker game has no hole card check; use 'none'"),
        "decision_timeout": ("none", "the banker game has no decision timer; use 'none'"),
    },
}
_FIELDS = {field.name: field for field in dataclasses.fields(Rules)}


def _type_name(kind: Any) -> str:
    return {bool: "true or false", int: "an integer", str: "a string"}.get(kind, "a list")


def _check_value(source: str, key: str, value: Any) -> Any:
    field = _FIELDS[key]
    default = field.default
    expected: Any = type(default) if default is not dataclasses.MISSING else str
    if expected is tuple:
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise ProfileError(source, key, f"expected a list of strings, got {value!r}")
        allowed = _LIST_CHOICES[key]
        for item in value:
            if item not in allowed:
                raise ProfileError(
                    source, key, f"{item!r} is not allowed; use any of {', '.join(allowed)}"
                )
        return tuple(value)
    if expected is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ProfileError(source, key, f"expected {_type_name(int)}, got {value!r}")
    if expected is not int and not isinstance(value, expected):
        raise ProfileError(source, key, f"expected {_type_name(expected)}, got {value!r}")
    if key in _CHOICES and value not in _CHOICES[key]:
        allowed_text = ", ".join(repr(c) for c in _CHOICES[key])
        raise ProfileError(source, key, f"{value!r} is not allowed; use one of {allowed_text}")
    if key in _RANGES:
        low, high = _RANGES[key]
        if not low <= value <= high:
            raise ProfileError(source, key, f"{value} is out of range; use {low} to {high}")
    if key == "split_ranks" and (not value or not set(value) <= set(RANKS)):
        raise ProfileError(source, key, f"use ranks from '{RANKS}', e.g. 'A' for aces only")
    if key == "surrender_against" and not set(value) <= set(RANKS):
        raise ProfileError(source, key, f"use dealer ranks from '{RANKS}', e.g. '23456789'")
    return value


def _check_combination(source: str, rules: Rules) -> None:
    def refuse(key: str, message: str) -> None:
        raise ProfileError(source, key, message)

    if rules.split_aces_one_card is False and rules.resplit_aces:
        refuse("resplit_aces", "resplitting aces belongs with split_aces_one_card = true")
    for key, (needed, message) in _GAME_FIXES[rules.game].items():
        if getattr(rules, key) != needed:
            refuse(key, message)
    for spot in rules.side_bets:
        if rules.game not in SIDE_BETS[spot].games:
            refuse("side_bets", f"the {rules.game} game has no {spot} bet; offered in: "
                   f"{', '.join(SIDE_BETS[spot].games)}")
    if rules.surrender != "none" and not rules.surrender_against:
        refuse("surrender_against", "surrender is on, so name at least one dealer rank")
    if rules.shoe == "spanish" and "T" in rules.surrender_against:
        refuse("surrender_against", "a Spanish shoe holds no 10s; leave 'T' out")
    if rules.bonus_blackjack_pays != "none" and rules.blackjack_pays == "3:2":
        refuse("bonus_blackjack_pays", "the Bonus Black Jack belongs to 6:5 tables only")
    if "void" not in rules.misdeal_resolutions:
        refuse("misdeal_resolutions", "'void' must always be allowed")
    if rules.sevens_min > rules.sevens_max:
        refuse("sevens_min", f"must not exceed sevens_max ({rules.sevens_max})")
    if rules.hit_after_double and rules.double_cards == "two":
        refuse("hit_after_double", "hitting after a double needs double_cards = 'any'")


def rules_from_mapping(data: Mapping[str, Any], source: str) -> Rules:
    """Validate a mapping of profile keys into a frozen `Rules`."""
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in _FIELDS:
            allowed = ", ".join(sorted(_FIELDS))
            raise ProfileError(
                source, key, f"unknown key; the keys a profile may set are: {allowed}"
            )
        values[key] = _check_value(source, key, value)
    if "name" not in values:
        raise ProfileError(source, "name", "missing; every profile names itself")
    rules = Rules(**values)
    _check_combination(source, rules)
    return rules


def _shipped_dir() -> resources.abc.Traversable:
    return resources.files("table.profiles")


def list_profiles() -> list[str]:
    """Names of the profiles shipped with the package, sorted."""
    names = [
        entry.name[: -len(".toml")]
        for entry in _shipped_dir().iterdir()
        if entry.name.endswith(".toml")
    ]
    return sorted(names)


def _read_toml(text: str, source: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(source, None, f"not valid TOML: {exc}") from exc


def load_profile(name: str, overrides: Mapping[str, Any] | None = None) -> Rules:
    """A shipped profile by name, or a profile TOML file by path; `overrides` on top."""
    path = Path(name)
    if name.endswith(".toml") or path.is_file():
        if not path.is_file():
            raise ProfileError(name, None, "no such profile file")
        source = str(path)
        data = _read_toml(path.read_text(encoding="utf-8"), source)
    else:
        entry = _shipped_dir().joinpath(f"{name}.toml")
        source = f"profile '{name}'"
        if not entry.is_file():
            raise ProfileError(
                source, None, f"no such profile; the shipped ones are: {', '.join(list_profiles())}"
            )
        data = _read_toml(entry.read_text(encoding="utf-8"), f"{name}.toml")
        source = f"{name}.toml"
    if overrides:
        merged = dict(data)
        for key, value in overrides.items():
            if key == "name":
                raise ProfileError("rules overrides", key, "a profile's name cannot be overridden")
            if key not in _FIELDS:
                allowed = ", ".join(sorted(_FIELDS))
                raise ProfileError("rules overrides", key, f"unknown key; allowed: {allowed}")
            merged[key] = value
        return rules_from_mapping(merged, f"{source} with overrides")
    return rules_from_mapping(data, source)
