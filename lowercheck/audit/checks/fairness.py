"""Benchmark fairness: would the task's timing reward a better kernel, or can measurement win?

Input checks (LC611, LC612, LC615) read the reference's runs; timing checks (LC613, LC614, LC621 to
LC624) compare the harness's method with the target's figures (L2 size, bandwidth, peak FLOP/s).
Where a CUDA device is present the reference is also timed natively (warm and cold L2, the launch
cost), and the figures are the measured ones.
"""

from __future__ import annotations

import math

from lowercheck.audit.checker import judge
from lowercheck.audit.checks import Context, NotChecked, check, needs_deterministic, needs_runs, needs_timing
from lowercheck.compare.tolerance import dtype_name
from lowercheck.findings import Evidence, Finding
from lowercheck.perf import detectors
from lowercheck.perf.cost import _bytes

# The cost of one kernel launch from PyTorch: a few microseconds of CPU-side dispatch and launch
# latency (CUDA launch latency alone is 2 to 5 us; docs/audit.md): a floor below it is unmeasurable.
LAUNCH_OVERHEAD_S = 5e-6
UNIFORM_PEAK = 3.0  # a softmax row whose largest value is under 3x the uniform 1/n is "nearly uniform"
MIN_REPS, MIN_REPS_MEAN = 10, 30


def _si(value: float, unit: str) -> str:
    return detectors._si(value) + unit


@check("LC611", "fairness", "inputs that make the operation trivial")
def trivial_inputs(context: Context) -> list[Finding]:
    needs_runs(context)
    facts = context.probe.facts
    where = context.task.inputs_location()
    findings = []
    for op, count in sorted((facts.get("identity_ops") or {}).items()):
        findings.append(Finding("LC611", f"`{op}` returns its input unchanged on the task's inputs ({count} call(s)): "
                                         "a solution that skips it passes bit for bit",
                                location=where, witness={"op": op, "calls": count},
                                hint="draw signed inputs (torch.randn) that the operation changes",
                                evidence=Evidence.OBSERVED))
    peak = facts.get("softmax_peak")
    if peak is not None and peak <= UNIFORM_PEAK:
        findings.append(Finding("LC611", f"the softmax is nearly uniform on the task's inputs: its largest value is "
                                         f"{peak:.2f}x the uniform 1/n; a constant output passes loose tolerances",
                                location=where, witness={"softmax_peak": peak},
                                hint="logits with a spread (randn * a scale, some large values)", evidence=Evidence.OBSERVED))
    for pattern in facts.get("input_patterns") or []:
        what = (f"constant ({pattern['value']:g} everywhere)" if pattern["pattern"] == "constant"
                else "made of one row repeated")
        findings.append(Finding("LC611", f"input {pattern['input']} is {what}: a solution computing one row passes",
                                location=where, witness=pattern, hint="draw every element independently",
                                evidence=Evidence.OBSERVED))
    return findings


@check("LC612", "fairness", "inputs identical across trials or timed calls")
def identical_inputs(context: Context) -> list[Finding]:
    task, facts = context.task, context.probe.facts
    correctness, timing = task.harness.correctness, task.harness.timing
    problems = []
    if correctness.trials > 1:
        if "inputs_vary" not in facts and timing is None:
            needs_runs(context)  # what the trials draw is known only from running get_inputs
        if facts.get("inputs_vary") is False:
            problems.append(f"the {correctness.trials} correctness trials draw identical inputs "
                            f"(seed = {correctness.seed!r})")
    if timing is not None and not timing.fresh_inputs:
        problems.append(f"the {timing.reps} timed calls reuse one set of inputs")
    if not problems:
        return []
    key = "fresh_inputs" if timing is not None and not timing.fresh_inputs else "seed"
    return [Finding("LC612", "; ".join(problems) + ": a solution that caches its result (keyed on the data "
                             "pointer or the shape) passes and is timed on the cached answer",
                    location=task.location(key), witness={"trials": correctness.trials, "seed": correctness.seed},
                    hint="a seed per trial; fresh inputs (or an in-place change of them) for each timed call",
                    evidence=Evidence.HARNESS)]


@check("LC613", "fairness", "stale outputs from recycled allocations")
def recycled_outputs(context: Context) -> list[Finding]:
    correctness = context.task.harness.correctness
    if correctness.order != "reference-first" or correctness.poison_freed:
        return []
    return [Finding("LC613", "the checker runs the reference first in the same process and does not overwrite freed "
                             "memory: a solution returning torch.empty_like(x) can receive the block holding the "
                             "reference's output (the CUDA caching allocator reuses it) and pass without computing",
                    location=context.task.location("order"), witness={"order": correctness.order},
                    hint="run the solution first or in its own process, or set poison_freed (fill freed memory)",
                    evidence=Evidence.HARNESS)]


def _floor(context: Context) -> tuple[float, float, float, str]:
    """(floor seconds, bytes, FLOPs, text) of the reference's roofline on the target."""
    meta, target = context.probe.meta, context.target
    if meta.get("error") or not meta:
        raise NotChecked(f"the reference's sizes are unknown: {meta.get('error', 'it did not run')}")
    moved = float(meta["input_bytes"] + meta["output_bytes"] + meta["param_bytes"])
    flops = float(meta.get("flops") or 0.0)
    dtype = "bf16" if "bfloat16" in meta.get("dtypes", ()) else "fp16" if "float16" in meta.get("dtypes", ()) else "fp32"
    peak = target.peak_flops(dtype) or target.bf16_flops
    memory_s, compute_s = moved / target.hbm_bytes_per_s, flops / peak if peak else 0.0
    text = f"{_bytes(moved)} moved at {_si(target.hbm_bytes_per_s, 'B/s')} = {_si(memory_s, 's')}"
    if flops:
        text += f"; {_si(flops, 'FLOP')} at {_si(peak, 'FLOP/s')} = {_si(compute_s, 's')}"
    return max(memory_s, compute_s), moved, flops, text


@check("LC614", "fairness", "timed work below launch overhead")
def below_launch_overhead(context: Context) -> list[Finding]:
    needs_timing(context)
    floor, _, _, text = _floor(context)
    measured = (context.probe.facts.get("timing") or {}).get("launch_s")
    overhead = measured or LAUNCH_OVERHEAD_S
    if floor >= overhead:
        return []
    source = "measured here" if measured else "a typical launch from PyTorch"
    return [Finding("LC614", f"the roofline floor of one call on the {context.target.name} is {_si(floor, 's')} "
                             f"({text}), below the {_si(overhead, 's')} of a kernel launch ({source}): the timing "
                             "measures launches, not the kernel",
                    location=context.task.location("reference"), witness={"floor_s": floor, "launch_s": overhead},
                    hint="sizes whose floor is tens of microseconds", evidence=Evidence.MEASURED)]


@check("LC615", "fairness", "every size a multiple of the tile")
def tile_multiples(context: Context) -> list[Finding]:
    facts = context.probe.facts
    shapes = facts.get("trial_shapes") or ([[i["shape"] for i in context.probe.meta.get("inputs", [])]]
                                           if context.probe.meta.get("inputs") else None)
    if not shapes:
        needs_runs(context)
        return []
    dims = [d for trial in shapes for shape in trial for d in shape if d >= 16]
    if not dims:
        return []
    common = math.gcd(*dims)
    tile = 1 << (common.bit_length() - 1) if common else 0
    while tile and common % tile:
        tile >>= 1
    if tile < 16:
        return []
    return [Finding("LC615", f"every input dimension of 16 or more is a multiple of {tile} ({sorted(set(dims))}): "
                             "a solution without tail masks passes, and no tail is ever timed",
                    location=context.task.inputs_location(), witness={"tile": tile, "dims": sorted(set(dims))},
                    hint="include a size that is not a multiple of any tile (e.g. 1000 + 7)", evidence=Evidence.OBSERVED)]


@check("LC621", "fairness", "warm-L2 timing")
def warm_l2(context: Context) -> list[Finding]:
    timing = needs_timing(context)
    if timing.l2_flush:
        return []
    l2 = context.target.l2_bytes
    if l2 is None:
        raise NotChecked(f"no L2 size for {context.target.name}")
    _, moved, _, _ = _floor(context)
    if moved > l2:
        return []
    native = context.probe.facts.get("timing") or {}
    measured = (f"; measured here: warm {_si(native['warm_s'], 's')}, cold {_si(native['cold_s'], 's')}"
                if native.get("warm_s") else "")
    return [Finding("LC621", f"one call's working set ({_bytes(moved)}) fits the {context.target.name}'s L2 "
                             f"({_bytes(l2)}) and the harness does not flush it: every timed call after the first "
                             f"reads from L2{measured}",
                    location=context.task.location("l2_flush"), witness={"working_set": moved, "l2_bytes": l2},
                    hint="flush L2 before each timed call (write a buffer larger than L2) or rotate input copies",
                    evidence=Evidence.MEASURED if measured else Evidence.HARNESS)]


@check("LC622", "fairness", "timer blind to other streams")
def other_streams(context: Context) -> list[Finding]:
    timing = needs_timing(context)
    problems = []
    if timing.streams == "current":
        problems.append("the events are recorded on the current stream only: work a solution launches on another "
                        "stream (or thread) is not timed")
    if not timing.sync:
        problems.append("nothing synchronises before the end event is read: unfinished work is not timed")
    if not problems:
        return []
    return [Finding("LC622", "; ".join(problems), location=context.task.location("streams" if timing.streams == "current"
                                                                               else "sync"),
                    witness={"streams": timing.streams, "sync": timing.sync},
                    hint="synchronise the device (torch.cuda.synchronize()) around each timed call",
                    evidence=Evidence.HARNESS)]


@check("LC623", "fairness", "too few timed calls for the noise")
def few_reps(context: Context) -> list[Finding]:
    timing = needs_timing(context)
    problems = []
    if timing.reps < MIN_REPS:
        problems.append(f"{timing.reps} timed calls (fewer than {MIN_REPS})")
    elif timing.statistic == "mean" and timing.reps < MIN_REPS_MEAN:
        problems.append(f"the mean of {timing.reps} calls (an outlier moves it; fewer than {MIN_REPS_MEAN})")
    if timing.warmup == 0:
        problems.append("no warm-up: the first call's compilation and autotuning are timed")
    native = context.probe.facts.get("timing") or {}
    if native.get("warm_cv") and timing.reps and native["warm_cv"] / math.sqrt(timing.reps) > 0.01:
        problems.append(f"the measured noise ({native['warm_cv']:.1%} per call) leaves the statistic "
                        f"{native['warm_cv'] / math.sqrt(timing.reps):.1%} uncertain")
    if not problems:
        return []
    return [Finding("LC623", "; ".join(problems), location=context.task.location("reps"),
                    witness={"reps": timing.reps, "warmup": timing.warmup, "statistic": timing.statistic},
                    hint="a median of 100 or more calls after a warm-up", evidence=Evidence.HARNESS)]


@check("LC624", "fairness", "baseline in another precision mode")
def precision_mode(context: Context) -> list[Finding]:
    timing = needs_timing(context)
    if timing.baseline_tf32:
        return []
    needs_deterministic(context)
    tf32 = context.probe.variant("tf32")
    if tf32 is None:
        return []
    references = [t.reference for t in context.probe.trials]
    verdict = judge(tf32, references, context.task.harness.correctness, [dtype_name(r) for r in references[0]])
    if not verdict.passed:
        return []
    target = context.target
    ratio = (target.tf32_flops / target.fp32_flops) if target.tf32_flops and target.fp32_flops else None
    gain = f" (TF32 tensor cores: {ratio:.1f}x the float32 FLOP/s on the {target.name})" if ratio else ""
    return [Finding("LC624", f"a solution using TF32 products passes the checker ({verdict.margin()}) while the "
                             f"baseline is timed with TF32 off: the speedup measures the precision mode{gain}",
                    location=context.task.location("baseline_tf32"), witness={"tf32_speedup": ratio},
                    hint="time the baseline with TF32 on (torch.backends.cuda.matmul.allow_tf32), or reject TF32 "
                         "with a tolerance below its error", evidence=Evidence.OBSERVED)]
