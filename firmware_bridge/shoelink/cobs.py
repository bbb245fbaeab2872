"""Consistent Overhead Byte Stuffing: a frame body without any 0x00 byte.

The encoded form never contains 0x00, so the link puts one 0x00 after each
frame as the delimiter and a receiver resynchronises at the next zero.
"""

from __future__ import annotations


class CobsError(ValueError):
    """The bytes are not a valid COBS encoding."""


def encode(data: bytes | bytearray | memoryview) -> bytes:
    """Encode `data` (any bytes, any length); the result holds no 0x00.

    Canonical form: when the data ends right after a full 254-byte run, no
    empty final block is added (so 254 non-zero bytes encode to 255 bytes).
    """
    source = bytes(data)
    out = bytearray()
    block = bytearray()
    last = len(source) - 1
    for position, byte in enumerate(source):
        if byte == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
        else:
            block.append(byte)
            if len(block) == 254:
                out.append(255)
                out += block
                block.clear()
                if position == last:
                    return bytes(out)
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def decode(encoded: bytes | bytearray | memoryview) -> bytes:
    """Decode one COBS block (without its 0x00 delimiter); raise CobsError if invalid."""
    data = bytes(encoded)
    if not data:
        raise CobsError("empty COBS block")
    out = bytearray()
    position = 0
    end = len(data)
    while position < end:
        code = data[position]
        if code == 0:
            raise CobsError(f"zero byte inside a COBS block at offset {position}")
        block_end = position + code
        if block_end > end:
            raise CobsError(
                f"COBS code {code} at offset {position} runs past the end ({end} bytes)"
            )
        block = data[position + 1 : block_end]
        if 0 in block:
            raise CobsError(f"zero byte inside a COBS block after offset {position}")
        out += block
        position = block_end
        if code != 255 and position < end:
            out.append(0)
    return bytes(out)
