"""Profiles: every shipped one loads; bad keys, types and combinations are refused clearly."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.profiles import ProfileError, list_profiles, load_profile

SHIPPED = [
    "casinos-austria", "live-studio", "pontoon-british", "pontoon-online", "pontoon-sydney",
    "ru-casino", "st-moritz", "st-moritz-65",
]


def test_every_profile_of_the_rule_book_ships() -> None:
    assert list_profiles() == SHIPPED


@pytest.mark.parametrize("name", SHIPPED)
def test_each_profile_loads_into_frozen_rules(name: str) -> None:
    rules = load_profile(name)
    assert rules.name == name
    assert rules.interrupted_round in ("resume", "void")
    with pytest.raises(AttributeError):
        rules.decks = 1  # type: ignore[misc]


def test_profile_options_follow_the_rule_book() -> None:
    austria = load_profile("casinos-austria")
    assert (austria.decks, austria.hole_card, austria.dealer_hits_soft_17) == (6, "none", False)
    assert austria.triple_seven == "at_once_ends_box"
    assert load_profile("st-moritz").blackjack_pays == "3:2"
    assert load_profile("st-moritz-65").blackjack_pays == "6:5"
    sydney = load_profile("pontoon-sydney")
    assert (sydney.shoe, sydney.decks, sydney.dealer_blackjack_takes) == ("spanish", 8, "bb+1")
    assert sydney.dealer_hits_soft_17 and sydney.double_totals == "9-11"
    live = load_profile("live-studio")
    assert live.interrupted_round == "void" and live.misdeal_resolutions == ("void",)
    assert live.max_split_hands == 2 and not live.double_after_split
    assert load_profile("pontoon-online").ties == "lose"
    assert load_profile("pontoon-british").decks == 1
    assert load_profile("ru-casino").max_bettors_per_box == 3
    others = [name for name in SHIPPED if name != "live-studio"]
    assert {load_profile(name).interrupted_round for name in others} == {"resume"}


def test_overrides_apply_on_top_of_a_profile() -> None:
    rules = load_profile("casinos-austria", {"hole_card": "peek", "max_split_hands": 2})
    assert rules.hole_card == "peek" and rules.max_split_hands == 2
    assert load_profile("casinos-austria").hole_card == "none"


def test_an_unknown_override_key_names_the_key_and_the_allowed_ones() -> None:
    with pytest.raises(ProfileError) as error:
        load_profile("casinos-austria", {"decks_count": 6})
    message = str(error.value)
    assert "decks_count" in message and "unknown key" in message and "decks" in message


def test_a_wrong_type_is_refused_with_what_is_expected() -> None:
    with pytest.raises(ProfileError, match=r"key 'decks': expected an integer, got '6'"):
        load_profile("casinos-austria", {"decks": "6"})
    with pytest.raises(ProfileError, match=r"dealer_hits_soft_17': expected true or false"):
        load_profile("casinos-austria", {"dealer_hits_soft_17": 1})


def test_a_value_outside_the_choices_lists_the_choices() -> None:
    with pytest.raises(ProfileError) as error:
        load_profile("casinos-austria", {"blackjack_pays": "7:5"})
    assert "'3:2', '6:5', '2:1'" in str(error.value)
    with pytest.raises(ProfileError, match="out of range; use 1 to 8"):
        load_profile("casinos-austria", {"decks": 0})


def test_an_impossible_combination_is_refused() -> None:
    with pytest.raises(ProfileError, match="Spanish shoe holds no 10s"):
        load_profile("pontoon-sydney", {"surrender_against": "AT"})
    with pytest.raises(ProfileError, match="6:5 tables only"):
        load_profile("st-moritz", {"bonus_blackjack_pays": "5:1"})
    with pytest.raises(ProfileError, match="'void' must always be allowed"):
        load_profile("casinos-austria", {"misdeal_resolutions": ["accept"]})


def test_a_casino_variant_loads_from_a_toml_file_and_errors_name_the_file(tmp_path: Path) -> None:
    good = tmp_path / "my-casino.toml"
    good.write_text('name = "my-casino"\ndecks = 4\nhole_card = "peek"\n', encoding="utf-8")
    rules = load_profile(str(good))
    assert (rules.name, rules.decks, rules.hole_card) == ("my-casino", 4, "peek")
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\nsurrender = "sometimes"\n', encoding="utf-8")
    with pytest.raises(ProfileError) as error:
        load_profile(str(bad))
    assert str(bad) in str(error.value) and "surrender" in str(error.value)
    broken = tmp_path / "broken.toml"
    broken.write_text("name = \n", encoding="utf-8")
    with pytest.raises(ProfileError, match="not valid TOML"):
        load_profile(str(broken))


def test_an_unknown_profile_lists_the_shipped_ones() -> None:
    with pytest.raises(ProfileError, match="casinos-austria"):
        load_profile("vegas-strip")
