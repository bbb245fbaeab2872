"""Faults the virtual shoe injects on its way to the host, each frame by chance."""

from __future__ import annotations

import random
from dataclasses import dataclass, fields, replace

FAULT_KINDS = ("noise", "corrupt", "drop", "duplicate", "reorder", "stall", "unplug")


@dataclass(frozen=True)
class LineFaults:
    """Chance per frame sent (0-1) of each fault, and how long stalls and unplugs last."""

    noise: float = 0.0  # 1-8 random bytes before the frame
    corrupt: float = 0.0  # one bit of the frame flipped
    drop: float = 0.0  # the frame never arrives
    duplicate: float = 0.0  # the frame arrives twice
    reorder: float = 0.0  # the frame arrives after the next one
    stall: float = 0.0  # the line stops after this frame for `stall_s`, then catches up
    unplug: float = 0.0  # the cable is pulled after this frame, back after `unplug_s`
    stall_s: float = 0.5
    unplug_s: float = 0.5

    @classmethod
    def parse(cls, spec: str) -> LineFaults:
        """'noise=0.01,drop=0.02,unplug_s=1' → LineFaults; ValueError says what is wrong."""
        faults = cls()
        names = {f.name for f in fields(cls)}
        for item in filter(None, (part.strip() for part in spec.split(","))):
            key, sep, value = item.partition("=")
            key = key.strip()
            if key == "all" and sep:
                faults = cls.mixed(_number(key, value))
                continue
            if not sep or key not in names:
                raise ValueError(
                    f"fault {item!r}: write NAME=NUMBER with NAME one of "
                    f"{', '.join(sorted(names | {'all'}))}"
                )
            number = _number(key, value)
            if key in FAULT_KINDS and not 0.0 <= number <= 1.0:
                raise ValueError(f"fault {key}={value}: a chance must be between 0 and 1")
            faults = replace(faults, **{key: number})
        return faults

    @classmethod
    def mixed(cls, chance: float, stall_s: float = 0.5, unplug_s: float = 0.5) -> LineFaults:
        """Every fault kind at the same chance."""
        return cls(chance, chance, chance, chance, chance, chance, chance, stall_s, unplug_s)

    @property
    def any(self) -> bool:
        return any(getattr(self, kind) > 0 for kind in FAULT_KINDS)


def _number(key: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"fault {key}={value!r}: not a number") from None
    if number < 0:
        raise ValueError(f"fault {key}={value}: must not be negative")
    return number


@dataclass
class FaultCounts:
    noise: int = 0
    corrupt: int = 0
    drop: int = 0
    duplicate: int = 0
    reorder: int = 0
    stall: int = 0
    unplug: int = 0


class FaultInjector:
    """Turns each outgoing frame into the bytes the host will actually get."""

    def __init__(self, faults: LineFaults, rng: random.Random) -> None:
        self.faults = faults
        self.rng = rng
        self.counts = FaultCounts()
        self._held: bytes | None = None

    def apply(self, frame: bytes) -> bytes:
        faults, rng = self.faults, self.rng
        if not faults.any:
            return frame
        if rng.random() < faults.drop:
            self.counts.drop += 1
            return b""
        data = frame
        if rng.random() < faults.corrupt:
            self.counts.corrupt += 1
            position = rng.randrange(len(data))
            flipped = data[position] ^ (1 << rng.randrange(8))
            data = data[:position] + bytes([flipped]) + data[position + 1 :]
        if rng.random() < faults.noise:
            self.counts.noise += 1
            data = rng.randbytes(rng.randint(1, 8)) + data
        if rng.random() < faults.duplicate:
            self.counts.duplicate += 1
            data = data + data
        if self._held is None and rng.random() < faults.reorder:
            self.counts.reorder += 1
            self._held = data
            return b""
        if self._held is not None:
            data, self._held = data + self._held, None
        return data

    def stall_after(self) -> float:
        """Seconds the line stalls after this frame (0: it does not)."""
        if self.faults.stall and self.rng.random() < self.faults.stall:
            self.counts.stall += 1
            return self.faults.stall_s
        return 0.0

    def unplug_after(self) -> float:
        """Seconds the cable stays out after this frame (0: it stays in)."""
        if self.faults.unplug and self.rng.random() < self.faults.unplug:
            self.counts.unplug += 1
            return self.faults.unplug_s
        return 0.0
