"""How far a measured rate can be from the true one: Wilson score intervals.

A benchmark's precision, recall and hands are rates over a few thousand cards
or a thousand hands; the interval says whether a rate under its target is
under it beyond chance (Wilson 1927; Newcombe 1998, "Two-sided confidence
intervals for the single proportion", method 3).
"""

from __future__ import annotations

import math

Z_95 = 1.959964  # the normal quantile of a two-sided 95% interval


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """(low, high) of the Wilson score interval of successes/trials; (0, 1) for none."""
    if trials <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes of {trials} trials")
    rate = successes / trials
    z2 = z * z
    centre = (rate + z2 / (2 * trials)) / (1 + z2 / trials)
    half = (z / (1 + z2 / trials)) * math.sqrt(rate * (1 - rate) / trials
                                                + z2 / (4 * trials * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


def interval_text(successes: int, trials: int) -> str:
    """'95% interval 99.01-99.52%'."""
    low, high = wilson_interval(successes, trials)
    return f"95% interval {low:.2%}-{high:.2%}"
