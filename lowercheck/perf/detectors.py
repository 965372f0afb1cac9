"""Loophole detectors: a timing only a faster kernel can win, or a finding that says why not.

- LC402, implausible speed: the cold-cache median implies more bandwidth or FLOP/s than the device's
  ceiling (`lowercheck.perf.targets`) for the bytes and FLOPs the caller says the kernel must move
  and compute; or device events missed work that synchronised wall time saw (another stream, lazy
  evaluation).
- LC403, result caching: the kernel's output must change when its inputs change in place.
- LC401 states the measured ratio.
Detectors return `Finding`s and never print.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from lowercheck.findings import Finding
from lowercheck.perf.harness import SIDES, BenchResult
from lowercheck.perf.targets import Target

PerSide = float | Mapping[str, float] | None  # one figure for both sides, or one per side


def check_speed(side: str, seconds: float, target: Target, *, bytes_moved: float | None = None,
                flops: float | None = None, dtype: str = "fp32", slack: float = 1.1) -> list[Finding]:
    """LC402 when `bytes_moved` in `seconds` exceeds the target's memory bandwidth, or `flops` in
    `seconds` its FLOP/s for `dtype`, by more than `slack` (datasheet rounding, boost clocks).

    Pass the compulsory traffic and a cold-cache time: a hot-cache time may legitimately beat the
    memory bandwidth out of the L2."""
    findings = []
    checks = [("bandwidth", bytes_moved, target.hbm_bytes_per_s, "B", "bytes")]
    if flops is not None:
        checks.append((f"{dtype} FLOP/s", flops, target.peak_flops(dtype), "FLOP", "flops"))
    for what, amount, ceiling, unit, key in checks:
        if amount is None or ceiling is None or seconds <= 0:
            continue
        achieved = amount / seconds
        if achieved > slack * ceiling:
            findings.append(Finding(
                "LC402", f"{side}: {_si(achieved)}{unit}/s achieved ({_si(amount)}{unit} in {_si(seconds)}s, "
                f"cold-cache median) exceeds the {target.name}'s {what} ceiling of {_si(ceiling)}{unit}/s",
                side=side, witness={key: amount, "seconds": seconds, "achieved": achieved, "ceiling": ceiling,
                                    "target": target.name, "ceiling_source": target.source},
                hint="the timing missed work: check that the kernel runs on the timed stream and computes "
                     "every call; or the byte/FLOP count given to the detector is too high"))
    return findings


def check_wall_gaps(result: BenchResult) -> list[Finding]:
    """LC402 for each side whose device events missed a share of the synchronised wall time."""
    return [Finding(
        "LC402", f"{gap.side}: device events saw {_si(gap.event_median_s)}s of a synchronised wall time of "
        f"{_si(gap.wall_median_s)}s ({_si(gap.excess_s)}s beyond the timing overhead): work on another stream, "
        f"or deferred (lazy) work", side=gap.side,
        witness={"event_median_s": gap.event_median_s, "wall_median_s": gap.wall_median_s,
                 "excess_s": gap.excess_s, "overhead_s": result.overhead_s},
        hint="launch on the current stream and finish the work inside the call") for gap in result.gaps if gap.flagged]


def ratio_finding(result: BenchResult) -> Finding | None:
    """LC401: the cold- and hot-cache ratios target/source with their confidence intervals."""
    if result.cold is None or result.hot is None:
        return None
    cold, hot = result.cold.estimate, result.hot.estimate
    return Finding(
        "LC401", f"target/source = {cold.ratio:.3f} [{cold.low:.3f}, {cold.high:.3f}] cold cache, {hot.ratio:.3f} "
        f"[{hot.low:.3f}, {hot.high:.3f}] hot cache ({cold.confidence:.0%} intervals, {result.rounds_kept} rounds, "
        f"stopped: {result.stop_reason}) on {result.device}",
        witness={"cold": cold.to_json(), "hot": hot.to_json(), "stop_reason": result.stop_reason})


def check_result(result: BenchResult, target: Target | None = None, *, bytes_moved: PerSide = None,
                 flops: PerSide = None, dtype: str = "fp32") -> list[Finding]:
    """All findings of one benchmark: LC401 (the ratio), LC402 from the wall-time cross-check, and
    LC402 from the ceilings when a target and the work per call (`bytes_moved`, `flops`) are given."""
    findings = [f for f in (ratio_finding(result),) if f is not None]
    findings += check_wall_gaps(result)
    if target is not None and result.cold is not None:
        medians = {"source": result.cold.source_median_s, "target": result.cold.target_median_s}
        for side in SIDES:
            findings += check_speed(side, medians[side], target, bytes_moved=_for_side(bytes_moved, side),
                                    flops=_for_side(flops, side), dtype=dtype)
    return findings


def check_caching(kernel: Callable[..., Any], make_inputs: Callable[[], Sequence[Any]], *, side: str = "target",
                  reference: Callable[..., Any] | None = None) -> list[Finding]:
    """LC403 when the kernel's output does not change after its inputs change in place.

    Calls `kernel(*inputs)`, copies the values of a second `make_inputs()` set into the same
    buffers, and calls it again. When `reference` (the other side) is given and its output does not
    change either, the inputs do not matter to the result and nothing is reported."""
    inputs, fresh = list(make_inputs()), list(make_inputs())
    first = _snapshot(kernel(*inputs))
    reference_first = _snapshot(reference(*inputs)) if reference else None
    before = _snapshot(inputs)
    for buffer, values in zip(inputs, fresh):
        _overwrite(buffer, values)
    if _same(before, _snapshot(inputs)):
        raise ValueError("make_inputs() gave the same values twice (or no array inputs): cannot test for caching")
    second = _snapshot(kernel(*inputs))
    if not _same(first, second):
        return []
    if reference is not None and _same(reference_first, _snapshot(reference(*inputs))):
        return []
    keyed_on_buffers = not _same(second, _snapshot(kernel(*fresh)))
    why = ("the same values in new buffers give a different output: the result is cached per buffer"
           if keyed_on_buffers else "new buffers with the new values give the same stale output")
    return [Finding("LC403", f"{side} returned the same output after its inputs changed in place ({why})",
                    side=side, witness={"calls": 3, "cached_per_buffer": keyed_on_buffers},
                    hint="compute on every call; never memoise on an input's pointer, shape or identity")]


def _for_side(value: PerSide, side: str) -> float | None:
    if isinstance(value, Mapping):
        return value.get(side)
    return value


def _is_torch(value: Any) -> bool:
    return type(value).__module__.startswith("torch")


def _snapshot(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return tuple(_snapshot(item) for item in value)
    if isinstance(value, dict):
        return {key: _snapshot(item) for key, item in value.items()}
    if isinstance(value, np.ndarray):
        return value.copy()
    if _is_torch(value) and hasattr(value, "clone"):
        return value.detach().clone()
    return value


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if _is_torch(a) and _is_torch(b) and hasattr(a, "isnan"):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return bool(a == b)


def _overwrite(buffer: Any, values: Any) -> None:
    if isinstance(buffer, np.ndarray):
        np.copyto(buffer, values)
    elif _is_torch(buffer) and hasattr(buffer, "copy_"):
        buffer.copy_(values)


def _si(value: float) -> str:
    """3 significant digits with an SI prefix: 3.35e12 -> '3.35 T'."""
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1, ""), (1e-3, "m"), (1e-6, "µ"),
                           (1e-9, "n")):
        if abs(value) >= factor:
            return f"{value / factor:.3g} {prefix}"
    return f"{value:.3g} "
