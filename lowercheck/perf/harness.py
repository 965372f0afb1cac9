"""The benchmark loop: source and target in one process, alternating, until the ratio is known.

`measure(device, source, target, make_inputs)` runs both sides on the same device and inputs. One
round times each side twice, in a random order: cold (persisting-L2 reset, then a write of
`flush_factor` x the device's L2 size, so nothing of the previous sample stays cached) and hot (the
same call again at once). Input sets rotate through a pool larger than the L2 where memory allows,
so a side never sees the buffers of the previous round. Each sample is timed by events on the
current stream and by the host clock between two device-wide synchronises: work the events miss
(another stream, lazy evaluation) shows as a gap between the two. A round with a clock reading below
`throttle_fraction` of the maximum is discarded whole. The loop stops when the relative width of the
confidence interval of the ratio is under the target for both cold and hot, or when the time budget
ends. The same code runs on `FakeDevice` and `CudaDevice`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lowercheck.perf.device import Clocks, Device
from lowercheck.perf.stats import RatioEstimate, median, ratio_ci

SIDES = ("source", "target")
_FALLBACK_FLUSH_BYTES = 256 * 2**20  # for a device that reports no L2 size (do_bench's figure)


@dataclass(frozen=True)
class BenchOptions:
    """How long and how precisely to measure. Times are on the device's host clock."""

    warmup_s: float = 0.2  # both sides run alternately at least this long before any sample
    min_warmup_calls: int = 2  # ... and at least this often each (the first call may compile)
    budget_s: float = 10.0  # the measurement stops after this long, converged or not
    target_relative_width: float = 0.01  # stop when (high - low) / ratio is below this, cold and hot
    confidence: float = 0.95
    min_rounds: int = 10  # kept rounds before the first convergence check
    max_rounds: int = 100_000
    resamples: int = 1000  # bootstrap resamples per confidence interval
    flush_factor: float = 2.0  # the flush writes this many times the L2 size
    pool_memory_fraction: float = 0.25  # the input pool uses at most this share of free memory
    max_pool_sets: int = 16384  # 3 KiB sets already fill a 50 MiB L2
    throttle_fraction: float = 0.75  # a clock below this share of its maximum discards the round
    gap_fraction: float = 0.2  # wall time unexplained by events above this share of it is flagged ...
    gap_floor_s: float = 20e-6  # ... when also above this many seconds
    overhead_samples: int = 20  # empty samples that measure the timing overhead
    seed: int = 0  # the order of the sides in each round, and the bootstrap


@dataclass(frozen=True)
class Sample:
    """One timed call: device time between the events, host time between the synchronises."""

    event_s: float
    wall_s: float


@dataclass(frozen=True)
class CacheStats:
    """Kept samples (event times) of one cache state, their medians, and the ratio target/source."""

    source_s: tuple[float, ...]
    target_s: tuple[float, ...]
    estimate: RatioEstimate

    @property
    def source_median_s(self) -> float:
        return median(self.source_s)

    @property
    def target_median_s(self) -> float:
        return median(self.target_s)

    def to_json(self) -> dict[str, Any]:
        return {"source_median_s": self.source_median_s, "target_median_s": self.target_median_s,
                **self.estimate.to_json(), "source_s": list(self.source_s), "target_s": list(self.target_s)}


@dataclass(frozen=True)
class WallGap:
    """One side's cross-check of device events against synchronised host time. `excess_s` is the
    median of (wall - event) beyond that of an empty sample: time the events did not see."""

    side: str
    event_median_s: float
    wall_median_s: float
    excess_s: float
    flagged: bool

    def to_json(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass(frozen=True)
class ClockSummary:
    """The SM clock readings taken around each round, in MHz."""

    min_mhz: float
    median_mhz: float
    max_mhz: float
    max_sm_mhz: float
    readings: int

    def to_json(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass(frozen=True)
class BenchResult:
    """What a benchmark measured and how. `cold`/`hot` are None when no round was kept."""

    device: str
    cold: CacheStats | None
    hot: CacheStats | None
    rounds_kept: int
    rounds_discarded: int  # throttled rounds
    stop_reason: str  # "converged", "budget" or "max_rounds"
    measured_s: float
    warmup_s: float
    overhead_s: float  # (wall - event) of an empty sample
    l2_bytes: int
    flush_bytes: int
    pool_sets: int
    pool_bytes: int
    persisting_l2_reset: bool
    clocks: ClockSummary | None
    gaps: tuple[WallGap, ...]
    notes: tuple[str, ...] = field(default=())

    @property
    def ratio(self) -> float | None:
        """The cold-cache ratio target/source (below 1: the target is faster)."""
        return self.cold.estimate.ratio if self.cold else None

    def to_json(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "ratio": self.ratio,
            "cold": self.cold.to_json() if self.cold else None,
            "hot": self.hot.to_json() if self.hot else None,
            "rounds_kept": self.rounds_kept,
            "rounds_discarded": self.rounds_discarded,
            "stop_reason": self.stop_reason,
            "measured_s": self.measured_s,
            "warmup_s": self.warmup_s,
            "overhead_s": self.overhead_s,
            "l2_bytes": self.l2_bytes,
            "flush_bytes": self.flush_bytes,
            "pool_sets": self.pool_sets,
            "pool_bytes": self.pool_bytes,
            "persisting_l2_reset": self.persisting_l2_reset,
            "clocks": self.clocks.to_json() if self.clocks else None,
            "gaps": [gap.to_json() for gap in self.gaps],
            "notes": list(self.notes),
        }


def flush_bytes_for(device: Device, options: BenchOptions = BenchOptions()) -> int:
    """The size of the buffer written before each cold sample: `flush_factor` x the device's L2."""
    if device.l2_bytes <= 0:
        return _FALLBACK_FLUSH_BYTES
    return int(options.flush_factor * device.l2_bytes)


def pool_size(set_bytes: int, l2_bytes: int, free_bytes: int, options: BenchOptions = BenchOptions()) -> int:
    """How many input sets to rotate through: enough that together they exceed the L2, as far as
    `pool_memory_fraction` of the free memory and `max_pool_sets` allow; at least 2 when memory
    allows, so consecutive rounds never share buffers."""
    if set_bytes <= 0:
        return 2
    wanted = max(2, l2_bytes // set_bytes + 1)
    by_memory = int(options.pool_memory_fraction * free_bytes) // set_bytes
    return max(1, min(wanted, options.max_pool_sets, by_memory))


def measure(device: Device, source: Callable[..., Any], target: Callable[..., Any],
            make_inputs: Callable[[], Sequence[Any]], options: BenchOptions = BenchOptions()) -> BenchResult:
    """Time `source(*inputs)` against `target(*inputs)` on `device`; `make_inputs()` returns one
    fresh input set (the same sets feed both sides)."""
    notes: list[str] = []
    functions = {"source": source, "target": target}
    flush_bytes = flush_bytes_for(device, options)
    if device.l2_bytes <= 0:
        notes.append(f"the device reports no L2 size: flushing {flush_bytes} bytes")
    flush = device.alloc(flush_bytes)
    pool = _input_pool(device, make_inputs, options, notes)
    pool_bytes = sum(_nbytes(inputs) for inputs in pool)

    warmup_start = device.wall_time()
    calls = 0
    while calls < options.min_warmup_calls or device.wall_time() - warmup_start < options.warmup_s:
        for side in SIDES:
            functions[side](*pool[calls % len(pool)])
        device.synchronize()
        calls += 1
    warmup_s = device.wall_time() - warmup_start
    empty = [_sample(device, _nothing, ()) for _ in range(options.overhead_samples)]
    overhead_s = median([s.wall_s - s.event_s for s in empty])

    order_rng = random.Random(options.seed)
    persisting = True
    cold: dict[str, list[Sample]] = {side: [] for side in SIDES}
    hot: dict[str, list[Sample]] = {side: [] for side in SIDES}
    readings: list[Clocks] = []
    discarded = 0
    next_check = options.min_rounds
    converged: tuple[RatioEstimate, RatioEstimate] | None = None
    stop_reason = "max_rounds"
    start = device.wall_time()
    for round_index in range(options.max_rounds):
        inputs = pool[round_index % len(pool)]
        order = SIDES if order_rng.random() < 0.5 else SIDES[::-1]
        before = device.clocks()
        round_cold: dict[str, Sample] = {}
        round_hot: dict[str, Sample] = {}
        for side in order:
            if persisting:
                persisting = device.reset_persisting_l2()
            device.fill(flush, round_index & 0xFF)
            round_cold[side] = _sample(device, functions[side], inputs)
            round_hot[side] = _sample(device, functions[side], inputs)
        after = device.clocks()
        taken = [c for c in (before, after) if c is not None]
        readings.extend(taken)
        if any(c.throttled(options.throttle_fraction) for c in taken):
            discarded += 1
        else:
            for side in SIDES:
                cold[side].append(round_cold[side])
                hot[side].append(round_hot[side])
        kept = len(cold["source"])
        if kept >= next_check:
            next_check = max(next_check + 1, math.ceil(next_check * 1.25))
            estimates = (_estimate(cold, options), _estimate(hot, options))
            if all(e.relative_width < options.target_relative_width for e in estimates):
                converged, stop_reason = estimates, "converged"
                break
        if device.wall_time() - start >= options.budget_s:
            stop_reason = "budget"
            break
    measured_s = device.wall_time() - start

    if not persisting:
        notes.append("persisting-L2 reset unavailable: a persisting access window could survive the flush")
    clocks = _clock_summary(readings)
    if clocks is None:
        notes.append("no clock readings (NVML unavailable): throttled samples could not be discarded")
    if discarded:
        notes.append(f"{discarded} throttled round(s) discarded")
    kept = len(cold["source"])
    if 0 < kept < options.min_rounds:
        notes.append(f"only {kept} round(s) kept (fewer than {options.min_rounds}): the interval is unreliable")
    cold_stats = hot_stats = None
    if kept:
        cold_estimate, hot_estimate = converged or (_estimate(cold, options), _estimate(hot, options))
        cold_stats = _cache_stats(cold, cold_estimate)
        hot_stats = _cache_stats(hot, hot_estimate)
    else:
        notes.append("no round was kept: no ratio")
    gaps = tuple(_wall_gap(side, cold[side] + hot[side], overhead_s, options) for side in SIDES if cold[side])
    return BenchResult(device.name, cold_stats, hot_stats, kept, discarded, stop_reason, measured_s, warmup_s,
                       overhead_s, device.l2_bytes, flush_bytes, len(pool), pool_bytes, persisting, clocks, gaps,
                       tuple(notes))


def _nothing() -> None:
    return None


def _sample(device: Device, function: Callable[..., Any], args: Sequence[Any]) -> Sample:
    device.synchronize()
    wall_start = device.wall_time()
    start = device.record_event()
    function(*args)
    end = device.record_event()
    device.synchronize()
    wall_s = device.wall_time() - wall_start
    return Sample(device.elapsed_s(start, end), wall_s)


def _nbytes(value: Any) -> int:
    if isinstance(value, (tuple, list)):
        return sum(_nbytes(item) for item in value)
    if isinstance(value, dict):
        return sum(_nbytes(item) for item in value.values())
    return int(getattr(value, "nbytes", 0))


def _input_pool(device: Device, make_inputs: Callable[[], Sequence[Any]], options: BenchOptions,
                notes: list[str]) -> list[Sequence[Any]]:
    first = make_inputs()
    set_bytes = _nbytes(first)
    count = pool_size(set_bytes, device.l2_bytes, device.free_bytes(), options)
    pool = [first] + [make_inputs() for _ in range(count - 1)]
    if set_bytes <= 0:
        notes.append("input sizes unknown (no `nbytes`): rotating 2 input sets")
    elif count * set_bytes <= device.l2_bytes:
        limit = "max_pool_sets" if count == options.max_pool_sets else "free memory"
        notes.append(f"input pool ({count} sets, {count * set_bytes} bytes) not larger than the L2 "
                     f"({device.l2_bytes} bytes): limited by {limit}")
    return pool


def _estimate(samples: dict[str, list[Sample]], options: BenchOptions) -> RatioEstimate:
    return ratio_ci([s.event_s for s in samples["source"]], [s.event_s for s in samples["target"]],
                    confidence=options.confidence, resamples=options.resamples, seed=options.seed)


def _cache_stats(samples: dict[str, list[Sample]], estimate: RatioEstimate) -> CacheStats:
    return CacheStats(tuple(s.event_s for s in samples["source"]), tuple(s.event_s for s in samples["target"]),
                      estimate)


def _wall_gap(side: str, samples: list[Sample], overhead_s: float, options: BenchOptions) -> WallGap:
    wall = median([s.wall_s for s in samples])
    excess = median([s.wall_s - s.event_s for s in samples]) - overhead_s
    flagged = excess > max(options.gap_floor_s, options.gap_fraction * wall)
    return WallGap(side, median([s.event_s for s in samples]), wall, excess, flagged)


def _clock_summary(readings: list[Clocks]) -> ClockSummary | None:
    if not readings:
        return None
    mhz = np.array([c.sm_mhz for c in readings])
    return ClockSummary(float(mhz.min()), float(np.median(mhz)), float(mhz.max()),
                        max(c.max_sm_mhz for c in readings), len(readings))
