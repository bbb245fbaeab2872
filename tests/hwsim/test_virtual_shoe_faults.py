"""Fault injection and shoe loading of the virtual shoe."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from hwsim.shoe import CardListError, LineFaults, load_stacked, parse_card_list, shuffled_shoe
from hwsim.shoe.faults import FaultInjector

from firmware_bridge.shoelink.frames import Frame, FrameType, card_payload, encode_frame

FRAME = encode_frame(Frame(FrameType.CARD, 7, card_payload(1, 0, 7)))
OTHER = encode_frame(Frame(FrameType.CARD, 8, card_payload(2, 0, 8)))


def inject(**faults: float) -> FaultInjector:
    return FaultInjector(LineFaults(**faults), random.Random(1))


def test_no_faults_passes_frames_untouched() -> None:
    assert inject().apply(FRAME) == FRAME


def test_drop_duplicate_and_reorder() -> None:
    assert inject(drop=1).apply(FRAME) == b""
    assert inject(duplicate=1).apply(FRAME) == FRAME + FRAME
    reorder = inject(reorder=1)
    assert reorder.apply(FRAME) == b""
    assert reorder.apply(OTHER) == OTHER + FRAME  # late, after the next one


def test_corrupt_flips_exactly_one_bit() -> None:
    for seed in range(20):
        out = FaultInjector(LineFaults(corrupt=1), random.Random(seed)).apply(FRAME)
        assert len(out) == len(FRAME)
        flipped = sum(bin(a ^ b).count("1") for a, b in zip(out, FRAME, strict=True))
        assert flipped == 1


def test_noise_puts_one_to_eight_bytes_before_the_frame() -> None:
    for seed in range(20):
        out = FaultInjector(LineFaults(noise=1), random.Random(seed)).apply(FRAME)
        assert out.endswith(FRAME) and 1 <= len(out) - len(FRAME) <= 8


def test_fault_chances_are_about_right() -> None:
    injector = FaultInjector(LineFaults(drop=0.1), random.Random(5))
    dropped = sum(1 for _ in range(10_000) if injector.apply(FRAME) == b"")
    assert 900 <= dropped <= 1100
    assert injector.counts.drop == dropped


def test_fault_spec_parsing() -> None:
    assert LineFaults.parse("noise=0.01, drop=0.02,unplug_s=1.5") == LineFaults(
        noise=0.01, drop=0.02, unplug_s=1.5
    )
    assert LineFaults.parse("all=0.01") == LineFaults.mixed(0.01)
    assert LineFaults.parse("") == LineFaults()


@pytest.mark.parametrize(
    ("spec", "message"),
    [("nois=0.1", "NAME one of"), ("drop=2", "between 0 and 1"), ("drop=x", "not a number"),
     ("drop", "NAME=NUMBER"), ("stall_s=-1", "negative")],
)
def test_bad_fault_specs_say_what_to_write(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LineFaults.parse(spec)


def test_a_shuffled_shoe_holds_each_card_once_per_deck() -> None:
    cards = shuffled_shoe(6, seed=42)
    assert len(cards) == 312
    counts = Counter(cards)
    assert len(counts) == 52 and set(counts.values()) == {6}
    assert shuffled_shoe(6, seed=42) == cards
    assert shuffled_shoe(6, seed=43) != cards
    with pytest.raises(ValueError):
        shuffled_shoe(0)


def test_stacked_cards_from_text() -> None:
    text = "# the triple seven case\n7S 9S, TD\n10h 8d  # ten written as 10\nqc\n"
    assert parse_card_list(text) == ["7S", "9S", "TD", "TH", "8D", "QC"]


def test_stacked_list_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "stack.txt"
    path.write_text("AS KD\nZZ 7C\n1H\n", encoding="utf-8")
    with pytest.raises(CardListError) as error:
        load_stacked(path)
    message = str(error.value)
    assert f"{path}:2: unknown card 'ZZ'" in message
    assert f"{path}:3: unknown card '1H'" in message
    with pytest.raises(CardListError, match="cannot read"):
        load_stacked(tmp_path / "missing.txt")
    with pytest.raises(CardListError, match="no cards"):
        parse_card_list("# nothing\n")
