"""COBS, CRC and frame layout of ShoeLink v1, worked out from the protocol."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.shoelink import cobs
from firmware_bridge.shoelink.crc import crc16_ccitt_false
from firmware_bridge.shoelink.frames import (
    MAX_PAYLOAD,
    RELIABLE_TYPES,
    Frame,
    FrameDecoder,
    FrameError,
    FrameType,
    card_payload,
    encode_frame,
    next_seq,
    pack_frame,
    parse_card_payload,
    parse_frame,
    parse_hello_payload,
    seq_distance,
)

# CRC-16/CCITT-FALSE -----------------------------------------------------------


def test_crc_check_value_of_the_catalogue() -> None:
    assert crc16_ccitt_false(b"123456789") == 0x29B1


def test_crc_of_nothing_is_the_initial_value_and_it_continues() -> None:
    assert crc16_ccitt_false(b"") == 0xFFFF
    assert crc16_ccitt_false(b"6789", crc16_ccitt_false(b"12345")) == 0x29B1


def test_crc_single_bytes_by_hand() -> None:
    # 0xFFFF ^ (0x00 << 8) = 0xFFFF, shifted eight times through poly 0x1021.
    crc = 0xFFFF
    for _ in range(8):
        crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    assert crc16_ccitt_false(b"\x00") == crc == 0xE1F0


# COBS (the vectors of the COBS paper / Wikipedia article) ---------------------------

COBS_VECTORS = [
    (b"\x00", b"\x01\x01"),
    (b"\x00\x00", b"\x01\x01\x01"),
    (b"\x00\x11\x00", b"\x01\x02\x11\x01"),
    (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
    (b"\x11\x22\x33\x44", b"\x05\x11\x22\x33\x44"),
    (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
    (b"", b"\x01"),
]


@pytest.mark.parametrize(("raw", "encoded"), COBS_VECTORS)
def test_cobs_vectors(raw: bytes, encoded: bytes) -> None:
    assert cobs.encode(raw) == encoded
    assert cobs.decode(encoded) == raw


def test_cobs_254_byte_run_needs_one_code_byte() -> None:
    run = bytes(range(1, 255))  # 254 non-zero bytes
    assert cobs.encode(run) == b"\xff" + run
    assert cobs.decode(b"\xff" + run) == run
    # A decoder also accepts the non-canonical empty final block.
    assert cobs.decode(b"\xff" + run + b"\x01") == run


def test_cobs_runs_around_254() -> None:
    zero_then_run = b"\x00" + bytes(range(1, 255))
    assert cobs.encode(zero_then_run) == b"\x01\xff" + bytes(range(1, 255))
    run_255 = bytes(range(1, 256))  # 255 non-zero bytes: a second block of one
    assert cobs.encode(run_255) == b"\xff" + bytes(range(1, 255)) + b"\x02\xff"
    run_then_zero = bytes(range(2, 256)) + b"\x00"
    assert cobs.encode(run_then_zero) == b"\xff" + bytes(range(2, 256)) + b"\x01\x01"
    for raw in (zero_then_run, run_255, run_then_zero):
        assert cobs.decode(cobs.encode(raw)) == raw


@pytest.mark.parametrize(
    "bad",
    [b"", b"\x00", b"\x05\x11\x22", b"\x03\x11\x00", b"\x02\x11\x00\x01"],
    ids=["empty", "zero-code", "runs-past-end", "zero-in-block", "zero-later"],
)
def test_cobs_decode_rejects_invalid_blocks(bad: bytes) -> None:
    with pytest.raises(cobs.CobsError):
        cobs.decode(bad)


@given(st.binary(max_size=1200))
def test_cobs_round_trip_and_no_zero(raw: bytes) -> None:
    encoded = cobs.encode(raw)
    assert 0 not in encoded
    assert len(encoded) <= len(raw) + len(raw) // 254 + 1
    assert cobs.decode(encoded) == raw


# Frames ---------------------------------------------------------------------------


def test_card_frame_bytes_worked_out_by_hand() -> None:
    # ver 1, CARD, seq 0x0102, len 7, rank A=1 suit S=0 index 5, flags 0
    body = bytes([0x01, 0x02, 0x02, 0x01, 0x07, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00])
    crc = crc16_ccitt_false(body)
    frame = Frame(FrameType.CARD, 0x0102, card_payload(1, 0, 5))
    assert pack_frame(frame) == body + struct.pack("<H", crc)
    wire = encode_frame(frame)
    assert wire.endswith(b"\x00") and wire.count(0) == 1
    assert parse_frame(cobs.decode(wire[:-1])) == frame


def test_parse_card_payload_fields() -> None:
    payload = bytes([13, 3]) + (70000).to_bytes(4, "little") + b"\x01"
    assert parse_card_payload(payload) == (13, 3, 70000, True)
    with pytest.raises(FrameError):
        parse_card_payload(bytes([14, 0, 1, 0, 0, 0, 0]))


@pytest.mark.parametrize(
    ("mutate", "kind"),
    [
        (lambda b: b[:-1] + bytes([b[-1] ^ 1]), "crc"),
        (lambda b: b[:-3], "length"),
        (lambda b: b[:3], "length"),
    ],
    ids=["bad-crc", "truncated", "too-short"],
)
def test_parse_frame_names_the_fault(mutate: object, kind: str) -> None:
    good = pack_frame(Frame(FrameType.SHOE, 9, b"\x02"))
    with pytest.raises(FrameError) as error:
        parse_frame(mutate(good))  # type: ignore[operator]
    assert error.value.kind == kind


def test_parse_frame_rejects_unknown_version_and_type() -> None:
    for version, frame_type, kind in ((2, 0x02, "version"), (1, 0x42, "type")):
        body = bytes([version, frame_type, 0, 0, 0])
        with pytest.raises(FrameError) as error:
            parse_frame(body + struct.pack("<H", crc16_ccitt_false(body)))
        assert error.value.kind == kind


def test_payload_longer_than_200_is_refused() -> None:
    with pytest.raises(ValueError):
        pack_frame(Frame(FrameType.HELLO, 0, b"x" * (MAX_PAYLOAD + 1)))


def test_hello_payload_pairs() -> None:
    assert parse_hello_payload(b"fw=1.0.0;sn=SHOE-0042;decks=8") == {
        "fw": "1.0.0", "sn": "SHOE-0042", "decks": "8",
    }


def test_sequence_numbers_skip_zero() -> None:
    assert next_seq(1) == 2
    assert next_seq(65535) == 1
    assert seq_distance(65535, 1) == 1
    assert seq_distance(65534, 2) == 3
    assert seq_distance(5, 5) == 0


# The stream decoder ---------------------------------------------------------------


def _wire(*frames: Frame) -> bytes:
    return b"".join(encode_frame(f) for f in frames)


def test_decoder_resynchronises_after_garbage_and_counts_it() -> None:
    one = Frame(FrameType.CARD, 1, card_payload(10, 2, 1))
    two = Frame(FrameType.CARD, 2, card_payload(12, 1, 2))
    corrupted = bytearray(encode_frame(two))
    corrupted[3] ^= 0x40
    decoder = FrameDecoder()
    # Garbage with no delimiter fuses with the frame after it: both are lost.
    stream = b"\x13\x37garbage" + _wire(one) + bytes(corrupted) + b"\x00\x00" + _wire(two)
    assert decoder.feed(stream) == [two]
    assert decoder.counts.frames == 1
    assert decoder.counts.bad_frames + decoder.counts.crc_errors == 2
    # Garbage that ends in a delimiter costs nothing but itself.
    assert decoder.feed(b"\x13\x37\x00" + _wire(one)) == [one]


def test_decoder_byte_by_byte() -> None:
    frames = [Frame(FrameType.HEARTBEAT, 0, bytes(8)), Frame(FrameType.SHOE, 3, b"\x01")]
    decoder = FrameDecoder()
    out: list[Frame] = []
    for byte in _wire(*frames):
        out += decoder.feed(bytes([byte]))
    assert out == frames


def test_decoder_drops_an_endless_block_and_recovers() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"\x01" * 5000) == []
    frame = Frame(FrameType.SHOE, 1, b"\x03")
    assert decoder.feed(b"\x00" + _wire(frame)) == [frame]
    assert decoder.counts.bad_frames == 1


def _is_valid(frame: Frame) -> bool:
    raw = pack_frame(frame)
    return (
        raw[0] == 1
        and frame.type in {int(t) for t in FrameType}
        and len(frame.payload) <= MAX_PAYLOAD
        and parse_frame(raw) == frame
    )


@settings(max_examples=300)
@given(st.lists(st.binary(max_size=300), max_size=8))
def test_fuzz_decoder_never_raises_and_yields_only_valid_frames(chunks: list[bytes]) -> None:
    decoder = FrameDecoder()
    for chunk in chunks:
        for frame in decoder.feed(chunk):
            assert _is_valid(frame)


frame_strategy = st.builds(
    Frame,
    st.sampled_from(sorted(int(t) for t in FrameType)),
    st.integers(0, 65535),
    st.binary(max_size=MAX_PAYLOAD),
)


@settings(max_examples=200)
@given(st.lists(st.tuples(st.binary(max_size=20), frame_strategy), max_size=6))
def test_fuzz_frames_after_a_delimiter_survive_noise(items: list[tuple[bytes, Frame]]) -> None:
    decoder = FrameDecoder()
    got: list[Frame] = []
    for noise, frame in items:
        got += decoder.feed(noise + b"\x00" + encode_frame(frame))
    assert got[-len(items):] == [f for _, f in items] if items else got == []
    assert all(_is_valid(f) for f in got)


def test_reliable_types_are_the_three_of_the_protocol() -> None:
    assert {int(t) for t in RELIABLE_TYPES} == {0x02, 0x03, 0x04}
