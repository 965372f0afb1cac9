"""Differential testing: compare the two sides' outputs on the same inputs, for one size binding.

Outputs arrive poisoned (`lowercheck.runners.poison`), so an element a side never wrote is told
apart from a computed NaN (LC303). Inputs are checked unchanged (LC306); out-of-bounds accesses the
runners caught become LC201; values are compared with the tolerance policy (LC301), NaN/Inf
positions separately (LC302).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lowercheck.compare.tolerance import Tolerance
from lowercheck.findings import Finding
from lowercheck.runners import poison
from lowercheck.runners.base import RunResult


@dataclass
class OutputStats:
    name: str
    elements: int
    max_abs: float
    max_rel: float
    mismatches: int
    rule: str

    def to_json(self) -> dict[str, Any]:
        return self.__dict__.copy()


@dataclass
class RunRecord:
    """One size binding: what each side did and how the outputs compare."""

    sizes: dict[str, int]
    status: str = "ok"  # ok | mismatch | failed
    outputs: list[OutputStats] = field(default_factory=list)
    wall_s: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"sizes": self.sizes, "status": self.status, "wall_s": self.wall_s,
                "outputs": [o.to_json() for o in self.outputs]}


@dataclass(frozen=True)
class OutputPair:
    """An output as each side names it, with the tolerance for its dtype."""

    source: str
    target: str
    tolerance: Tolerance


def _sizes_text(sizes: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sizes.items())


def failure_findings(side: str, result: RunResult, sizes: Mapping[str, int], path: str) -> list[Finding]:
    if result.error is None:
        return []
    return [Finding("LC902", f"the {side} failed to run ({result.error_kind}) for {_sizes_text(sizes)}: "
                    f"{result.error.strip().splitlines()[-1] if result.error.strip() else result.error}",
                    side=side, witness={"sizes": dict(sizes), "error": result.error[-2000:]},
                    hint=f"run the {side} alone on these sizes to reproduce")]


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
            inputs: Mapping[str, tuple[str, np.ndarray]]) -> tuple[list[Finding], RunRecord]:
    """Compare one run of both sides. `inputs` maps each side's input name to (side, original)."""
    record = RunRecord(dict(sizes), wall_s={"source": source.wall_s, "target": target.wall_s})
    findings: list[Finding] = []
    for side_name, result in (("source", source), ("target", target)):
        for name, (owner, original) in inputs.items():
            if owner != side_name or name not in result.outputs:
                continue
            after = np.asarray(result.outputs[name]).reshape(original.shape)
            changed = ~_same(original, after)
            if changed.any():
                index = int(np.flatnonzero(changed.ravel())[0])
                findings.append(Finding(
                    "LC306", f"the {side_name} changed its input `{name}` ({int(changed.sum())} elements, "
                    f"first at index {index})", side=side_name, buffer=name,
                    witness={"sizes": dict(sizes), "index": index}, hint="write into the output, not the input"))
    for pair in outputs:
        if pair.source not in source.outputs or pair.target not in target.outputs:
            continue
        ref = np.asarray(source.outputs[pair.source]).ravel()
        act = np.asarray(target.outputs[pair.target]).ravel()
        if ref.size != act.size:
            findings.append(Finding("LC301", f"output `{pair.target}` has {act.size} elements, the source's "
                                     f"`{pair.source}` {ref.size}", side="target", buffer=pair.target,
                                     witness={"sizes": dict(sizes)}))
            record.status = "mismatch"
            continue
        findings += _compare_values(sizes, pair, ref, act, record)
    if findings and record.status == "ok":
        record.status = "mismatch"
    return findings, record


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "fc" or a.dtype.name == "bfloat16":
        return (a.view(np.uint8).reshape(a.shape + (-1,)) == b.view(np.uint8).reshape(b.shape + (-1,))).all(-1)
    return a == b


def _compare_values(sizes, pair: OutputPair, ref: np.ndarray, act: np.ndarray, record: RunRecord) -> list[Finding]:
    findings: list[Finding] = []
    where = _sizes_text(sizes)
    poisoned = {"source": poison.mask(ref), "target": poison.mask(act)}
    for side, mask in poisoned.items():
        if mask.any():
            idx = np.flatnonzero(mask)
            name = pair.source if side == "source" else pair.target
            findings.append(Finding(
                "LC303", f"{len(idx)} of {mask.size} elements of `{name}` were never written for {where} "
                f"({_pattern(idx, mask.size)})", side=side, buffer=name,
                witness={"sizes": dict(sizes), "index": int(idx[0]), "count": int(len(idx))},
                hint="every output element must be written: check the grid and the tail mask"))
    written = ~(poisoned["source"] | poisoned["target"])
    with np.errstate(invalid="ignore"):
        ref_f, act_f = ref.astype(np.float64), act.astype(np.float64)
    special_ref, special_act = ~np.isfinite(ref_f), ~np.isfinite(act_f)
    special_diff = written & ((special_ref != special_act) |
                              (special_ref & special_act & ~((np.isnan(ref_f) & np.isnan(act_f)) | (ref_f == act_f))))
    if special_diff.any():
        i = int(np.flatnonzero(special_diff)[0])
        findings.append(Finding(
            "LC302", f"NaN/Inf differ in `{pair.target}` at {int(special_diff.sum())} elements for {where}: "
            f"first at index {i} (source {ref[i]}, target {act[i]})", side="target", buffer=pair.target,
            witness={"sizes": dict(sizes), "index": i, "source": float(ref_f[i]), "target": float(act_f[i])}))
    finite = written & ~special_ref & ~special_act
    ok = pair.tolerance.accepts(ref_f, act_f) | ~finite
    with np.errstate(invalid="ignore", divide="ignore"):
        abs_err = np.where(finite, np.abs(act_f - ref_f), 0.0)
        rel_err = np.where(finite & (ref_f != 0), abs_err / np.abs(ref_f), 0.0)
    stats = OutputStats(pair.target, int(ref.size), float(abs_err.max(initial=0.0)),
                        float(rel_err.max(initial=0.0)), int((~ok).sum()), pair.tolerance.rule)
    record.outputs.append(stats)
    if not ok.all():
        bad = np.flatnonzero(~ok)
        i = int(bad[0])
        findings.append(Finding(
            "LC301", f"`{pair.target}` differs from the source's `{pair.source}` beyond tolerance at "
            f"{len(bad)} of {ref.size} elements for {where} ({_pattern(bad, ref.size)}); first at index {i}: "
            f"source {ref_f[i]:.9g}, target {act_f[i]:.9g} (max abs error {stats.max_abs:.3g}, "
            f"{pair.tolerance.rule})", side="target", buffer=pair.target,
            witness={"sizes": dict(sizes), "index": i, "source": float(ref_f[i]), "target": float(act_f[i]),
                     "mismatches": int(len(bad))},
            hint="compare the arithmetic of both sides at this index"))
    return findings


def _pattern(indices: np.ndarray, total: int) -> str:
    """A short description of where the indices lie: all, a contiguous range, a tail, or a list."""
    n = len(indices)
    if n == total:
        return "every element"
    lo, hi = int(indices[0]), int(indices[-1])
    if hi - lo + 1 == n:
        if hi == total - 1 and lo > 0:
            return f"the tail: indices {lo}..{hi}"
        return f"indices {lo}..{hi}" if n > 1 else f"index {lo}"
    if n > 1 and np.all(np.diff(indices) == indices[1] - indices[0]):
        return f"every {int(indices[1] - indices[0])}th element from {lo}"
    head = ", ".join(str(int(i)) for i in indices[:5])
    return f"indices {head}{', ...' if n > 5 else ''}"
