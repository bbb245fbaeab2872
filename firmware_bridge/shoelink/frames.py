"""ShoeLink v1 frames: layout, message types, payloads and the stream decoder.

A decoded frame is ``ver type seq(u16 LE) len payload crc(u16 LE)``; on the
line it is COBS-encoded and followed by one 0x00 delimiter.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntEnum

from firmware_bridge.shoelink import cobs
from firmware_bridge.shoelink.crc import crc16_ccitt_false

VERSION = 0x01
DELIMITER = b"\x00"
MAX_PAYLOAD = 200
HEADER_SIZE = 5  # ver, type, seq (2), len
CRC_SIZE = 2
MIN_FRAME = HEADER_SIZE + CRC_SIZE
MAX_FRAME = MIN_FRAME + MAX_PAYLOAD
# COBS adds one byte per 254 bytes, plus one: the longest valid encoded frame.
MAX_ENCODED = MAX_FRAME + MAX_FRAME // 254 + 1
SEQ_MODULUS = 65536


class FrameType(IntEnum):
    HELLO = 0x01
    CARD = 0x02
    UNREADABLE = 0x03
    SHOE = 0x04
    HEARTBEAT = 0x05
    ACK = 0x81
    HELLO_REQ = 0x82


RELIABLE_TYPES = frozenset({FrameType.CARD, FrameType.UNREADABLE, FrameType.SHOE})
_KNOWN_TYPES = frozenset(int(t) for t in FrameType)


class ShoeEventCode(IntEnum):
    LOADED = 1
    CUT_CARD = 2
    EMPTY = 3
    LID_OPENED = 4
    LID_CLOSED = 5
    CARD_JAM = 6


class FrameError(ValueError):
    """A frame that is not valid ShoeLink v1; `kind` says which check failed."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Frame:
    type: int
    seq: int = 0
    payload: bytes = b""

    @property
    def reliable(self) -> bool:
        return self.type in RELIABLE_TYPES


def next_seq(seq: int) -> int:
    """The sequence number after `seq`: 1 … 65535, then 1 again (0 is skipped)."""
    return seq % (SEQ_MODULUS - 1) + 1


def seq_distance(start: int, end: int) -> int:
    """Steps from `start` to `end` going forward on the 1 … 65535 ring."""
    return (end - start) % (SEQ_MODULUS - 1)


HALF_RING = (SEQ_MODULUS - 1) // 2  # further ahead than this is behind


def signed_seq_distance(start: int, end: int) -> int:
    """Steps from `start` to `end` on the 1 … 65535 ring, negative if `end` is behind."""
    forward = seq_distance(start, end)
    return forward if forward <= HALF_RING else forward - (SEQ_MODULUS - 1)


def pack_frame(frame: Frame) -> bytes:
    """The decoded bytes of `frame`, CRC included (not yet COBS-encoded)."""
    if not 0 <= frame.seq < SEQ_MODULUS:
        raise ValueError(f"seq {frame.seq} is outside 0-65535")
    if len(frame.payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(frame.payload)} bytes is over {MAX_PAYLOAD}")
    body = struct.pack("<BBHB", VERSION, frame.type, frame.seq, len(frame.payload))
    body += frame.payload
    return body + struct.pack("<H", crc16_ccitt_false(body))


def encode_frame(frame: Frame) -> bytes:
    """The bytes to put on the line for `frame`: COBS block plus delimiter."""
    return cobs.encode(pack_frame(frame)) + DELIMITER


def parse_frame(decoded: bytes) -> Frame:
    """Check and parse one COBS-decoded frame; raise FrameError naming the fault."""
    if len(decoded) < MIN_FRAME:
        raise FrameError("length", f"frame of {len(decoded)} bytes is shorter than {MIN_FRAME}")
    version, frame_type, seq, length = struct.unpack_from("<BBHB", decoded)
    if length > MAX_PAYLOAD or len(decoded) != MIN_FRAME + length:
        raise FrameError(
            "length", f"frame of {len(decoded)} bytes does not match its len field {length}"
        )
    (crc,) = struct.unpack_from("<H", decoded, HEADER_SIZE + length)
    if crc16_ccitt_false(decoded[: HEADER_SIZE + length]) != crc:
        raise FrameError("crc", "CRC mismatch")
    if version != VERSION:
        raise FrameError("version", f"unknown protocol version {version}")
    if frame_type not in _KNOWN_TYPES:
        raise FrameError("type", f"unknown message type 0x{frame_type:02x}")
    return Frame(frame_type, seq, bytes(decoded[HEADER_SIZE : HEADER_SIZE + length]))


@dataclass
class DecoderCounts:
    frames: int = 0
    crc_errors: int = 0
    bad_frames: int = 0
    discarded_bytes: int = 0


@dataclass
class FrameDecoder:
    """Turns a byte stream into frames; garbage is counted and skipped, never raised."""

    counts: DecoderCounts = field(default_factory=DecoderCounts)
    _buffer: bytearray = field(default_factory=bytearray)
    _overflow: bool = False

    def feed(self, data: bytes | bytearray) -> list[Frame]:
        frames: list[Frame] = []
        start = 0
        while True:
            zero = data.find(0, start)
            if zero < 0:
                self._append(data[start:])
                return frames
            self._append(data[start:zero])
            frame = self._finish_block()
            if frame is not None:
                frames.append(frame)
            start = zero + 1

    def _append(self, chunk: bytes | bytearray) -> None:
        if self._overflow:
            self.counts.discarded_bytes += len(chunk)
            return
        self._buffer += chunk
        if len(self._buffer) > MAX_ENCODED:
            # Longer than any frame: garbage until the next delimiter.
            self.counts.discarded_bytes += len(self._buffer)
            self._buffer.clear()
            self._overflow = True

    def _finish_block(self) -> Frame | None:
        if self._overflow:
            self._overflow = False
            self.counts.bad_frames += 1
            return None
        block = bytes(self._buffer)
        self._buffer.clear()
        if not block:
            return None  # back-to-back delimiters: idle line, not an error
        try:
            frame = parse_frame(cobs.decode(block))
        except cobs.CobsError:
            self.counts.bad_frames += 1
            self.counts.discarded_bytes += len(block) + 1
            return None
        except FrameError as error:
            if error.kind == "crc":
                self.counts.crc_errors += 1
            else:
                self.counts.bad_frames += 1
            self.counts.discarded_bytes += len(block) + 1
            return None
        self.counts.frames += 1
        return frame


# Payloads -----------------------------------------------------------------

_CARD = struct.Struct("<BBIB")
_INDEX = struct.Struct("<I")
_HEARTBEAT = struct.Struct("<II")
_ACK = struct.Struct("<H")


def card_payload(rank: int, suit: int, index: int, low_confidence: bool = False) -> bytes:
    if not 1 <= rank <= 13 or not 0 <= suit <= 3:
        raise ValueError(f"rank {rank} must be 1-13 and suit {suit} 0-3")
    return _CARD.pack(rank, suit, index, 1 if low_confidence else 0)


def parse_card_payload(payload: bytes) -> tuple[int, int, int, bool]:
    """(rank, suit, index, low_confidence); FrameError if the payload is malformed."""
    if len(payload) != _CARD.size:
        raise FrameError("payload", f"CARD payload of {len(payload)} bytes, expected 7")
    rank, suit, index, flags = _CARD.unpack(payload)
    if not 1 <= rank <= 13 or not 0 <= suit <= 3:
        raise FrameError("payload", f"CARD with rank {rank} suit {suit} out of range")
    return rank, suit, index, bool(flags & 1)


def index_payload(index: int) -> bytes:
    return _INDEX.pack(index)


def parse_index_payload(payload: bytes) -> int:
    if len(payload) != _INDEX.size:
        raise FrameError("payload", f"UNREADABLE payload of {len(payload)} bytes, expected 4")
    (index,) = _INDEX.unpack(payload)
    return int(index)


def shoe_payload(event: int) -> bytes:
    return bytes([event])


def parse_shoe_payload(payload: bytes) -> ShoeEventCode:
    if len(payload) != 1 or payload[0] not in ShoeEventCode._value2member_map_:
        raise FrameError("payload", f"SHOE payload {payload.hex()} is not a known event")
    return ShoeEventCode(payload[0])


def heartbeat_payload(index: int, uptime_ms: int) -> bytes:
    return _HEARTBEAT.pack(index, uptime_ms & 0xFFFFFFFF)


def parse_heartbeat_payload(payload: bytes) -> tuple[int, int]:
    if len(payload) != _HEARTBEAT.size:
        raise FrameError("payload", f"HEARTBEAT payload of {len(payload)} bytes, expected 8")
    index, uptime = _HEARTBEAT.unpack(payload)
    return int(index), int(uptime)


_UPTIME_WRAP_MARGIN_MS = 600_000


def uptime_went_back(before_ms: int, now_ms: int) -> bool:
    """True if the uptime went back (a reboot), not counting the u32 wrap after 49.7 days."""
    if now_ms >= before_ms:
        return False
    wrapped = before_ms > 0xFFFFFFFF - _UPTIME_WRAP_MARGIN_MS and now_ms < _UPTIME_WRAP_MARGIN_MS
    return not wrapped


# A heartbeat can arrive behind a later one (a line that reorders, a buffer that
# re-sends). A shoe that really rebooted cannot have been up longer than the host has
# waited since it last heard the old boot, give or take this.
REBOOT_SLACK_MS = 1_000


def shoe_restarted(before_ms: int, now_ms: int, heard_ago_s: float | None) -> bool:
    """True if a heartbeat of uptime `now_ms`, after one of `before_ms` heard `heard_ago_s`
    seconds ago (None: not heard by this process, e.g. an uptime from the journal),
    says the shoe rebooted; a late heartbeat of the same boot does not."""
    if not uptime_went_back(before_ms, now_ms):
        return False
    return heard_ago_s is None or now_ms <= heard_ago_s * 1000 + REBOOT_SLACK_MS


def hello_payload(info: dict[str, str]) -> bytes:
    text = "".join(f"{key}={value};" for key, value in info.items())
    return text.encode("utf-8")


def parse_hello_payload(payload: bytes) -> dict[str, str]:
    """`key=value;` pairs; pieces without '=' are ignored, bad UTF-8 replaced."""
    info: dict[str, str] = {}
    for piece in payload.decode("utf-8", errors="replace").split(";"):
        key, sep, value = piece.partition("=")
        if sep and key.strip():
            info[key.strip()] = value.strip()
    return info


def ack_payload(seq: int) -> bytes:
    return _ACK.pack(seq)


def parse_ack_payload(payload: bytes) -> int:
    if len(payload) != _ACK.size:
        raise FrameError("payload", f"ACK payload of {len(payload)} bytes, expected 2")
    (seq,) = _ACK.unpack(payload)
    return int(seq)
