"""Hardware in the loop with the overhead camera: the whole daemon films a
simulated felt (`hwsim.camera.felt`) and reads it with the real recognizer,
tracker and fusion (`tablectl/hil.py`, `camera=`).

- Witness: the virtual ShoeLink shoe deals, the harness lays each card on the
  felt; a card on the wrong box, two cards swapped and a card that never left
  the shoe each halt the round with the fusion's flag, the alarm lamp lit.
- Camera only: every shared conformance case the camera can carry is dealt
  from rendered frames alone and settles as its `expect` says.

Each felt is rendered once (0.3-1 s) and read as often as the tracker needs.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from table.machine import Table
from table.profiles import load_profile
from table.scenario import validate_scenario
from tablectl.cli import main
from tablectl.config import parse_config
from tablectl.daemon import Daemon, DaemonError
from tablectl.devices import Devices
from tablectl.hil import FELT_SEED, FeltCard, HilResult, play_scenario
from tests.cases.scenario_files import SHARED_CASES, load_scenario, scenario_paths

if TYPE_CHECKING:
    from hwsim.camera.felt import Felt

SHARED = scenario_paths(SHARED_CASES)



def _play(doc: dict[str, Any], tmp_path: Path, camera: str, **options: Any) -> HilResult:
    folder = tmp_path / f"hil-{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    return play_scenario(doc, folder, camera, **options)


# -- camera and shoe ----------------------------------------------------------------------


def _round(*, resolve_after: str | None = None) -> dict[str, Any]:
    """Casinos Austria, worked out by hand. Box 1 and box 2 bet 100; the shoe deals
    9S (box 1), TC (box 2), 6C (dealer), 7D (box 1), 8H (box 2). Box 1 (16) hits 5S:
    21, done. Box 2 stands on 18. The dealer draws KH, 2D: 18, stands. Box 1's 21
    wins +100, box 2's 18 pushes. With `resolve_after` the pit accepts right after
    that card (the camera has halted the round there) and play goes on."""
    cards_before = ["9S", "TC", "6C", "7D", "8H"]
    events: list[dict[str, Any]] = [{"bet": {"box": 1, "amount": 100}},
                                    {"bet": {"box": 2, "amount": 100}}, {"deal": {}}]
    for card in [*cards_before, "hit", "5S", "stand", "KH", "2D"]:
        if card == "hit":
            events.append({"do": {"box": 1, "action": "hit"}})
        elif card == "stand":
            events.append({"do": {"box": 2, "action": "stand"}})
        else:
            events.append({"card": card})
        if card == resolve_after:
            events.append({"resolve": "accept"})
    return {
        "format": "table-scenario/1", "name": "witness round", "profile": "casinos-austria",
        "rounds": [{"events": events,
                    "expect": {"status": "settled", "flags": [],
                               "net": {"box1/main": 100, "box2/main": 0},
                               "dealer": ["6C", "KH", "2D"]}}],
    }


def _expecting(doc: dict[str, Any], flag: str) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    doc["rounds"][0]["expect"]["flags"] = [flag]
    return doc


def _event_of(doc: dict[str, Any], card: str) -> str:
    events = doc["rounds"][0]["events"]
    return f"round 1, event {events.index({'card': card}) + 1}"


def test_witness_a_clean_round_raises_nothing(tmp_path: Path) -> None:
    doc = _round()
    result = _play(doc, tmp_path, "witness")
    assert result.passed, "\n".join(result.problems())
    assert result.rounds[0]["net"] == {"box1/main": 100, "box2/main": 0}
    assert result.rounds[0]["flags"] == [] and result.alarms == []
    assert result.camera["flags"] == {}
    assert result.camera["events"] == 8  # eight cards placed (one round: no sweep)


def _real_deck(deck: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The simulated camera may draw `deck` from a corpus rendered here."""
    from hwsim.camera import artwork
    from hwsim.camera.deck_corpus import ensure_corpus

    corpus = tmp_path / "corpus"
    try:
        ensure_corpus(corpus, decks=[deck])
    except RuntimeError as error:  # the Debian card packages are missing
        pytest.skip(str(error))
    monkeypatch.setenv(artwork.CORPUS_ENV, str(corpus))


def test_witness_reads_a_real_deck_and_raises_nothing(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _real_deck("kde-jolly-royal", tmp_path, monkeypatch)
    # The felt shows real artwork: every card the shoe deals is seen where it is due.
    result = _play(_round(), tmp_path, "witness", camera_deck="kde-jolly-royal")
    assert result.passed, "\n".join(result.problems())
    assert result.rounds[0]["flags"] == [] and result.alarms == []
    assert result.camera["flags"] == {}
    assert result.camera["events"] == 8


@pytest.mark.parametrize(("box", "code"), [(2, "CARD_OUT_OF_ORDER"),
                                           (4, "CARD_TO_EMPTY_BOX")])
def test_witness_a_card_laid_on_the_wrong_box_halts_the_round(
    tmp_path: Path, box: int, code: str
) -> None:
    def lay(felt: Felt, card: FeltCard) -> None:
        # The table gives 5S to box 1 (the box that hit); the dealer lays it elsewhere.
        felt.put(box if card.card == "5S" else card.place, card.card)

    doc = _expecting(_round(resolve_after="5S"), code)
    result = _play(doc, tmp_path, "witness", lay=lay)
    assert result.passed, "\n".join(result.problems())
    # Halted (the alarm lamp lit) right after the card, until the pit's accept.
    assert result.alarms == [(_event_of(doc, "5S"), (code,))]
    assert result.camera["flags"] == {code: 1}
    assert result.rounds[0]["hands"][0]["cards"] == ["9S", "7D", "5S"]


def test_witness_two_cards_swapped_on_the_felt_are_a_mismatch(tmp_path: Path) -> None:
    held: list[FeltCard] = []

    def lay(felt: Felt, card: FeltCard) -> None:
        # The shoe gives 7D to box 1 and 8H to box 2; the dealer lays them the other way.
        if card.card == "7D":
            held.append(card)
        elif card.card == "8H":
            felt.put(held[0].place, "8H")
            felt.put(card.place, "7D")
        else:
            felt.put(card.place, card.card)

    doc = _expecting(_round(resolve_after="8H"), "SHOE_CAMERA_MISMATCH")
    result = _play(doc, tmp_path, "witness", lay=lay)
    assert result.passed, "\n".join(result.problems())
    assert result.alarms == [(_event_of(doc, "8H"), ("SHOE_CAMERA_MISMATCH",))]
    assert result.camera["flags"] == {"SHOE_CAMERA_MISMATCH": 1}  # one flag for the swap


def test_witness_a_card_that_never_left_the_shoe_is_flagged(tmp_path: Path) -> None:
    def lay(felt: Felt, card: FeltCard) -> None:
        felt.put(card.place, card.card)
        if card.card == "5S":
            felt.put(1, "QH")  # slipped onto box 1 with the hit; the shoe never dealt it

    doc = _expecting(_round(resolve_after="5S"), "CARD_NOT_FROM_SHOE")
    result = _play(doc, tmp_path, "witness", lay=lay)
    assert result.passed, "\n".join(result.problems())
    assert result.alarms == [(_event_of(doc, "5S"), ("CARD_NOT_FROM_SHOE",))]
    assert result.camera["flags"] == {"CARD_NOT_FROM_SHOE": 1}
    assert result.rounds[0]["hands"][0]["cards"] == ["9S", "7D", "5S"]


def test_witness_copies_of_one_card_in_several_places_raise_nothing(tmp_path: Path) -> None:
    """A six-deck shoe deals the 2D three times: box 4's first card, box 1's second and
    the dealer's second. Laying a copy must neither move the hands already lying nor
    pass for a copy already seen. Casinos Austria, worked out by hand: box 1 QH 2D (12)
    stands, box 4 2D TH (12) stands, the dealer 8D 2D 7S (17) stands: both lose 100."""
    events: list[dict[str, Any]] = [{"bet": {"box": 1, "amount": 100}},
                                    {"bet": {"box": 4, "amount": 100}}, {"deal": {}}]
    events += [{"card": card} for card in ("QH", "2D", "8D", "2D", "TH")]
    events += [{"do": {"box": 1, "action": "stand"}}, {"do": {"box": 4, "action": "stand"}}]
    events += [{"card": "2D"}, {"card": "7S"}]
    doc = {"format": "table-scenario/1", "name": "copies", "profile": "casinos-austria",
           "rounds": [{"events": events,
                       "expect": {"status": "settled", "flags": [],
                                  "net": {"box1/main": -100, "box4/main": -100},
                                  "dealer": ["8D", "2D", "7S"]}}]}
    result = _play(doc, tmp_path, "witness")
    assert result.passed, "\n".join(result.problems())
    assert result.camera["flags"] == {} and result.alarms == []
    assert result.camera["events"] == 7  # each card placed once


# -- the camera alone ---------------------------------------------------------------------


def camera_cannot_carry(doc: dict[str, Any]) -> str | None:
    """Why the camera alone cannot deal this scenario as written, or None.

    A card that arrives while the round is halted cannot: the camera holds a card
    seen during a halt and deals it only after the pit's resolution, so it cannot
    come into the halted round as the scenario has it. Every other card can: the
    felt has every place a scenario names (boxes 1 to 7, the dealer), and the
    harness lays a card the table has no place for in the dealer's area. Bets,
    decisions, resolutions and `{"shoe": "loaded"}` (the dealer's new-shoe button)
    go through the local API, as at a camera-only table."""
    table = Table(load_profile(doc["profile"], dict(doc.get("rules") or {})))
    for number, events in enumerate(validate_scenario(doc), start=1):
        for position, parsed in enumerate(events, start=1):
            event = parsed.to_json()
            where = f"round {number}, event {position}"
            if "card" in event and table.due().halted:
                return (f"{where}: a card while the round is halted; the camera "
                        "deals it only after the pit's resolution")
            table.apply(event)
    return None


@pytest.mark.skipif(not SHARED, reason=f"no shared conformance cases in {SHARED_CASES}")
@pytest.mark.parametrize("path", SHARED, ids=[p.stem[:40] for p in SHARED])
def test_camera_only_a_shared_case_settles_as_expected(path: Path, tmp_path: Path) -> None:
    doc = load_scenario(path)
    reason = camera_cannot_carry(doc)
    if reason is not None:
        pytest.skip(f"the camera alone cannot carry it: {reason}")
    result = _play(doc, tmp_path, "only", felt_seed=FELT_SEED)
    assert result.passed, "\n".join(result.problems())
    cards = sum(1 for events in doc["rounds"] for e in events["events"] if "card" in e)
    assert result.camera["events"] >= cards  # every card came off the felt


@pytest.mark.skipif(not SHARED, reason=f"no shared conformance cases in {SHARED_CASES}")
def test_camera_only_a_held_out_real_deck_settles_a_shared_case(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The public-domain deck committed here, never trained on, dealt by the camera alone:
    the round settles as the case expects (it needs librsvg2-bin, no deck package)."""
    _real_deck("cc0-kennard", tmp_path, monkeypatch)
    doc = next(d for d in map(load_scenario, SHARED) if camera_cannot_carry(d) is None)
    result = _play(doc, tmp_path, "only", felt_seed=FELT_SEED, camera_deck="cc0-kennard")
    assert result.passed, "\n".join(result.problems())
    cards = sum(1 for events in doc["rounds"] for e in events["events"] if "card" in e)
    assert result.camera["events"] >= cards


def test_the_camera_alone_cannot_carry_a_card_into_a_halted_round() -> None:
    base = {"format": "table-scenario/1", "name": "x", "profile": "casinos-austria"}
    halted = {**base, "rounds": [{"events": [{"bet": {"box": 1, "amount": 10}},
                                             {"card": "5S"}, {"card": "6S"}]}]}
    assert "halted" in (camera_cannot_carry(halted) or "")
    assert camera_cannot_carry(_round()) is None


# -- the daemon's injected camera ---------------------------------------------------------


def test_an_injected_camera_needs_a_camera_section(tmp_path: Path) -> None:
    config = parse_config({"shoe": {"driver": "shoelink", "port": str(tmp_path / "tty")},
                           "journal": {"path": str(tmp_path / "j.sqlite")}}, "<test>")
    with pytest.raises(DaemonError, match=r"no \[camera\] section"):
        Daemon(config, Devices(camera=object()))  # type: ignore[arg-type]


def test_the_command_plays_a_file_with_the_camera_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Live Studio: a card before the deal is EXTRA_CARD; the pit voids the round.
    doc = {"format": "table-scenario/1", "name": "early card", "profile": "live-studio",
           "rounds": [{"events": [{"bet": {"box": 1, "amount": 100}}, {"card": "5H"},
                                  {"resolve": "void"}],
                       "expect": {"status": "void", "flags": ["EXTRA_CARD"],
                                  "net": {"box1/main": 0}}}]}
    path = tmp_path / "early.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["hil", "--camera", "only", str(path)]) == 0
    assert f"pass {path}" in capsys.readouterr().out


def test_witness_learns_the_house_deck_from_the_shoes_cards_and_the_pit_restarts_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """[camera] learn_house_deck: the cards of the round are learnt from the frames, only
    those the shoe dealt; /state shows it, and only the pit may start afresh."""
    from tablectl.hil import Rig
    from tests.tablectl.http_calls import bearer, call

    _real_deck("kde-jolly-royal", tmp_path, monkeypatch)
    deck_file = tmp_path / "decks" / "house-deck.npz"
    seen: dict[str, Any] = {}

    def inspect(running: Rig) -> None:
        daemon = running.daemon
        assert daemon.api is not None
        address = daemon.api.address
        seen["before"] = call(address, "GET", "/state").body["camera"]["house_deck"]
        relearn = "/camera/house-deck/relearn"
        seen["anonymous"] = call(address, "POST", relearn, {}).status
        dealer = bearer(daemon.auth.issue_token("dealer-1", "dealer"))
        seen["dealer"] = call(address, "POST", relearn, {}, dealer)
        pit = bearer(daemon.auth.issue_token("pit-1", "pit"))
        seen["pit"] = call(address, "POST", relearn, {}, pit)
        seen["after"] = call(address, "GET", "/state").body["camera"]["house_deck"]

    result = _play(_round(), tmp_path, "witness", camera_deck="kde-jolly-royal",
                   camera_settings={"learn_house_deck": True, "house_deck": str(deck_file)},
                   inspect=inspect)
    assert result.passed, "\n".join(result.problems())
    assert result.camera["flags"] == {}
    before = seen["before"]
    assert before["state"] == "learning" and before["path"] == str(deck_file)
    # Eight cards were dealt, each seen once: every exemplar is of one of them.
    dealt = {"9S", "TC", "6C", "7D", "8H", "5S", "KH", "2D"}
    assert before["exemplars"] > 0
    assert set(before["exemplars_per_card"]) <= dealt, before["exemplars_per_card"]
    assert before["cards_learnt"] < 52 and not deck_file.exists()
    assert seen["anonymous"] == 401
    assert seen["dealer"].status == 403 and "for the pit" in seen["dealer"].body["error"]
    assert seen["pit"].status == 200
    assert seen["pit"].body["house_deck"]["exemplars"] == 0
    assert seen["after"]["state"] == "learning" and seen["after"]["exemplars"] == 0


def _court_round(*, halted: bool = False) -> dict[str, Any]:
    """Casinos Austria, worked out by hand. Box 1 and box 2 bet 100; the shoe deals QD
    (box 1), KH (box 2), 8C (dealer), 7S (box 1: 17), 9H (box 2: 19); both stand. The
    dealer draws JD: 18, stands. Box 1's 17 loses -100, box 2's 19 wins +100. With
    `halted` the camera halts the round after the JD and the pit accepts."""
    events: list[dict[str, Any]] = [{"bet": {"box": 1, "amount": 100}},
                                    {"bet": {"box": 2, "amount": 100}}, {"deal": {}}]
    events += [{"card": card} for card in ("QD", "KH", "8C", "7S", "9H")]
    events += [{"do": {"box": 1, "action": "stand"}}, {"do": {"box": 2, "action": "stand"}},
               {"card": "JD"}]
    if halted:
        events.append({"resolve": "accept"})
    return {
        "format": "table-scenario/1", "name": "court cards", "profile": "casinos-austria",
        "rounds": [{"events": events,
                    "expect": {"status": "settled",
                               "flags": ["CARD_NOT_FROM_SHOE"] if halted else [],
                               "net": {"box1/main": -100, "box2/main": 100},
                               "dealer": ["8C", "JD"]}}],
    }


def _networks_without_the_finer_verifier(folder: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon's recognizer reads with the shipped networks as they were before the
    verifier of a finer cut was given views: the second look's two turned views alone."""
    import vision.recognizer as module
    from tests.vision.model_copies import model_copy

    folder.mkdir()
    before = model_copy(folder, second_views=[[6.0, 0.94], [6.0, 0.94, "index_verifier.onnx"]])

    class RecognizerBefore(module.Recognizer):
        def __init__(self, **options: Any) -> None:
            super().__init__(before, **options)

    monkeypatch.setattr(module, "Recognizer", RecognizerBefore)


def test_the_shipped_networks_read_that_jack_as_the_shoe_dealt_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The round of the test below with the shipped networks and the doubt off: the
    camera sees each of the six cards the shoe dealt where it was due (the JD too),
    doubts nothing and halts nothing."""
    _real_deck("aisleriot-neoclassical", tmp_path, monkeypatch)
    result = _play(_court_round(), tmp_path, "witness", camera_deck="aisleriot-neoclassical",
                   camera_settings={"witness_doubt": 0})
    assert result.passed, "\n".join(result.problems())
    assert result.camera["flags"] == {} and result.alarms == []
    assert result.camera["events"] == 6 and result.camera["doubted"] == 0


def test_witness_doubts_a_misread_the_shoes_card_may_be(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On `aisleriot-neoclassical` (held out of training) the networks before the finer
    verifier read the dealer's JD, beside the 8C, as TD, giving JD about a third: the
    shoe put JD there, so the read is doubted and the round settles; with the doubt off
    it halts the round. (The shipped networks read that JD right: a misread is what the
    doubt is for, so the networks that make one are used here.)"""
    _real_deck("aisleriot-neoclassical", tmp_path, monkeypatch)
    _networks_without_the_finer_verifier(tmp_path / "networks", monkeypatch)
    result = _play(_court_round(), tmp_path, "witness", camera_deck="aisleriot-neoclassical")
    assert result.passed, "\n".join(result.problems())
    assert result.camera["flags"] == {} and result.alarms == []
    assert result.camera["doubted"] >= 3  # the JD, in every frame after it was laid
    doc = _court_round(halted=True)
    halted = _play(doc, tmp_path, "witness", camera_deck="aisleriot-neoclassical",
                   camera_settings={"witness_doubt": 0})
    assert halted.passed, "\n".join(halted.problems())
    assert halted.alarms == [(_event_of(doc, "JD"), ("CARD_NOT_FROM_SHOE",))]
    assert halted.camera["flags"] == {"CARD_NOT_FROM_SHOE": 1}
