"""Numerical correctness: is the task's tolerance right for the operation and the precision, and is
its reference right?

Wrong solutions (LC601) and correct ones (LC602) are made from the reference's own runs and replayed
through the task's checker (`lowercheck.audit.checker`) on the task's inputs and trials; the
reference is measured against the float64 oracle (LC603) and against itself (LC604).
"""

from __future__ import annotations

import math

import numpy as np

from lowercheck.audit.checker import ORDER_FACTOR, Decision, Verdict, judge
from lowercheck.audit.checks import Context, check, needs_deterministic, needs_runs
from lowercheck.compare import probes
from lowercheck.compare.tolerance import dtype_name, gamma, is_float, np_dtype, unit_roundoff
from lowercheck.findings import Evidence, Finding, Severity

# Variant name -> what the wrong solution is, and the fix that makes the checker reject it.
WRONG_VARIANTS = {
    "lowp-bfloat16": ("the reference computed in bfloat16", "a tolerance below bf16's error (2^-8 relative)"),
    "lowp-float16": ("the reference computed in float16", "a tolerance below fp16's error (2^-11 relative)"),
    "accumulate-float16": ("products and sums accumulated in float16 (rounded every 32 terms)",
                           "a tolerance that fp16 accumulation exceeds, or longer reductions"),
    "accumulate-bfloat16": ("products and sums accumulated in bfloat16 (rounded every 32 terms)",
                            "an rtol below the error of bf16 accumulation over K terms, or longer reductions"),
    "tanh-gelu": ("tanh-approximated GELU in place of the exact (erf) GELU",
                  "inputs around |x| = 2, where the two differ most, and a tolerance below their difference"),
    "fast-exp": ("`__expf` (exp2 of the float32 product x * log2(e)) in place of `expf`",
                 "nothing, if approximate exponentials are meant to pass (Triton's tl.exp is one)"),
    "no-max-shift": ("softmax without the max subtraction", "logits large enough to overflow exp (|x| > 88 in "
                     "float32, > 11 in float16): e.g. randn * 100"),
}
TILES = (1024, 256, 128, 64, 32, 16)
# ATen operators whose result IEEE 754 fixes to the bit on every machine (one correctly rounded
# operation per element, or none): a reference made of these alone rounds alike everywhere.
CORRECTLY_ROUNDED = frozenset({
    "add", "sub", "rsub", "mul", "div", "sqrt", "neg", "abs", "relu", "clamp", "clamp_min", "clamp_max", "maximum",
    "minimum", "where", "threshold", "hardtanh", "masked_fill", "sign", "floor", "ceil", "trunc", "round",
    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not", "bitwise_and", "bitwise_or",
    "copy", "clone", "_to_copy", "to", "contiguous", "view", "_unsafe_view", "reshape", "t", "transpose",
    "permute", "expand", "unsqueeze", "squeeze", "flatten", "select", "slice", "narrow", "split", "chunk",
    "cat", "stack", "index_select", "gather", "alias", "detach", "lift_fresh", "fill", "zeros", "ones",
    "empty", "empty_like", "zeros_like", "ones_like", "full", "new_empty", "new_zeros", "new_ones", "arange",
})


def _location(context: Context):
    return context.task.location("atol")


def _dtypes(context: Context) -> list[str]:
    return [dtype_name(r) for r in context.probe.trials[0].reference]


def _references(context: Context) -> list[list[np.ndarray]]:
    return [t.reference for t in context.probe.trials]


def _trivial(context: Context) -> dict[str, tuple[str, list[list[np.ndarray]]]]:
    """zeros, a copy of the first input, the mean; the last partial tile unwritten; the output transposed."""
    found: dict[str, tuple[str, list[list[np.ndarray]]]] = {}
    trials = context.probe.trials
    # per trial and output, the probes' candidates by name (a copy only where an input has as many elements)
    made = [[{p.name: (p.text, a) for p, a in probes.candidates(ref, trial.inputs)} for ref in trial.reference]
            for trial in trials]
    for name in ("zeros", "copy", "mean"):
        if all(name in per_output for per_trial in made for per_output in per_trial):
            text = made[0][0][name][0] if name != "mean" else "the output's mean everywhere"
            found[name] = (text, [[per_output[name][1] for per_output in per_trial] for per_trial in made])
    tail = _tail(trials[0].reference)
    if tail:
        tile, _ = tail
        found["tail"] = (f"the last partial tile left unwritten (a {tile}-wide tile along the last dimension; "
                         "those elements zero)", [[_drop_tail(r, tile) for r in t.reference] for t in trials])
    if all(r.ndim >= 2 and r.shape[-1] == r.shape[-2] > 1 for t in trials for r in t.reference):
        found["transposed"] = ("the output transposed (its last two dimensions swapped)",
                               [[np.swapaxes(r, -1, -2) for r in t.reference] for t in trials])
    return found


def _tail(references: list[np.ndarray]) -> tuple[int, int] | None:
    """(tile, columns in the last partial tile) for the largest tile that leaves one."""
    for ref in references:
        if ref.ndim == 0 or not is_float(dtype_name(ref)):
            continue
        n = ref.shape[-1]
        for tile in TILES:
            if n > tile and n % tile:
                return tile, n % tile
    return None


def _drop_tail(ref: np.ndarray, tile: int) -> np.ndarray:
    out = ref.copy()
    n = ref.shape[-1]
    if n > tile and n % tile:
        out[..., n - n % tile:] = 0
    return out


@check("LC601", "numerics", "wrong solutions the checker accepts")
def wrong_solutions_accepted(context: Context) -> list[Finding]:
    needs_deterministic(context)
    probe, correctness = context.probe, context.task.harness.correctness
    references, dtypes = _references(context), _dtypes(context)
    candidates = _trivial(context)
    for name, (text, _) in WRONG_VARIANTS.items():
        outs = probe.variant(name)
        if outs is not None:
            candidates[name] = (text, outs)
    findings = []
    identity_ops = bool(probe.facts.get("identity_ops"))
    for name, (text, outs) in candidates.items():
        identical = all(o.tobytes() == r.tobytes() for os_, rs in zip(outs, references) for o, r in zip(os_, rs))
        if identical and (name in WRONG_VARIANTS or identity_ops):
            # a rewrite that changed nothing on these inputs shows no wrong solution; a copy that is the
            # answer because an operator is the identity here is LC611's finding
            continue
        verdict = judge(outs, references, correctness, dtypes)
        if not verdict.passed:
            continue
        how = "bit for bit: the inputs make it the reference's answer" if identical else verdict.margin()
        fix = WRONG_VARIANTS.get(name, (None, "a tolerance derived from the dtype and the op (rtol-dominated "
                                              "for small outputs), inputs that make this output differ"))[1]
        findings.append(Finding(
            "LC601", f"the task's checker accepts {text} ({how})", location=_location(context),
            witness={"candidate": name, "ratio": _finite(verdict.ratio), "largest_error": _finite(verdict.error),
                     "atol": verdict.atol, "rtol": verdict.rtol, "trials": verdict.trials, "identical": identical},
            hint=f"make the checker reject it: {fix}",
            severity=Severity.WARNING if name == "fast-exp" else None, evidence=Evidence.OBSERVED))
    return findings


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def derived(context: Context, dtype: str) -> str:
    """The derived tolerance of the reference's longest reduction, in words."""
    meta = context.probe.meta
    k, op = int(meta.get("k") or 0), meta.get("k_op")
    compute = "float32" if dtype in ("float16", "bfloat16", "float32") else dtype
    u = unit_roundoff(compute) if is_float(compute) else 0.0
    if not k or not u:
        return f"no reduction: one rounding of {dtype} ({unit_roundoff(dtype):.2g} relative)" if is_float(dtype) else ""
    bound = gamma(k, u)
    return (f"K = {k} ({op}), accumulated in {compute}: worst case gamma_K = {bound:.2g}, typically "
            f"sqrt(K) u = {math.sqrt(k) * u:.2g}, relative to sum |terms|")


def rounding_varies(context: Context) -> bool:
    """Whether the reference's own rounding error depends on the machine: it sums (the order of a
    sum is the BLAS's, the SIMD width's) or calls a function no standard rounds correctly (exp, erf,
    tanh: each math library's kernel). Unknown operators count as varying."""
    meta = context.probe.meta
    ops = meta.get("ops")
    return ops is None or int(meta.get("k") or 0) >= 2 or any(op not in CORRECTLY_ROUNDED for op in ops)


def order_factor(context: Context) -> float:
    """The factor within which another machine may measure the reference's rounding error."""
    return ORDER_FACTOR if rounding_varies(context) else 1.0


# The candidates of LC602 whose distance from the reference is the reference's own rounding error.
ROUNDING_CANDIDATES = ("exact", "mirrored")


@check("LC602", "numerics", "correct solutions the checker rejects")
def correct_solutions_rejected(context: Context) -> list[Finding]:
    needs_deterministic(context)
    trials, correctness = context.probe.trials, context.task.harness.correctness
    references, dtypes = _references(context), _dtypes(context)
    if not any(is_float(d) for d in dtypes):
        return []
    candidates = {
        "exact": ("the exact answer (the float64 oracle rounded once to the output dtype)",
                  [[_round(o, r) for o, r in zip(t.oracle, t.reference)] for t in trials]),
        "mirrored": ("an answer as far from the exact one as the reference's own, on the other side (another "
                     "summation order, split-K, fp32 accumulation)",
                     [[_round(2 * o.astype(np.float64) - r.astype(np.float64), r) for o, r in zip(t.oracle, t.reference)]
                      for t in trials]),
    }
    tf32 = context.probe.variant("tf32")
    if context.task.tf32 and tf32 is not None:
        candidates["tf32"] = ("TF32 products (the task allows TF32)", tf32)
    factor = order_factor(context)
    if judge(references, [t.oracle for t in trials], correctness, dtypes).across(factor) is not Decision.PASSES:
        # the reference itself is (or on another machine may be) off the exact answer beyond the
        # tolerance: LC603 says so, and any answer closer to the truth is rejected for that reason
        for name in ROUNDING_CANDIDATES:
            candidates.pop(name)
    findings = []
    for name, (text, outs) in candidates.items():
        verdict = judge(outs, references, correctness, dtypes)
        band = factor if name in ROUNDING_CANDIDATES else 1.0
        decision = verdict.across(band)
        if decision is Decision.PASSES:
            continue
        borderline = decision is Decision.BORDERLINE
        how = verdict.band(band) if borderline else verdict.margin() if not verdict.why else verdict.why
        findings.append(Finding(
            "LC602", f"the task's checker rejects {text}{' on some machines' if borderline else ''}: {how}",
            location=_location(context),
            witness={"candidate": name, "ratio": _finite(verdict.ratio), "largest_error": _finite(verdict.error),
                     "derived": derived(context, dtypes[0]), **_spread(verdict, band)},
            hint=f"derived tolerance: {derived(context, dtypes[0])}; or the FlashAttention rule (the error against "
                 "the float64 oracle at most twice the reference's own)",
            severity=Severity.WARNING if borderline else None, evidence=Evidence.OBSERVED))
    return findings


def _spread(verdict: Verdict, factor: float) -> dict[str, float | None]:
    """The ratio's range across machines, for a witness (nothing where it does not vary)."""
    if factor == 1.0 or not math.isfinite(verdict.ratio):
        return {}
    return {"ratio_low": verdict.ratio / factor, "ratio_high": verdict.ratio * factor}


def _round(values: np.ndarray, like: np.ndarray) -> np.ndarray:
    if not is_float(dtype_name(like)):
        return values.astype(like.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(values, dtype=np.float64).astype(np_dtype(dtype_name(like)))


@check("LC603", "numerics", "the reference against the float64 oracle")
def reference_against_oracle(context: Context) -> list[Finding]:
    needs_deterministic(context)
    trials, correctness = context.probe.trials, context.task.harness.correctness
    dtypes = _dtypes(context)
    if not any(is_float(d) for d in dtypes):
        return []
    verdict: Verdict = judge(_references(context), [t.oracle for t in trials], correctness, dtypes)
    factor = order_factor(context)
    decision = verdict.across(factor)
    if decision is Decision.PASSES:
        return []
    borderline = decision is Decision.BORDERLINE
    low = [d for d in dtypes if d in ("float16", "bfloat16")]
    computes = set(context.probe.meta.get("dtypes", ()))
    cause = (f" (the reference computes in {low[0]} only: the precision it judges)"
             if low and not computes & {"float32", "float64"} else "")
    how = verdict.band(factor) if borderline else verdict.margin() if not verdict.why else verdict.why
    return [Finding("LC603", f"the reference is further from the exact answer than the task's tolerance"
                             f"{' on some machines' if borderline else ''}{cause}: {how}",
                    location=context.task.location("reference"),
                    witness={"ratio": _finite(verdict.ratio), "largest_error": _finite(verdict.error),
                             "derived": derived(context, dtypes[0]), **_spread(verdict, factor)},
                    hint="compute the reference in float32 (or float64) and round once at the end",
                    severity=Severity.WARNING if borderline else None, evidence=Evidence.OBSERVED)]


@check("LC604", "numerics", "the reference's determinism")
def reference_nondeterministic(context: Context) -> list[Finding]:
    needs_runs(context)
    facts, meta = context.probe.facts, context.probe.meta
    findings = []
    if facts.get("deterministic") is False:
        random = meta.get("random_ops") or []
        why = f" (it calls {', '.join(random)})" if random else ""
        findings.append(Finding("LC604", f"two calls of the reference on the same inputs give different outputs{why}",
                                location=context.task.location("reference"), witness={"random_ops": random},
                                hint="seed inside the reference, call .eval() (dropout), or draw the randomness in "
                                     "get_inputs", evidence=Evidence.OBSERVED))
    atomics = meta.get("gpu_nondeterministic") or []
    if atomics:
        findings.append(Finding("LC604", f"the reference calls {', '.join(atomics)}, nondeterministic on a GPU "
                                         "(atomics): its bits change from run to run there",
                                location=context.task.location("reference"), witness={"ops": atomics},
                                hint="a tolerance that covers reordered sums, or torch.use_deterministic_algorithms",
                                severity=Severity.WARNING, evidence=Evidence.OBSERVED))
    return findings
