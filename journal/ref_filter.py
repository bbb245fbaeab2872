"""A compact "certainly not stored" test for the journal's event references.

Every event with a reference (a shoe frame, a terminal's call id) is looked up
before it is applied, so that a repeat is answered and not applied twice.
Almost every lookup finds nothing; asking SQLite each time costs a read
transaction and lets the other threads take the interpreter. A Bloom filter
answers most of them in memory: "not there" is certain, "maybe there" is asked
of the database. Two bits per reference in a fixed 2 MiB of memory: about 1%
of the lookups go to the database after a million references.
"""

from __future__ import annotations

from collections.abc import Iterable

FILTER_BITS = 1 << 24  # 2 MiB
_MASK = FILTER_BITS - 1


class RefFilter:
    def __init__(self, refs: Iterable[tuple[str, str]] = ()) -> None:
        self._bits = bytearray(FILTER_BITS // 8)
        self.count = 0
        for source, ref in refs:
            self.add(source, ref)

    def add(self, source: str, ref: str) -> None:
        bits = self._bits
        for bit in _bit_positions(source, ref):
            bits[bit >> 3] |= 1 << (bit & 7)
        self.count += 1

    def may_contain(self, source: str, ref: str) -> bool:
        """False: certainly never added. True: perhaps (ask the database)."""
        bits = self._bits
        return all(bits[bit >> 3] & (1 << (bit & 7)) for bit in _bit_positions(source, ref))


def _bit_positions(source: str, ref: str) -> tuple[int, int]:
    # Python's string hash is salted per process: the filter lives in memory only.
    key = hash((source, ref))
    return key & _MASK, (key >> 24) & _MASK
