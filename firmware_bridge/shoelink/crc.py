"""CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor.

The standard library computes it in C: `binascii.crc_hqx` is this CRC with the
initial value passed in.
"""

from __future__ import annotations

import binascii

CRC_INIT = 0xFFFF


def crc16_ccitt_false(data: bytes | bytearray | memoryview, crc: int = CRC_INIT) -> int:
    """Return the CRC of `data`; pass a previous result as `crc` to continue it."""
    return binascii.crc_hqx(data, crc)
