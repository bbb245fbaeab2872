"""Journals written the way the daemon writes them, for the tests of `tablectl journal`:
each event applied to a `Table`, appended with its source (and the table's reason when
it refused it) and committed; a round is recorded when the next one begins (just
before the event that began it is appended), so events after a settlement, such as a
new shoe, still belong to it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from journal import Journal
from table.machine import Table
from table.profiles import load_profile
from tablectl.cli import main

Item = tuple[dict[str, Any], str, str | None]

# Round 1 (casinos-austria: 6 decks, no hole card, dealer stands on soft 17).
# Box 1 bets 100, box 2 bets 50 plus 10 on Dealer Bust. Deal: box 1 6S, box 2 TH,
# dealer 5D, box 1 5C (11), box 2 7H (17). A split for box 2 comes while box 1
# plays: refused. Box 1 doubles (stake 200) and draws 9S: 20. Box 2 stands on 17.
# Dealer 5D TC = 15 draws 3H = 18 and stands.
#   box 1: 20 beats 18, stake 200 paid back 400: net +200
#   box 2: 17 loses to 18: -50; Dealer Bust lost (the dealer has 18): -10
#   house: -200 + 50 + 10 = -140; staked 200 + 50 + 10 = 260
ROUND_1: list[Item] = [
    ({"bet": {"box": 1, "amount": 100}}, "api", None),
    ({"bet": {"box": 2, "amount": 50}}, "api", None),
    ({"bet": {"box": 2, "amount": 10, "spot": "dealer_bust"}}, "api", None),
    ({"deal": {}}, "button", None),
    ({"card": "6S"}, "shoe", "11:1"),
    ({"card": "TH"}, "shoe", "12:2"),
    ({"card": "5D"}, "shoe", "13:3"),
    ({"card": "5C"}, "shoe", "14:4"),
    ({"card": "7H"}, "shoe", "15:5"),
    ({"do": {"box": 2, "action": "split"}}, "button", None),
    ({"do": {"box": 1, "action": "double"}}, "button", None),
    ({"card": "9S"}, "shoe", "16:6"),
    ({"do": {"box": 2, "action": "stand"}}, "button", None),
    ({"card": "TC"}, "shoe", "17:7"),
    ({"card": "3H"}, "shoe", "18:8"),
]
# Round 2: box 1 and box 2 bet 100. The camera sees 9S land on box 1, then 6H on
# the dealer's spot while box 2 is due: CARD_OUT_OF_ORDER halts the round; the pit
# voids it and every bet is returned (net 0).
ROUND_2: list[Item] = [
    ({"bet": {"box": 1, "amount": 100}}, "api", None),
    ({"bet": {"box": 2, "amount": 100}}, "api", None),
    ({"deal": {}}, "button", None),
    ({"card": "9S", "box": 1}, "camera", None),
    ({"card": "6H", "box": "dealer"}, "camera", None),
    ({"resolve": "void"}, "button", None),
]
# Then a new shoe (still round 2's: no round has begun) and round 3, in play:
# a bet and two cards.
ROUND_3: list[Item] = [
    ({"shoe": "loaded"}, "shoe", "19:0"),
    ({"bet": {"box": 1, "amount": 100}}, "api", None),
    ({"deal": {}}, "button", None),
    ({"card": "8S"}, "shoe", "20:1"),
    ({"card": "7D"}, "shoe", "21:2"),
]


class Daemon:
    """Plays events into a table and its journal as the daemon's loop does."""

    def __init__(self, path: Path) -> None:
        self.table = Table(load_profile("casinos-austria"))
        self.journal = Journal(path, profile="casinos-austria")
        self.recorded = 0

    def play(self, items: list[Item]) -> None:
        for event, source, ref in items:
            outcome = self.table.apply(event)
            for result in self.table.results(since=self.recorded):
                if result["round"] >= self.table.rounds_played:
                    break
                self.journal.record_round(result["round"], result)
                self.recorded = result["round"]
            self.journal.append(event, source, ref,
                                refused=None if outcome.accepted else outcome.reason)
            self.journal.commit()

    def close(self) -> None:
        self.journal.close()


def three_rounds(folder: Path) -> Path:
    """Rounds 1 and 2 recorded, round 3 in play, in `folder/journal.sqlite`."""
    path = folder / "journal.sqlite"
    daemon = Daemon(path)
    daemon.play(ROUND_1 + ROUND_2 + ROUND_3)
    daemon.close()
    return path


def files_in(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err
