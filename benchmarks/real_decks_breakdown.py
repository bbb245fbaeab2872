"""The real-deck benchmark's figures broken down by card size and by what spoils the frame.

An installer chooses how large the cards appear (the camera's height and lens);
this says what that choice costs: precision, recall and hands exactly right for
the scenes whose cards are of each width in the frame, then for the scenes
under each condition of `bench_vision.CONDITIONS` (a scene can meet several).
"""

from __future__ import annotations

from typing import Any

from bench_vision import CONDITIONS, Score

# Card widths in the frame (pixels), each band from its bound up to the next one's.
SIZE_BANDS: tuple[tuple[float, str], ...] = (
    (0.0, "cards under 100 px"),
    (100.0, "cards 100-119 px"),
    (120.0, "cards 120 px or wider"),
)


def size_band(card_width: float) -> str:
    """The band of SIZE_BANDS a scene with cards `card_width` pixels wide falls in."""
    if card_width < 0:
        raise ValueError(f"a card width cannot be negative: {card_width}")
    name = SIZE_BANDS[0][1]
    for low, band in SIZE_BANDS:
        if card_width >= low:
            name = band
    return name


def _rate(part: int, whole: int) -> str:
    return f"{part / whole:.2%}" if whole else "-"


def breakdown_lines(by_size: dict[str, Any], total: Score) -> list[str]:
    """The breakdown's lines: one per size band met (`by_size` holds a score with a
    `.score` per band name), then one per condition met in `total`."""
    lines = [f"  {'by card width':<30}{'scenes':>7}{'cards':>7}{'precision':>11}"
             f"{'recall':>9}{'hands':>8}"]
    for _low, band in SIZE_BANDS:
        if band in by_size:
            s = by_size[band].score
            lines.append(f"  {band:<30}{s.scenes:>7}{s.truth_cards:>7}{s.precision:>11.2%}"
                         f"{s.recall:>9.2%}{s.hand_rate:>8.2%}")
    lines.append(f"  {'under condition':<30}{'scenes':>7}{'cards':>7}{'precision':>11}"
                 f"{'recall':>9}")
    for name in CONDITIONS:
        if name in total.by_condition:
            scenes, cards, read, detections, matched = total.by_condition[name]
            lines.append(f"  {name:<30}{scenes:>7}{cards:>7}{_rate(matched, detections):>11}"
                         f"{_rate(read, cards):>9}")
    return lines
