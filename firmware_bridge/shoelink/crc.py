"""CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor."""

from __future__ import annotations

CRC_INIT = 0xFFFF
_POLY = 0x1021


def _make_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ _POLY) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_TABLE = _make_table()


def crc16_ccitt_false(data: bytes | bytearray | memoryview, crc: int = CRC_INIT) -> int:
    """Return the CRC of `data`; pass a previous result as `crc` to continue it."""
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc
