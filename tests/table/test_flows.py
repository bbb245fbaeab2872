"""One flow per game, chosen once; side bets found in their package; no game test elsewhere."""

from __future__ import annotations

import re
from pathlib import Path

from table.events import SPOTS
from table.flows import FLOWS, BankerFlow, CasinoFlow, flow_for
from table.profiles import _CHOICES, list_profiles, load_profile
from table.sidebets import SIDE_BETS

ROOT = Path(__file__).resolve().parents[2]
GAME_TEST = re.compile(r"\.game\s*(==|!=)")


def test_every_game_a_profile_may_name_has_its_flow() -> None:
    assert set(FLOWS) == set(_CHOICES["game"])
    assert isinstance(flow_for(load_profile("st-moritz")), CasinoFlow)
    assert isinstance(flow_for(load_profile("pontoon-british")), BankerFlow)


def test_no_code_asks_which_game_is_played() -> None:
    # The table picks its flow, the house-edge package its math (houseedge.games), once.
    folders = [ROOT / name for name in ("table", "houseedge", "tablectl", "journal", "vision",
                                        "firmware_bridge", "foundation", "hw-sim/hwsim",
                                        "benchmarks", "tools")]
    found = [f"{path.relative_to(ROOT)}:{number}"
             for folder in folders for path in sorted(folder.rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if GAME_TEST.search(line)]
    assert found == []


def test_each_side_bet_module_is_registered_and_bettable() -> None:
    modules = {p.stem for p in (ROOT / "table" / "sidebets").glob("*.py")} - {
        "__init__", "base", "odds"}
    assert len(SIDE_BETS) == len(modules)
    assert set(SPOTS) == {"main", "insurance", *SIDE_BETS}
    for profile in list_profiles():
        assert set(load_profile(profile).side_bets) <= set(SIDE_BETS)
    for bet in SIDE_BETS.values():
        assert bet.settles in ("deal", "end") and bet.games and bet.lost()
