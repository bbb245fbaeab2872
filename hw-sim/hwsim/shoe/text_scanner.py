"""A virtual plain-text card scanner on a pty: one card per line, in the
spellings real scanners use (`AS\\r\\n`, `10H\\n`, `qd\\n`), optionally with
garbage lines mixed in."""

from __future__ import annotations

import random
import select
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from hwsim.shoe.cards import normalise
from hwsim.shoe.pty_port import VirtualPort

GARBAGE_LINES = ("??", "XS", "1H", "A", "AS7", "*ERR 12*", "QZ", "\x7f\x01")


def spell(card: str, rng: random.Random) -> str:
    """One of the ways a scanner may print `card` ('TH' → '10H', 'th', 'TH')."""
    rank, suit = card[0], card[1]
    if rank == "T" and rng.random() < 0.5:
        rank = "10"
    text = rank + suit
    if rng.random() < 0.3:
        text = text.lower()
    return text + ("\r\n" if rng.random() < 0.5 else "\n")


class VirtualTextScanner:
    def __init__(
        self,
        cards: Sequence[str],
        *,
        card_interval_s: float = 0.0,
        garbage: float = 0.0,
        seed: int | None = None,
        link_path: str | Path | None = None,
    ) -> None:
        self._cards = [normalise(c) for c in cards]
        self.card_interval_s = card_interval_s
        self.garbage = garbage
        self._rng = random.Random(seed)
        self._port = VirtualPort(link_path)
        self._stop = threading.Event()
        self._go = threading.Event()
        self._thread: threading.Thread | None = None
        self.lines_sent: list[str] = []
        self.cards_sent: list[str] = []
        self.garbage_sent = 0
        self.finished = threading.Event()

    @property
    def path(self) -> str:
        return str(self._port.link_path)

    @property
    def device_name(self) -> str:
        return self._port.device_name

    def start(self, deal: bool = True) -> None:
        """Plug in; with `deal` False, wait for `deal()` (e.g. until the host is on)."""
        self._port.plug()
        if deal:
            self._go.set()
        self._thread = threading.Thread(target=self._run, name="virtual-scanner", daemon=True)
        self._thread.start()

    def deal(self) -> None:
        self._go.set()

    def stop(self) -> None:
        self._stop.set()
        self._go.set()
        if self._thread is not None:
            self._thread.join(2.0)
        self._port.close()

    def __enter__(self) -> VirtualTextScanner:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        self._go.wait()
        for card in self._cards:
            if self._stop.is_set():
                return
            if self.garbage and self._rng.random() < self.garbage:
                self._write_line(self._rng.choice(GARBAGE_LINES) + "\r\n")
                self.garbage_sent += 1
            self._write_line(spell(card, self._rng))
            self.cards_sent.append(card)
            if self.card_interval_s:
                self._stop.wait(self.card_interval_s)
        self.finished.set()

    def _write_line(self, line: str) -> None:
        data = line.encode("latin-1")
        self.lines_sent.append(line)
        deadline = time.monotonic() + 1.0
        while data and time.monotonic() < deadline and not self._stop.is_set():
            written = self._port.write(data)
            data = data[written:]
            if data and self._port.master_fd is not None:
                select.select([], [self._port.master_fd], [], 0.05)
