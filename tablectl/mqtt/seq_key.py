"""The journal seq as an event message's key: the MQTT 5 user property ("seq", "N")."""

from __future__ import annotations

from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties


class _SeqKey(Properties):
    """The user property packed here (paho's general packing costs a fifth of a
    publish). The bytes are what `Properties.pack()` makes of it
    (tests/tablectl/mqtt/test_publisher.py)."""

    packed: bytes

    def __init__(self, seq: int) -> None:  # Properties' own checks are what is skipped
        value = str(seq).encode()
        body = (b"\x26\x00\x03seq" + len(value).to_bytes(2, "big") + value)
        object.__setattr__(self, "packetType", PacketTypes.PUBLISH)
        object.__setattr__(self, "packed", bytes([len(body)]) + body)  # < 128: one byte

    def pack(self) -> bytes:
        return bytes(self.packed)


def seq_property(seq: int) -> Properties:
    return _SeqKey(seq)
