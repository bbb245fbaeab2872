"""The plain-text scanner driver: parsing, rejected lines, best-effort warning,
and a virtual scanner on a real pty read through pyserial."""

from __future__ import annotations

import logging

import pytest
from hwsim.shoe import VirtualTextScanner, shuffled_shoe

from firmware_bridge.serial_port import Backoff
from firmware_bridge.shoelink import LinkState
from firmware_bridge.text_scanner import (
    DELIVERY_WARNING,
    RejectedLine,
    ScannedCard,
    ScannerEvent,
    TextScannerReader,
    parse_card_line,
)
from tests.tablectl.helpers import Signal


@pytest.mark.parametrize(
    ("line", "expected"),
    [("AS", (1, 0)), ("10H", (10, 1)), ("qd", (12, 2)), (" th \r", (10, 1)), ("7c", (7, 3)),
     ("KD", (13, 2)), ("2S", (2, 0))],
)
def test_card_lines(line: str, expected: tuple[int, int]) -> None:
    assert parse_card_line(line) == expected


@pytest.mark.parametrize(
    ("line", "reason"),
    [("1H", "unknown rank"), ("AS7", "expected a rank"), ("XZ", "unknown rank"),
     ("AX", "unknown suit"), ("10", "expected a rank"), ("A", "expected a rank")],
)
def test_lines_that_are_not_cards_say_why(line: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_card_line(line)


def collect(reader_events: list[ScannerEvent]) -> TextScannerReader:
    return TextScannerReader("/nonexistent", reader_events.append)


def test_lines_split_across_reads_and_garbage_is_reported_not_fed() -> None:
    events: list[ScannerEvent] = []
    reader = collect(events)
    for chunk in (b"AS\r", b"\n10", b"H\nqd\n??\r\n\r\n", b"7C\n"):
        reader.feed(chunk)
    cards = [e for e in events if isinstance(e, ScannedCard)]
    assert [c.code for c in cards] == ["AS", "TH", "QD", "7C"]
    assert [c.number for c in cards] == [1, 2, 3, 4]
    assert events[3] == RejectedLine(4, "??", "unknown rank '?'")
    stats = reader.stats
    assert (stats.lines, stats.cards, stats.rejected, stats.blank_lines) == (5, 4, 1, 1)
    assert stats.last_rejected == "??"


def test_an_endless_line_is_rejected_once_and_the_next_line_reads() -> None:
    events: list[ScannerEvent] = []
    reader = collect(events)
    reader.feed(b"A" * 100)
    reader.feed(b"A" * 100 + b"\nKS\n")
    assert [type(e) for e in events] == [RejectedLine, ScannedCard]
    assert isinstance(events[0], RejectedLine) and "longer than" in events[0].reason
    assert isinstance(events[1], ScannedCard) and events[1].code == "KS"


def test_a_virtual_scanner_on_a_pty(caplog: pytest.LogCaptureFixture) -> None:
    cards = shuffled_shoe(4, seed=3)
    events: list[ScannerEvent] = []
    delivered = Signal()

    def deliver(event: ScannerEvent) -> None:
        events.append(event)
        delivered.notify()

    scanner = VirtualTextScanner(cards, garbage=0.05, seed=8)
    scanner.start(deal=False)  # lines sent before the host opens the port are flushed
    try:
        reader = TextScannerReader(scanner.path, deliver, backoff=Backoff(0.01, 0.05))
        with caplog.at_level(logging.WARNING), reader:
            delivered.wait_until(lambda: LinkState(True, "port open") in events, "the port open",
                                 5.0)
            scanner.deal()
            assert scanner.finished.wait(5)
            delivered.wait_until(
                lambda: sum(isinstance(e, ScannedCard) for e in events) >= len(cards),
                "every card read", 5.0)
    finally:
        scanner.stop()
    assert DELIVERY_WARNING in caplog.text
    assert events[0] == LinkState(True, "port open")
    read = [e.code for e in events if isinstance(e, ScannedCard)]
    assert read == cards
    rejected = [e for e in events if isinstance(e, RejectedLine)]
    assert scanner.garbage_sent > 0
    assert len(rejected) == scanner.garbage_sent == reader.stats.rejected
    assert any(line.startswith("10") for line in scanner.lines_sent)
    assert any(line[:2].islower() for line in scanner.lines_sent)
