"""Differential testing: compare the two sides' outputs on the same inputs, for one run.

Outputs arrive poisoned (`lowercheck.runners.poison`), so an element a side never wrote is told
apart from a computed NaN (LC303). Inputs are checked unchanged in the runs' children (LC306,
`runners.draws`); out-of-bounds accesses the runners caught become LC201; values are judged by the
tolerance policy (`tolerance.judge`: the per-dtype floor, ulp bounds of the math functions, the
K-aware bound of a reduction, and the target against the float64 oracle no worse than the source;
LC301), NaN/Inf positions separately (LC302).
A mismatch names its pattern (a tail after a block, a row, a column: `localise`). The baseline mode
(`Tolerance`, KernelBench's allclose) judges with one fixed rtol/atol instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from lowercheck.compare.localise import localise
from lowercheck.compare.tolerance import Judgement, Policy, Tolerance, judge
from lowercheck.findings import Finding, Severity
from lowercheck.runners import draws, poison
from lowercheck.runners.base import RunResult


@dataclass
class OutputStats:
    """How one output compared in one run: the rule that decided, its bound, the observed errors
    (target vs source), and the float64 oracle's view (each side's largest error against it)."""

    name: str
    elements: int
    max_abs: float
    max_rel: float
    mismatches: int
    rule: str
    bound: float = 0.0
    max_ulp: float = 0.0
    source_error: float | None = None
    target_error: float | None = None
    closer: str | None = None  # which side is closer to the oracle: source | target | equal
    rules: list[dict[str, Any]] = field(default_factory=list)  # each rule: name, passed, mismatches, bound
    # For a mismatch: (|target - source| and the mismatching elements, each max-pooled to at most
    # ERROR_MAP x ERROR_MAP cells of the output as a matrix, and the localisation pattern in words),
    # for the HTML report's heat map; not in the JSON.
    error_map: tuple[np.ndarray, np.ndarray, str] | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, list) else v) for k, v in self.__dict__.items() if k != "error_map"}


ERROR_MAP = 64


def error_map(ref: np.ndarray, act: np.ndarray, mismatches: np.ndarray, shape: tuple[int, ...],
              pattern: str) -> tuple[np.ndarray, np.ndarray, str]:
    """|act - ref| and the mismatch mask as matrices (leading dimensions folded into rows), max-pooled
    to at most ERROR_MAP cells a side."""
    rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
    cols = int(shape[-1]) if shape else 1
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(np.asarray(act, dtype=np.float64) - np.asarray(ref, dtype=np.float64)).reshape(rows, cols)
    diff = np.nan_to_num(diff, nan=0.0, posinf=np.finfo(np.float64).max)
    mask = np.asarray(mismatches, dtype=bool).reshape(rows, cols)
    step_r, step_c = -(-rows // ERROR_MAP), -(-cols // ERROR_MAP)

    def pooled(values: np.ndarray) -> np.ndarray:
        padded = np.zeros((-(-rows // step_r) * step_r, -(-cols // step_c) * step_c), dtype=values.dtype)
        padded[:rows, :cols] = values
        return padded.reshape(padded.shape[0] // step_r, step_r, padded.shape[1] // step_c, step_c).max(axis=(1, 3))

    return pooled(diff), pooled(mask), pattern


@dataclass
class RunRecord:
    """One run (a size binding and an input kind): what each side did and how the outputs compare."""

    sizes: dict[str, int]
    status: str = "ok"  # ok | mismatch | failed
    outputs: list[OutputStats] = field(default_factory=list)
    wall_s: dict[str, float] = field(default_factory=dict)
    inputs: str = "normal"  # the input kind (`lowercheck.compare.inputs.KINDS`)
    oracle: str | None = None  # how the float64 oracle was computed, None without one

    def to_json(self) -> dict[str, Any]:
        return {"sizes": self.sizes, "inputs": self.inputs, "status": self.status, "wall_s": self.wall_s,
                "oracle": self.oracle, "outputs": [o.to_json() for o in self.outputs]}


@dataclass(frozen=True)
class OutputPair:
    """An output as each side names it, with its tolerance policy (or a fixed tolerance: the
    baseline mode) and its shape in this run (for naming mismatch patterns)."""

    source: str
    target: str
    policy: Policy | None = None
    fixed: Tolerance | None = None
    shape: tuple[int, ...] = ()
    tiles: tuple[int, ...] = ()
    # A solution module's task: the allclose its harness checks with. A difference the policy rejects
    # and this accepts is a warning (the task's checker passes it), not the verdict.
    task: Tolerance | None = None
    shaped: bool = False  # both sides return shaped tensors (a module): the shapes must be equal too


def _sizes_text(sizes: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sizes.items())


def failure_findings(side: str, result: RunResult, sizes: Mapping[str, int], path: str) -> list[Finding]:
    if result.error is None:
        return []
    last = result.error.strip().splitlines()[-1] if result.error.strip() else result.error
    witness = {"sizes": dict(sizes), "error": result.error[-2000:], "error_kind": result.error_kind}
    if result.error_kind == "deadline":  # the command's time ran out before this run: it says nothing
        return [Finding("LC902", f"the {side} was not run for {_sizes_text(sizes)}: {last}", side=side,
                        witness=witness, severity=Severity.INCONCLUSIVE,
                        hint="give the diff more time (--timeout) to run every size")]
    if result.error_kind == "runner":  # lowercheck's runner could not run it: inconclusive
        return [Finding("LC902", f"the {side} could not be run by lowercheck's runner for {_sizes_text(sizes)} "
                        f"(a limit of the runner, not a fault of the kernel): {last}", side=side, witness=witness,
                        severity=Severity.INCONCLUSIVE,
                        hint="the runs of this side say nothing; the static checks still hold. Report the "
                             "construct so that the runner learns it")]
    return [Finding("LC902", f"the {side} failed to run ({result.error_kind}) for {_sizes_text(sizes)}: {last}",
                    side=side, witness=witness, hint=f"run the {side} alone on these sizes to reproduce")]


def event_findings(side: str, result: RunResult, sizes: Mapping[str, int]) -> list[Finding]:
    """Races, divergent barriers, uninitialised reads and wrapped indices the runner observed."""
    from lowercheck.errors import SourceLocation

    return [Finding(e.code, f"{e.message} (observed when run with {_sizes_text(sizes)})", side=side,
                    buffer=e.buffer, location=SourceLocation(*e.location) if e.location else None,
                    witness={"sizes": dict(sizes), **e.where})
            for e in result.events]


def oob_findings(side: str, result: RunResult, sizes: Mapping[str, int]) -> list[Finding]:
    findings = []
    seen = set()
    for event in result.oob:
        if (event.buffer, event.kind) in seen:
            continue
        seen.add((event.buffer, event.kind))
        verb = "load from" if event.kind == "read" else "store to"
        findings.append(Finding(
            "LC201", f"out-of-bounds {verb} `{event.buffer}` observed when run (index {event.index}, "
            f"extent {event.extent})", side=side, buffer=event.buffer,
            witness={"sizes": dict(sizes), "index": event.index, "extent": event.extent, **event.where},
            hint="the run masked the access off, so it did not corrupt memory; guard it in the kernel"))
    return findings


def compare(sizes: Mapping[str, int], source: RunResult, target: RunResult, outputs: list[OutputPair],
            kind: str = "normal", oracle: RunResult | None = None,
            magnitude: RunResult | None = None) -> tuple[list[Finding], RunRecord]:
    """Compare one run of both sides. Each side's child checked its inputs (`draws.facts`: changed,
    NaN or infinite); `oracle` is the source run in float64 (its outputs by the source's names),
    when there is one; `magnitude` the same float64 run on the inputs' absolute values: sum |terms|
    of a sum, a dot or a scan, the K-aware rule's magnitude (never below |oracle|)."""
    record = RunRecord(dict(sizes), wall_s={"source": source.wall_s, "target": target.wall_s}, inputs=kind)
    findings: list[Finding] = []
    for side_name, result in (("source", source), ("target", target)):
        for name, entry in input_facts(result).items():
            if entry.get("changed"):
                index = int(entry.get("first_changed", 0))
                findings.append(Finding(
                    "LC306", f"the {side_name} changed its input `{name}` ({entry['changed']} elements, "
                    f"first at index {index})", side=side_name, buffer=name,
                    witness={"sizes": dict(sizes), "index": index}, hint="write into the output, not the input"))
    nonfinite_inputs = has_nonfinite_inputs((source, target), kind)
    for pair in outputs:
        if pair.source not in source.outputs or pair.target not in target.outputs:
            continue
        ref_shaped, act_shaped = np.asarray(source.outputs[pair.source]), np.asarray(target.outputs[pair.target])
        ref, act = ref_shaped.ravel(), act_shaped.ravel()
        if pair.shaped and ref_shaped.shape != act_shaped.shape:
            findings.append(Finding("LC301", f"output `{pair.target}` has the shape {tuple(act_shaped.shape)}, the "
                                     f"source's `{pair.source}` {tuple(ref_shaped.shape)}", side="target",
                                     buffer=pair.target, witness={"sizes": dict(sizes), "shape": list(act_shaped.shape),
                                                                  "expected": list(ref_shaped.shape)},
                                     hint="return the reference's shape (a `keepdim`, a `view` or a squeeze)"))
            record.status = "mismatch"
            continue
        if ref.size != act.size:
            findings.append(Finding("LC301", f"output `{pair.target}` has {act.size} elements, the source's "
                                     f"`{pair.source}` {ref.size}", side="target", buffer=pair.target,
                                     witness={"sizes": dict(sizes)}))
            record.status = "mismatch"
            continue
        truth = None
        if oracle is not None and oracle.error is None and pair.source in oracle.outputs:
            truth = np.asarray(oracle.outputs[pair.source]).ravel()
            truth = truth if truth.size == ref.size else None
        terms = None
        if truth is not None and magnitude is not None and magnitude.error is None and pair.source in magnitude.outputs:
            terms = np.asarray(magnitude.outputs[pair.source], dtype=np.float64).ravel()
            with np.errstate(invalid="ignore"):
                terms = np.fmax(np.abs(terms), np.abs(truth.astype(np.float64))) if terms.size == ref.size else None
        findings += _compare_values(sizes, pair, ref, act, record, truth, kind, terms,
                                    nonfinite_inputs=nonfinite_inputs)
    if record.status == "ok":
        if any(f.level == Severity.ERROR for f in findings):
            record.status = "mismatch"
        elif any(f.code == "LC302" for f in findings):
            record.status = "NaN/Inf differ"  # at non-finite inputs: a warning, not a mismatch
    return findings, record


# Input kinds that put NaN or an infinity into the inputs (compare/inputs.py).
NONFINITE_KINDS = frozenset({"special", "special_no_subnormal"})


def has_nonfinite_inputs(results: Iterable[RunResult], kind: str) -> bool:
    """Did this run feed NaN or an infinity to the kernels (as the runs' children found their
    inputs: `draws.facts`)? Then the sides may treat them differently (IEEE leaves e.g. erf-based
    GELU at +inf to the math library: NaN on some machines, +inf on others), and a NaN/Inf
    difference is a warning; the verdict comes from the runs on finite inputs, where a NaN or inf
    on one side only is the kernel's own overflow or 0/0."""
    if kind in NONFINITE_KINDS:
        return True
    return any(entry.get("nonfinite") for result in results for entry in input_facts(result).values())


# Each input fact (`draws.facts`) and the type it must have.
_FACT_TYPES = {"changed": int, "first_changed": int, "max_abs": float, "nonfinite": bool, "replaced": float}


def input_facts(result: RunResult) -> dict[str, dict[str, Any]]:
    """What a run's child found of its drawn inputs, by name (`draws.facts`). Read without trusting
    it, as the child ran user code: a fact not of exactly the type `_FACT_TYPES` gives is dropped,
    so a forged one cannot break the comparison."""
    found = result.facts.get(draws.FACTS) if isinstance(result.facts, dict) else None
    if not isinstance(found, dict):
        return {}
    clean: dict[str, dict[str, Any]] = {}
    for name, entry in found.items():
        if isinstance(entry, dict):
            clean[str(name)] = {key: value for key, value in entry.items() if type(value) is _FACT_TYPES.get(key)}
    return clean


def _compare_values(sizes, pair: OutputPair, ref: np.ndarray, act: np.ndarray, record: RunRecord,
                    oracle: np.ndarray | None = None, kind: str = "normal",
                    magnitude: np.ndarray | None = None, nonfinite_inputs: bool = False) -> list[Finding]:
    findings: list[Finding] = []
    where = f"{_sizes_text(sizes)}, {kind} inputs"
    shape = pair.shape if pair.shape and int(np.prod(pair.shape)) == ref.size else (ref.size,)
    poisoned = {"source": poison.mask(ref), "target": poison.mask(act)}
    written = ~(poisoned["source"] | poisoned["target"])
    if pair.fixed is None:  # the baseline mode has no poison (outputs start as zeros)
        both = poisoned["source"] & poisoned["target"]
        if both.any() and (poisoned["source"] == poisoned["target"]).all():  # the same elements: kept, not made
            idx = np.flatnonzero(both)
            findings.append(Finding(
                "LC303", f"both sides: {len(idx)} of {both.size} elements of `{pair.target}` (the source's "
                f"`{pair.source}`) were never written for {where} ({localise(both, shape, pair.tiles).text}), "
                "the same elements on both sides", side=None, buffer=pair.target, severity=Severity.WARNING,
                witness={"sizes": dict(sizes), "index": int(idx[0]), "count": int(len(idx)), "both_sides": True},
                hint="the port keeps the source's coverage; if the task's sizes include these, both need the fix"))
            poisoned = {side: np.zeros_like(mask) for side, mask in poisoned.items()}
        for side, mask in poisoned.items():
            if mask.any():
                idx = np.flatnonzero(mask)
                name = pair.source if side == "source" else pair.target
                findings.append(Finding(
                    "LC303", f"{len(idx)} of {mask.size} elements of `{name}` were never written for {where} "
                    f"({localise(mask, shape, pair.tiles).text})", side=side, buffer=name,
                    witness={"sizes": dict(sizes), "index": int(idx[0]), "count": int(len(idx))},
                    hint="every output element must be written: check the grid and the tail mask"))
    if pair.fixed is not None:
        return findings + _compare_fixed(sizes, pair, ref, act, record, where)
    verdict = judge(ref, act, pair.policy, oracle, magnitude=magnitude, valid=written)
    if not verdict.specials_match:
        findings.append(_special_finding(sizes, pair, ref, act, verdict.special_mismatch, where, shape, kind,
                                         nonfinite_inputs))
    stats = OutputStats(pair.target, int(ref.size), verdict.max_abs, verdict.max_rel,
                        int(verdict.mismatches.sum()), verdict.rule, verdict.bound, verdict.max_ulp,
                        verdict.source_error, verdict.target_error, verdict.closer,
                        [{"name": r.name, "passed": r.passed, "mismatches": r.mismatches, "bound": r.bound}
                         for r in verdict.rules])
    record.outputs.append(stats)
    if not verdict.passed:
        finding = _value_finding(sizes, pair, ref, act, verdict, where, shape, kind)
        if pair.task is not None and verdict.specials_match and _accepted(pair.task, ref, act, written):
            finding = replace(finding, severity=Severity.WARNING, message=(
                f"{finding.message}; within the task harness's allclose ({pair.task.rule}), whose checker accepts "
                "it: the verdict stands on that"), witness={**finding.witness, "task_tolerance": pair.task.rule})
        findings.append(finding)
        stats.error_map = error_map(ref, act, verdict.mismatches, shape,
                                    localise(verdict.mismatches, shape, pair.tiles).text)
    return findings


def _accepted(tolerance: Tolerance, ref: np.ndarray, act: np.ndarray, valid: np.ndarray) -> bool:
    """Whether `tolerance` accepts every element both sides wrote (NaN where both are NaN)."""
    with np.errstate(invalid="ignore"):
        ref_f, act_f = ref.astype(np.float64), act.astype(np.float64)
    ok = tolerance.accepts(ref_f, act_f) | (np.isnan(ref_f) & np.isnan(act_f)) | (ref_f == act_f)
    return bool(ok[valid].all())


def _special_finding(sizes, pair: OutputPair, ref: np.ndarray, act: np.ndarray, mismatch: np.ndarray, where: str,
                     shape: tuple[int, ...], kind: str, nonfinite_inputs: bool) -> Finding:
    """LC302: an error where the inputs were finite (one side overflowed or divided 0 by 0); a
    warning where they held NaN/Inf (the sides treat non-finite inputs differently)."""
    bad = np.flatnonzero(mismatch.ravel())
    i = int(bad[0])
    witness = {"sizes": dict(sizes), "inputs": kind, "index": i, "source": float(ref[i]), "target": float(act[i]),
               "nonfinite_inputs": nonfinite_inputs}
    pattern = localise(mismatch, shape, pair.tiles).text
    if nonfinite_inputs:
        return Finding(
            "LC302", f"NaN/Inf differ in `{pair.target}` at {len(bad)} elements for {where}, whose inputs hold NaN "
            f"or infinities ({pattern}): at index {i} the source gives {ref[i]}, the target {act[i]}. The two "
            "sides treat non-finite inputs differently; the verdict comes from the runs on finite inputs",
            side="target", buffer=pair.target, witness=witness, severity=Severity.WARNING,
            hint="if the task specifies NaN/Inf inputs, make the port propagate them as the source does")
    return Finding(
        "LC302", f"NaN/Inf differ in `{pair.target}` at {len(bad)} elements for {where} ({pattern}): first at "
        f"index {i} (source {ref[i]}, target {act[i]})", side="target", buffer=pair.target, witness=witness,
        hint="compare how both sides handle large or special inputs (overflow, max subtraction)")


def _value_finding(sizes, pair: OutputPair, ref: np.ndarray, act: np.ndarray, verdict: Judgement, where: str,
                   shape: tuple[int, ...], kind: str) -> Finding:
    bad = np.flatnonzero(verdict.mismatches.ravel())
    i = verdict.worst_index if verdict.worst_index is not None else int(bad[0])
    pattern = localise(verdict.mismatches, shape, pair.tiles)
    truth = ""
    if verdict.closer is not None:
        truth = (f"; against the float64 oracle the source errs by up to {verdict.source_error:.3g}, the target by "
                 f"{verdict.target_error:.3g}")
    return Finding(
        "LC301", f"`{pair.target}` differs from the source's `{pair.source}` at {len(bad)} of {ref.size} elements "
        f"for {where} ({pattern.text}); first at index {int(bad[0])}, worst at index {i}: source "
        f"{float(ref[i]):.9g}, target {float(act[i]):.9g} "
        f"(max abs error {verdict.max_abs:.3g}, max {verdict.max_ulp:.3g} ulp){truth}. {verdict.rule}",
        side="target", buffer=pair.target,
        witness={"sizes": dict(sizes), "inputs": kind, "index": i, "first_index": int(bad[0]),
                 "source": float(ref[i]), "target": float(act[i]),
                 "mismatches": int(len(bad)), "pattern": pattern.to_json(), "max_abs": verdict.max_abs,
                 "max_ulp": verdict.max_ulp, "source_error": verdict.source_error,
                 "target_error": verdict.target_error, "rules": [r.to_json() for r in verdict.rules]},
        hint="compare the arithmetic of both sides at this index")


def _compare_fixed(sizes, pair: OutputPair, ref: np.ndarray, act: np.ndarray, record: RunRecord,
                   where: str) -> list[Finding]:
    """The baseline: `allclose(target, source, rtol, atol)`, NaN equal to NaN, as reviewers do."""
    with np.errstate(invalid="ignore"):
        ref_f, act_f = ref.astype(np.float64), act.astype(np.float64)
    both_nan = np.isnan(ref_f) & np.isnan(act_f)
    ok = pair.fixed.accepts(ref_f, act_f) | both_nan
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.where(np.isfinite(ref_f) & np.isfinite(act_f), np.abs(act_f - ref_f), 0.0)
    record.outputs.append(OutputStats(pair.target, int(ref.size), float(diff.max(initial=0.0)), 0.0,
                                      int((~ok).sum()), pair.fixed.rule))
    if ok.all():
        return []
    i = int(np.flatnonzero(~ok)[0])
    return [Finding("LC301", f"`{pair.target}` is not allclose to the source's `{pair.source}` for {where} "
                    f"({int((~ok).sum())} elements; {pair.fixed.rule})", side="target", buffer=pair.target,
                    witness={"sizes": dict(sizes), "index": i, "source": float(ref_f[i]), "target": float(act_f[i])})]


def determinism_findings(side: str, first: RunResult, second: RunResult, sizes: Mapping[str, int]) -> list[Finding]:
    """LC304: the same inputs run again with other block and atomic orders (another seed) must give
    the same bits."""
    if first.error is not None or second.error is not None:
        return []
    findings = []
    for name, a in first.outputs.items():
        b = second.outputs.get(name)
        if b is None:
            continue
        a, b = np.asarray(a).ravel(), np.asarray(b).ravel()
        if a.shape != b.shape:
            continue
        differ = ~draws.same(a, b) & ~(poison.mask(a) | poison.mask(b))
        if a.dtype.kind == "f":
            with np.errstate(invalid="ignore"):
                differ &= ~(np.isnan(a) & np.isnan(b))
        if differ.any():
            i = int(np.flatnonzero(differ)[0])
            with np.errstate(invalid="ignore", over="ignore"):
                gaps = np.abs(a[differ].astype(np.float64) - b[differ].astype(np.float64))
            gaps = gaps[~np.isnan(gaps)]  # NaN in one run only: no distance
            spread = f"by up to {float(gaps.max()):.3g}" if gaps.size else "NaN in one run and not in the other"
            findings.append(Finding(
                "LC304", f"the {side}'s `{name}` changes between two runs on the same inputs with other block and "
                f"atomic orders for {_sizes_text(sizes)}: {int(differ.sum())} elements, {spread}",
                side=side, buffer=name, witness={"sizes": dict(sizes), "index": i, "first": float(a[i]),
                                                 "second": float(b[i]), "count": int(differ.sum())},
                hint="make the reduction order deterministic (a fixed tree instead of float atomics), or "
                     "accept it with a tolerance that covers the reordering"))
    return findings
