"""The statistics of the benchmark on synthetic samples with a known true ratio."""

from __future__ import annotations

import numpy as np
import pytest

from lowercheck.perf.stats import median, ratio_ci, relative_width

TRUE_RATIO = 0.8


def _experiment(rng: np.random.Generator, rounds: int) -> tuple[np.ndarray, np.ndarray]:
    """Paired times whose per-round ratio has median TRUE_RATIO: a factor shared by the round
    (clock drift) times independent per-sample noise, both log-normal."""
    shared = rng.lognormal(0.0, 0.1, rounds)
    source = 100e-6 * shared * rng.lognormal(0.0, 0.05, rounds)
    target = TRUE_RATIO * 100e-6 * shared * rng.lognormal(0.0, 0.05, rounds)
    return source, target


def _coverage(confidence: float, experiments: int) -> float:
    rng = np.random.default_rng(1)
    covered = 0
    for seed in range(experiments):
        estimate = ratio_ci(*_experiment(rng, 40), confidence=confidence, resamples=600, seed=seed)
        covered += estimate.low <= TRUE_RATIO <= estimate.high
    return covered / experiments


def test_95_percent_interval_covers_the_true_ratio_95_percent_of_the_time():
    # 400 experiments: the binomial standard error at 0.95 is 0.011, so [0.91, 0.985] is +-3.5 sigma.
    assert 0.91 <= _coverage(0.95, 400) <= 0.985


def test_coverage_follows_the_confidence_level():
    # The same check at 50% must cover about half the time: the interval is neither always wide nor
    # always narrow.
    assert 0.38 <= _coverage(0.5, 200) <= 0.62


def test_interval_narrows_with_more_rounds_and_the_shared_factor_cancels():
    rng = np.random.default_rng(2)
    few = ratio_ci(*_experiment(rng, 20))
    many = ratio_ci(*_experiment(rng, 2000))
    assert many.relative_width < few.relative_width / 5
    # The shared per-round factor (sd 0.1) would dominate a ratio of medians; the median of paired
    # ratios sees only the per-sample noise (sd 0.05 * sqrt 2).
    assert many.relative_width < 0.015
    assert many.low <= TRUE_RATIO <= many.high


def test_same_seed_same_interval_and_noiseless_samples_give_a_point():
    rng = np.random.default_rng(3)
    source, target = _experiment(rng, 50)
    assert ratio_ci(source, target, seed=7) == ratio_ci(source, target, seed=7)
    exact = ratio_ci([2.0] * 10, [1.0] * 10)
    assert (exact.ratio, exact.low, exact.high, exact.relative_width) == (0.5, 0.5, 0.5, 0.0)


def test_median_and_relative_width():
    assert median([3.0, 1.0, 2.0]) == 2.0
    assert median([4.0, 1.0, 2.0, 3.0]) == 2.5
    assert relative_width(0.79, 0.81, 0.8) == pytest.approx(0.025)
    assert relative_width(0.0, 1.0, 0.0) == float("inf")
    with pytest.raises(ValueError):
        median([])


def test_rejects_unpaired_or_empty_samples():
    with pytest.raises(ValueError):
        ratio_ci([1.0, 2.0], [1.0])
    with pytest.raises(ValueError):
        ratio_ci([], [])
    with pytest.raises(ValueError):
        ratio_ci([0.0], [1.0])
