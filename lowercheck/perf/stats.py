"""Statistics of a paired A/B benchmark: medians, and a bootstrap confidence interval of the ratio.

The harness times the source and the target once per round, so the samples come in pairs that share
the round's conditions (clocks, temperature, other tenants). The ratio is estimated as the median of
the per-round ratios target/source, which cancels whatever the two sides of a round share, and its
confidence interval is a seeded percentile bootstrap over rounds (a round is resampled whole).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# The bootstrap resamples in chunks of at most this many elements, so memory stays bounded
# whatever the number of rounds.
_CHUNK_ELEMENTS = 2_000_000


@dataclass(frozen=True)
class RatioEstimate:
    """The ratio target/source with its confidence interval [low, high], from `rounds` pairs."""

    ratio: float
    low: float
    high: float
    confidence: float
    rounds: int

    @property
    def relative_width(self) -> float:
        """The interval's full width over the estimate: 0.01 means e.g. [0.796, 0.804] around 0.8."""
        return relative_width(self.low, self.high, self.ratio)

    def to_json(self) -> dict[str, float | int]:
        return {"ratio": self.ratio, "low": self.low, "high": self.high, "confidence": self.confidence,
                "rounds": self.rounds, "relative_width": self.relative_width}


def median(samples: Sequence[float] | np.ndarray) -> float:
    """The median of the samples (the mean of the middle two for an even count)."""
    values = np.asarray(samples, dtype=np.float64)
    if values.size == 0:
        raise ValueError("median of no samples")
    return float(np.median(values))


def relative_width(low: float, high: float, estimate: float) -> float:
    """(high - low) / estimate; infinite when the estimate is 0 or not finite."""
    if not math.isfinite(estimate) or estimate == 0:
        return math.inf
    return (high - low) / abs(estimate)


def ratio_ci(source: Sequence[float] | np.ndarray, target: Sequence[float] | np.ndarray, *,
             confidence: float = 0.95, resamples: int = 1000, seed: int = 0) -> RatioEstimate:
    """Median of target[i]/source[i] and its percentile-bootstrap confidence interval.

    `source[i]` and `target[i]` are the times of round i. The interval is the (1-c)/2 and (1+c)/2
    percentiles of the median ratio over `resamples` resamplings of the rounds with replacement,
    drawn from a generator seeded with `seed`, so the same samples give the same interval."""
    a = np.asarray(source, dtype=np.float64)
    b = np.asarray(target, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired samples must be two 1-D sequences of one length, got {a.shape} and {b.shape}")
    if a.size == 0:
        raise ValueError("no samples")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    if np.any(a <= 0):
        raise ValueError("source times must be positive")
    ratios = b / a
    rng = np.random.default_rng(seed)
    n = ratios.size
    per_chunk = max(1, _CHUNK_ELEMENTS // n)
    medians = np.empty(resamples)
    for start in range(0, resamples, per_chunk):
        count = min(per_chunk, resamples - start)
        picks = rng.integers(0, n, size=(count, n))
        medians[start:start + count] = np.median(ratios[picks], axis=1)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(medians, [tail, 100 - tail])
    return RatioEstimate(float(np.median(ratios)), float(low), float(high), confidence, n)
