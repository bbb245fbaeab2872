"""The frames a virtual shoe's firmware makes, each with what the shoe records
of it (docs/protocol.md, Shoe → host)."""

from __future__ import annotations

from firmware_bridge.shoelink.frames import (
    Frame,
    FrameType,
    ShoeEventCode,
    card_payload,
    encode_frame,
    heartbeat_payload,
    hello_payload,
    index_payload,
    shoe_payload,
)
from foundation.cards import card_numbers
from hwsim.shoe.shoe_records import SentRecord


def card_frame(seq: int, card: str, index: int, low_confidence: bool) -> tuple[Frame, SentRecord]:
    rank, suit = card_numbers(card)
    frame = Frame(FrameType.CARD, seq, card_payload(rank, suit, index, low_confidence))
    return frame, SentRecord(seq, "card", index, card=card, low_confidence=low_confidence)


def unreadable_frame(seq: int, index: int) -> tuple[Frame, SentRecord]:
    return Frame(FrameType.UNREADABLE, seq, index_payload(index)), SentRecord(
        seq, "unreadable", index)


def status_frame(seq: int, code: ShoeEventCode) -> tuple[Frame, SentRecord]:
    return Frame(FrameType.SHOE, seq, shoe_payload(code)), SentRecord(
        seq, "shoe", event=code.name.lower())


def hello_bytes(firmware: str, serial_number: str, decks: int | None) -> bytes:
    info = {"fw": firmware, "sn": serial_number}
    if decks is not None:
        info["decks"] = str(decks)
    return encode_frame(Frame(FrameType.HELLO, 0, hello_payload(info)))


def heartbeat_bytes(index: int, uptime_ms: int) -> bytes:
    return encode_frame(Frame(FrameType.HEARTBEAT, 0, heartbeat_payload(index, uptime_ms)))
