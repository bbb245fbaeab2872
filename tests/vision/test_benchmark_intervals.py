"""The Wilson intervals the real-deck benchmark prints beside its rates."""

from __future__ import annotations

import pytest

from tests.vision.benchmark_modules import benchmark_module

intervals = benchmark_module("intervals")


def test_newcombes_worked_example() -> None:
    # Newcombe (1998), Statistics in Medicine 17:857, table I: 81/263, Wilson 0.2553-0.3662.
    low, high = intervals.wilson_interval(81, 263)
    assert low == pytest.approx(0.2553, abs=5e-5) and high == pytest.approx(0.3662, abs=5e-5)


@pytest.mark.parametrize("trials", [10, 263, 3335])
def test_none_and_all_have_the_closed_forms(trials: int) -> None:
    # With no successes the score interval runs from 0 to z^2/(n + z^2); with all of
    # them from n/(n + z^2) to 1 (setting the rate to 0 or 1 in Wilson's formula).
    z2 = intervals.Z_95 ** 2
    assert intervals.wilson_interval(0, trials) == pytest.approx((0.0, z2 / (trials + z2)))
    assert intervals.wilson_interval(trials, trials) == pytest.approx((trials / (trials + z2), 1.0))


def test_a_rate_under_its_target_beyond_chance_or_not() -> None:
    # Recall 98.13% of 3,375 cards: the whole interval is under 99.5%.
    assert intervals.wilson_interval(3312, 3375)[1] < 0.995
    # Precision 99.31% of 3,335 reads: 99.5% lies inside the interval.
    low, high = intervals.wilson_interval(3312, 3335)
    assert low < 0.995 < high
    # By hand: centre (p + z^2/2n) / (1 + z^2/n) = 0.992536, half-width 0.002864.
    assert intervals.interval_text(3312, 3335) == "95% interval 98.97%-99.54%"


def test_bad_counts_are_refused_and_nothing_measured_is_anything() -> None:
    assert intervals.wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="5 successes of 4"):
        intervals.wilson_interval(5, 4)
