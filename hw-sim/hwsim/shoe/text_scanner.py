"""A virtual plain-text card scanner on a pty: one card per line, in the
spellings real scanners use (`AS\\r\\n`, `10H\\n`, `qd\\n`), optionally with
garbage lines mixed in.

Such a scanner sends whether or not anyone listens, and a host flushes what
was waiting when it opens the port, so which lines the host sees depends on
when it opened. With `wait_for_host` the scanner deals its first line only
once a host has opened the port, so the host sees every line from the first.
"""

from __future__ import annotations

import random
import select
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from foundation.cards import TEN, parse_card, rank_label
from hwsim.shoe.pty_port import PtyDevice, VirtualPort

GARBAGE_LINES = ("??", "XS", "1H", "A", "AS7", "*ERR 12*", "QZ", "\x7f\x01")


def spell(card: str, rng: random.Random) -> str:
    """One of the ways a scanner may print `card` ('TH' → '10H', 'th', 'TH')."""
    rank, suit = card[0], card[1]
    if rank == TEN and rng.random() < 0.5:
        rank = rank_label(rank)
    text = rank + suit
    if rng.random() < 0.3:
        text = text.lower()
    return text + ("\r\n" if rng.random() < 0.5 else "\n")


def scanner_lines(
    cards: Sequence[str], garbage: float, rng: random.Random | int | None
) -> Iterator[tuple[str, list[str]]]:
    """Per card, the lines the scanner sends for it: a garbage line first with
    chance `garbage`, then the card as a scanner spells it. A seed gives the
    same lines as a `VirtualTextScanner` made with that seed."""
    if not isinstance(rng, random.Random):
        rng = random.Random(rng)
    for card in cards:
        lines = []
        if garbage and rng.random() < garbage:
            lines.append(rng.choice(GARBAGE_LINES) + "\r\n")
        lines.append(spell(card, rng))
        yield card, lines


class VirtualTextScanner(PtyDevice):
    def __init__(
        self,
        cards: Sequence[str],
        *,
        card_interval_s: float = 0.0,
        garbage: float = 0.0,
        seed: int | None = None,
        link_path: str | Path | None = None,
        wait_for_host: bool = False,
    ) -> None:
        """`wait_for_host`: deal nothing until a host has opened the port."""
        self._cards = [parse_card(c) for c in cards]
        self.card_interval_s = card_interval_s
        self.garbage = garbage
        self._rng = random.Random(seed)
        self.wait_for_host = wait_for_host
        self._port = VirtualPort(link_path)
        self._stop = threading.Event()
        self._go = threading.Event()
        self._thread: threading.Thread | None = None
        self.lines_sent: list[str] = []
        self.cards_sent: list[str] = []
        self.garbage_sent = 0
        self.finished = threading.Event()

    def start(self, deal: bool = True) -> None:
        """Plug in; with `deal` False, wait for `deal()` (e.g. until the host is on).
        A scanner made with `wait_for_host` also waits for a host to open the port."""
        self._port.plug(release_slave=self.wait_for_host)
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

    def _run(self) -> None:
        self._go.wait()
        if self.wait_for_host and not self._port.wait_for_host(self._stop):
            return
        for card, lines in scanner_lines(self._cards, self.garbage, self._rng):
            if self._stop.is_set():
                return
            for line in lines[:-1]:
                self._write_line(line)
                self.garbage_sent += 1
            self._write_line(lines[-1])
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
