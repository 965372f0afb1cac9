"""The tolerance policy: how close the target's output must be to the source's, and why.

A judgement applies up to four rules to one output, each a sufficient reason to accept an element;
an element is a mismatch only when no applicable rule accepts it. Every rule comes back with its
text, its bound and its observed error, so the report can say which rule decided and by how much.

- **floor**: torch.testing's per-dtype default `|t - s| <= atol + rtol * |s|`; integer and boolean
  outputs must match exactly (and no other rule applies to them).
- **ulp**: elementwise outputs computed with transcendental functions: `|t - s| <= (U_s + U_t + 1)`
  ulps of `|s|` in the compute precision (float32, or float64 for float64 outputs), where U is the
  sum of the documented maximum ulp errors of each side's functions (`CUDA_ULPS`; Triton's float32
  `exp` is the approximate `ex2` of `x * log2(e)`, `TRITON_ULPS`), plus one ulp of the output dtype
  when both sides round a float32 result to a narrower output.
- **K-aware**: an output fed by a reduction or dot product of length K accumulated in precision u:
  `|t - o| <= c * gamma_K * m + u_out * |o|` against the float64 oracle o, with
  `gamma_K = K*u / (1 - K*u)` and `m` the caller's float64 magnitude (sum |a_k||b_k| for a dot,
  sum |x_k| for a sum); twice that against the source when there is no oracle.
- **baseline**: with an oracle, the target's error may be at most `factor` (2) times the source's
  largest error plus a slack of a few ulps of the output: the target is no worse than the source.

NaN and infinity are compared by position (`Judgement.special_mismatch`, LC302) and kept out of the
numeric statistics and rules; where the run's inputs held NaN or infinities, such a difference is a
warning (`compare/dynamic.py`: a math library's answer at +inf differs by machine, docs/portability.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# torch.testing.assert_close defaults.
DEFAULTS: dict[str, tuple[float, float]] = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    # fp8 (not in torch.testing's table): a tolerance of two units of the format's precision
    "float8_e4m3fn": (1.25e-1, 1e-2),
    "float8_e5m2": (2.5e-1, 1e-2),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
}

# Floating formats: (precision p in bits including the implicit one, minimum normal exponent).
FORMATS: dict[str, tuple[int, int]] = {
    "float16": (11, -14),
    "bfloat16": (8, -126),
    "float8_e4m3fn": (4, -6),
    "float8_e5m2": (3, -14),
    "tf32": (11, -126),
    "float32": (24, -126),
    "float64": (53, -1022),
}

# CUDA C++ Programming Guide, appendix "Mathematical Functions", tables "Single-Precision
# Mathematical Standard Library Functions with Maximum ULP Error" and "Double-Precision ...": the
# largest distance in ulps between the correctly rounded result and CUDA's, over the full range
# (sqrtf and x/y are 0 under nvcc's defaults -prec-sqrt=true and -prec-div=true). The guide states
# the figures come from extensive but not exhaustive tests. Figures carried over as (float, double).
CUDA_ULPS: dict[str, tuple[float, float]] = {
    "exp": (2, 1), "exp2": (2, 1), "exp10": (2, 1), "expm1": (1, 1),
    "log": (1, 1), "log2": (1, 1), "log10": (2, 1), "log1p": (1, 1),
    "sin": (2, 2), "cos": (2, 2), "tan": (4, 2),
    "asin": (2, 2), "acos": (2, 2), "atan": (2, 2), "atan2": (3, 2),
    "sinh": (3, 2), "cosh": (2, 1), "tanh": (2, 1),
    "asinh": (3, 3), "acosh": (4, 3), "atanh": (3, 2),
    "pow": (4, 2), "erf": (2, 2), "erfc": (4, 5),
    "sqrt": (0, 0), "rsqrt": (2, 1), "cbrt": (1, 1), "div": (0, 0),
    # exact on every side
    "abs": (0, 0), "fabs": (0, 0), "absf": (0, 0), "floor": (0, 0), "ceil": (0, 0), "trunc": (0, 0),
    "round": (0, 0), "rint": (0, 0), "roundeven": (0, 0), "fma": (0, 0), "copysign": (0, 0),
    "fmax": (0, 0), "fmin": (0, 0), "maximumf": (0, 0), "minimumf": (0, 0),
}


@dataclass(frozen=True)
class UlpError:
    """A documented error: `ulps + per_arg * max|x|` ulps of the result, plus `absolute` (some fast
    intrinsics are bounded absolutely on part of their range)."""

    ulps: float
    per_arg: float = 0.0
    absolute: float = 0.0
    source: str = "CUDA programming guide"


# The guide's "Intrinsic Functions" table (single precision, fast path of -use_fast_math).
CUDA_INTRINSICS: dict[str, UlpError] = {
    "__expf": UlpError(2, 1.173),
    "__exp10f": UlpError(2, 2.97),
    "__logf": UlpError(3, absolute=2 ** -21.41),  # absolute bound for x in [0.5, 2]
    "__log2f": UlpError(2, absolute=2 ** -22),
    "__log10f": UlpError(3, absolute=2 ** -24),
    "__sinf": UlpError(0, absolute=2 ** -21.41),  # for x in [-pi, pi]
    "__cosf": UlpError(0, absolute=2 ** -21.41),
    "__fdividef": UlpError(2),
}

# Triton for sm_90 (third_party/nvidia ElementwiseOpToLLVM): float32 `math.exp` lowers to
# `ex2.approx.f32(x * log2(e))`, the construction of CUDA's __expf, whose bound the guide gives as
# 2 + floor(|1.173 x|) ulps; float32 division lowers to `div.full.f32` (2 ulps in the PTX ISA).
# Other math functions call libdevice, whose figures are CUDA_ULPS.
TRITON_ULPS: dict[str, UlpError] = {
    "exp": UlpError(2, 1.173, source="Triton ex2.approx.f32(x*log2 e), as CUDA's __expf"),
    "div": UlpError(2, source="Triton div.full.f32 (PTX ISA)"),
}


def unit_roundoff(dtype: str) -> float:
    """u = 2**-p for a floating dtype with p bits of precision (round to nearest)."""
    return 2.0 ** -FORMATS[dtype][0]


def gamma(k: int, u: float) -> float:
    """Higham's gamma_k = k*u / (1 - k*u); infinite when k*u >= 1 (no bound)."""
    ku = k * u
    return math.inf if ku >= 1 else ku / (1 - ku)


# The float formats numpy lacks, from ml_dtypes (numpy dtypes of kind "V": `is_float_array` says float).
ML_FLOATS = ("bfloat16", "float8_e4m3fn", "float8_e5m2")


def np_dtype(dtype: str) -> Any:
    """The numpy dtype for a dtype name (bfloat16 and the fp8 formats from ml_dtypes)."""
    if dtype in ML_FLOATS:
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, dtype))
    return np.dtype(dtype)


def is_float_array(array: np.ndarray) -> bool:
    """A floating-point array, numpy's or ml_dtypes' (bfloat16, fp8)."""
    return array.dtype.kind in "fc" or array.dtype.name in ML_FLOATS


def dtype_name(array: np.ndarray) -> str:
    return "bfloat16" if array.dtype.name == "bfloat16" else array.dtype.name


def is_float(dtype: str) -> bool:
    return dtype in FORMATS


def ulp(values: np.ndarray, dtype: str) -> np.ndarray:
    """The spacing of `dtype` at |values| (float64): 2**(max(e, emin) - p + 1) with 2**e <= |v|."""
    p, emin = FORMATS[dtype]
    mag = np.abs(np.asarray(values, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        _, e = np.frexp(mag)  # mag = m * 2**e, m in [0.5, 1): the binade's exponent is e - 1
    exponent = np.where(mag == 0, emin, np.maximum(e.astype(np.int64) - 1, emin))
    return np.ldexp(1.0, (exponent - p + 1).astype(np.int32))


def ulp_distance(a: np.ndarray, b: np.ndarray, dtype: str) -> np.ndarray:
    """How many representable `dtype` values lie between a and b (both rounded to `dtype`; +0 and
    -0 are one value); float64 so float64 distances do not overflow. Integers: |a - b|."""
    if not is_float(dtype):
        return np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))
    target = np_dtype(dtype)
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[target.itemsize]
    keys = []
    for x in (a, b):
        raw = np.ascontiguousarray(np.asarray(x).astype(target)).view(bits)
        sign = raw >> (8 * target.itemsize - 1)
        magnitude = (raw & ~(bits(1) << bits(8 * target.itemsize - 1))).astype(np.int64)
        keys.append(np.where(sign == 1, -magnitude, magnitude).astype(np.float64))
    return np.abs(keys[0] - keys[1])


def normalise(name: str) -> str:
    """A math function's table name: `math.exp`, `expf`, `__nv_expf`, `tl.exp` -> `exp`; CUDA's
    fast intrinsics keep their spelling (`__expf`)."""
    for prefix in ("math.", "tl.math.", "tl.", "libdevice.", "__nv_"):
        if name.startswith(prefix):
            name = name[len(prefix):]
    if name in CUDA_INTRINSICS or name in CUDA_ULPS:
        return name
    if name.endswith("f") and name[:-1] in CUDA_ULPS:
        return name[:-1]
    return name


# ---------------------------------------------------------------------------------------------
# The first policy, kept for callers that need only the per-dtype default.


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float
    rule: str

    def accepts(self, reference: np.ndarray, actual: np.ndarray) -> np.ndarray:
        """Elementwise: |actual - reference| <= atol + rtol * |reference| (NaN handled by the caller)."""
        ref = reference.astype(np.float64)
        act = actual.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            return np.abs(act - ref) <= self.atol + self.rtol * np.abs(ref)


def for_dtype(dtype: str) -> Tolerance:
    if dtype in DEFAULTS:
        rtol, atol = DEFAULTS[dtype]
        return Tolerance(rtol, atol, f"torch.testing default for {dtype}: rtol={rtol:g}, atol={atol:g}")
    return Tolerance(0.0, 0.0, f"exact match for {dtype}")


# ---------------------------------------------------------------------------------------------
# The policy


@dataclass(frozen=True)
class Policy:
    """What the tolerance of one output depends on; every field but `dtype` is optional.

    dtype: the output's dtype name (`float32`, `bfloat16`, `int32`, ...).
    source_math, target_math: math functions in each side's IR (`math.exp`, `expf`, `__expf`, ...).
    source_language, target_language: `cuda` or `triton` (which function table applies).
    reduction_length: K of a reduction or dot feeding the output, when known.
    accumulation_dtype: the precision the source accumulates in (default: float32, float64 for a
        float64 output); the target is held to it, so fp16 accumulation fails for an fp32 source.
    argument_max: the largest |argument| of a transcendental (e.g. max |input|), for the bounds that
        grow with it (Triton's exp, __expf); unknown: only their constant part is used, and said.
    c: the constant of the K-aware bound. baseline_factor, baseline_slack_ulps: the baseline rule.
    """

    dtype: str
    source_math: frozenset[str] = frozenset()
    target_math: frozenset[str] = frozenset()
    source_language: str = "cuda"
    target_language: str = "triton"
    reduction_length: int | None = None
    accumulation_dtype: str | None = None
    argument_max: float | None = None
    c: float = 1.0
    baseline_factor: float = 2.0
    baseline_slack_ulps: float = 2.0

    @property
    def compute_dtype(self) -> str:
        return "float64" if self.dtype == "float64" else "float32"

    @property
    def accumulation(self) -> str:
        return self.accumulation_dtype or self.compute_dtype


def side_ulps(functions: Iterable[str], language: str, precision: str,
              argument_max: float | None) -> tuple[float, float, list[str], list[str]]:
    """Sum of the documented errors of one side's functions: (ulps, absolute, explanations, unknown)."""
    ulps, absolute, parts, unknown = 0.0, 0.0, [], []
    for raw in sorted(set(functions)):
        name = normalise(raw)
        err: UlpError | None = None
        if language == "triton" and precision == "float32" and name in TRITON_ULPS:
            err = TRITON_ULPS[name]
        elif name in CUDA_INTRINSICS and precision == "float32":
            err = CUDA_INTRINSICS[name]
        elif name in CUDA_ULPS:
            err = UlpError(CUDA_ULPS[name][0 if precision == "float32" else 1])
        if err is None:
            unknown.append(raw)
            continue
        if err.ulps == 0 and err.per_arg == 0 and err.absolute == 0:
            continue
        growth = err.per_arg * argument_max if argument_max is not None else 0.0
        ulps += err.ulps + math.floor(growth)
        absolute += err.absolute
        text = f"{name} {err.ulps:g}"
        if err.per_arg:
            text += (f" + floor({err.per_arg:g}*|x|) = {err.ulps + math.floor(growth):g} (|x| <= {argument_max:g})"
                     if argument_max is not None else f" + {err.per_arg:g}*|x| (|x| unknown: not counted)")
        text += " ulp" + (f" + {err.absolute:.3g} absolute" if err.absolute else "") + f" ({err.source})"
        parts.append(text)
    return ulps, absolute, parts, unknown


@dataclass
class RuleOutcome:
    """One rule applied to one output. `bound` and `error` are taken at the element where the
    error is largest relative to the bound (`worst_index`, a flat index)."""

    name: str  # floor | ulp | k-aware | baseline | exact
    text: str
    compares: str  # "target vs source" or "target vs oracle"
    passed: bool
    mismatches: int
    bound: float
    error: float
    worst_index: int | None

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Judgement:
    """The verdict on one output. Errors are over the elements compared (finite on both sides and
    inside `valid`); `mismatches` and `special_mismatch` have the output's shape."""

    passed: bool  # numbers only; NaN/Inf positions: special_mismatch
    rule: str  # the deciding rule's text (or, failing, why no rule accepts)
    bound: float  # passing: the deciding rule's bound at its worst element; failing: at the worst
    # element, the bound of the rule that came closest to accepting it
    worst_index: int | None
    max_abs: float  # target vs source
    max_rel: float
    max_ulp: float  # in the output dtype
    source_error: float | None  # max |source - oracle|
    target_error: float | None  # max |target - oracle|
    closer: str | None  # "source", "target", "equal", or None without an oracle
    mismatches: np.ndarray
    special_mismatch: np.ndarray
    compared: int
    rules: list[RuleOutcome] = field(default_factory=list)

    @property
    def specials_match(self) -> bool:
        return not bool(self.special_mismatch.any())

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "rule": self.rule, "bound": self.bound, "worst_index": self.worst_index,
                "max_abs": self.max_abs, "max_rel": self.max_rel, "max_ulp": self.max_ulp,
                "source_error": self.source_error, "target_error": self.target_error, "closer": self.closer,
                "mismatches": int(self.mismatches.sum()), "special_mismatches": int(self.special_mismatch.sum()),
                "compared": self.compared, "rules": [r.to_json() for r in self.rules]}


@dataclass
class _Rule:
    name: str
    text: str
    compares: str
    error: np.ndarray  # float64, over all elements
    bound: np.ndarray
    usable: np.ndarray  # where the rule has what it needs


def special_mismatch(source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Where NaN/Inf differ: a NaN on one side only, or an infinity the other side does not have."""
    s, t = _f64(source), _f64(target)
    both_nan = np.isnan(s) & np.isnan(t)
    special = ~np.isfinite(s) | ~np.isfinite(t)
    with np.errstate(invalid="ignore"):
        return special & ~both_nan & ~(s == t)


def judge(source: np.ndarray, target: np.ndarray, policy: Policy, oracle: np.ndarray | None = None,
          magnitude: np.ndarray | None = None, valid: np.ndarray | None = None) -> Judgement:
    """Judge the target's output against the source's (and the float64 oracle's, when given).

    Float outputs always get the floor, the baseline rule when there is an oracle, the ulp rule
    when either side uses a math function with a nonzero documented error, the K-aware rule when
    `policy.reduction_length` is set; an element passes when any of them accepts it.
    `magnitude`: per element, sum |a_k||b_k| (or sum |x_k|) in float64, for the K-aware rule; for a
    kernel that only adds products of its inputs, the float64 oracle run on |inputs| gives it.
    `valid`: the elements to judge (e.g. those written on both sides: poison is a NaN); others are
    ignored.
    """
    source = np.asarray(source)
    target = np.asarray(target).reshape(source.shape)
    s, t = _f64(source), _f64(target)
    o = None if oracle is None else _f64(oracle).reshape(source.shape)
    m = None if magnitude is None else _f64(magnitude).reshape(source.shape)
    inside = np.ones(source.shape, bool) if valid is None else np.asarray(valid, bool).reshape(source.shape)
    specials = special_mismatch(s, t) & inside
    compared = inside & np.isfinite(s) & np.isfinite(t)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.where(compared, np.abs(t - s), 0.0)
        rel = np.where(compared & (s != 0), diff / np.where(s != 0, np.abs(s), 1.0), 0.0)
    ulps = np.where(compared, ulp_distance(np.where(compared, s, 0), np.where(compared, t, 0), policy.dtype), 0.0)
    oracle_ok = compared if o is None else compared & np.isfinite(o)
    src_err = tgt_err = None
    closer = None
    if o is not None:
        with np.errstate(invalid="ignore", over="ignore"):
            src_err = float(np.where(oracle_ok, np.abs(s - o), 0.0).max(initial=0.0))
            tgt_err = float(np.where(oracle_ok, np.abs(t - o), 0.0).max(initial=0.0))
        closer = "equal" if src_err == tgt_err else ("source" if src_err < tgt_err else "target")

    rules = _rules(policy, s, t, o, m, diff, compared, oracle_ok, src_err)
    ratios = [_ratio(rule, compared) for rule in rules]
    outcomes = [_outcome(rule, ratio, compared, diff) for rule, ratio in zip(rules, ratios)]
    best = np.minimum.reduce(ratios) if ratios else np.where(compared, np.inf, 0.0)
    mismatches = compared & (best > 1.0)
    passed = not bool(mismatches.any())
    worst = _worst(best, compared, diff)
    bound = 0.0
    if worst is not None and rules:
        bound = float(rules[int(np.argmin([r.flat[worst] for r in ratios]))].bound.flat[worst])
    deciding = next((out for out in outcomes if out.passed), None)
    if deciding is not None:
        text, bound = deciding.text, deciding.bound
    elif passed:
        text = "each element accepted by one of: " + "; ".join(out.text for out in outcomes)
    else:
        text = (f"no rule accepts {int(mismatches.sum())} of {int(compared.sum())} elements ("
                + ", ".join(f"{out.name} rejects {out.mismatches}" for out in outcomes) + ")")
    return Judgement(passed, text, bound, worst, float(diff.max(initial=0.0)), float(rel.max(initial=0.0)),
                     float(ulps.max(initial=0.0)), src_err, tgt_err, closer, mismatches, specials,
                     int(compared.sum()), outcomes)


def _ratio(rule: _Rule, compared: np.ndarray) -> np.ndarray:
    """error / bound per element (0 when both are 0; inf where the rule cannot judge); 0 outside
    the compared elements."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        ratio = np.where(rule.error == 0, 0.0, rule.error / rule.bound)
    ratio = np.where(rule.usable & ~np.isnan(ratio), ratio, np.inf)
    return np.where(compared, ratio, 0.0)


def _worst(ratio: np.ndarray, compared: np.ndarray, diff: np.ndarray) -> int | None:
    """The element furthest from acceptance; among those no bound covers, the largest difference."""
    if not compared.any():
        return None
    unbounded = compared & np.isinf(ratio)
    if unbounded.any():
        return int(np.argmax(np.where(unbounded, diff, -1.0)))
    return int(np.argmax(np.where(compared, ratio, -1.0)))


def _outcome(rule: _Rule, ratio: np.ndarray, compared: np.ndarray, diff: np.ndarray) -> RuleOutcome:
    bad = compared & (ratio > 1.0)
    index = _worst(ratio, compared, diff)
    bound = error = 0.0
    if index is not None:
        bound, error = float(rule.bound.flat[index]), float(rule.error.flat[index])
    return RuleOutcome(rule.name, rule.text, rule.compares, not bool(bad.any()), int(bad.sum()), bound, error, index)


def _rules(policy: Policy, s: np.ndarray, t: np.ndarray, o: np.ndarray | None, m: np.ndarray | None,
           diff: np.ndarray, compared: np.ndarray, oracle_ok: np.ndarray, src_err: float | None) -> list[_Rule]:
    dtype = policy.dtype
    if not is_float(dtype):
        return [_Rule("exact", f"exact match for {dtype}", "target vs source", diff, np.zeros(s.shape), compared)]
    rules = []
    floor = for_dtype(dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        floor_bound = floor.atol + floor.rtol * np.abs(s)
    rules.append(_Rule("floor", floor.rule, "target vs source", diff, floor_bound, compared))
    if ulp_rule := _ulp_rule(policy, s, diff, compared):
        rules.append(ulp_rule)
    if policy.reduction_length is not None and policy.reduction_length >= 1:
        rules.append(_k_rule(policy, s, t, o, m, diff, compared, oracle_ok))
    if o is not None and src_err is not None:
        slack = policy.baseline_slack_ulps * ulp(o, dtype)
        with np.errstate(invalid="ignore"):
            err = np.where(oracle_ok, np.abs(t - o), np.inf)
        rules.append(_Rule(
            "baseline", f"baseline: |target - oracle| <= {policy.baseline_factor:g} x the source's largest error "
            f"({src_err:.3g}) + {policy.baseline_slack_ulps:g} ulp of {dtype}", "target vs oracle",
            err, policy.baseline_factor * src_err + slack, oracle_ok))
    return rules


def _ulp_rule(policy: Policy, s: np.ndarray, diff: np.ndarray, compared: np.ndarray) -> _Rule | None:
    if not (policy.source_math or policy.target_math):
        return None
    precision = policy.compute_dtype
    arg = policy.argument_max
    us, abs_s, parts_s, unknown_s = side_ulps(policy.source_math, policy.source_language, precision, arg)
    ut, abs_t, parts_t, unknown_t = side_ulps(policy.target_math, policy.target_language, precision, arg)
    if unknown_s or unknown_t:
        return _Rule("ulp", f"ulp: no documented error for {', '.join(sorted(set(unknown_s + unknown_t)))}; "
                     "the ulp rule does not apply", "target vs source", diff, np.zeros(s.shape),
                     np.zeros(s.shape, bool))
    if us == 0 and ut == 0 and abs_s == 0 and abs_t == 0:
        return None  # only exact functions: the floor decides
    total = us + ut + 1
    bound = total * ulp(s, precision) + abs_s + abs_t
    narrower = policy.dtype != precision
    if narrower:
        bound = bound + ulp(s, policy.dtype)
    text = (f"ulp: |target - source| <= {total:g} ulp of {precision} (source {policy.source_language}: "
            f"{'; '.join(parts_s) or 'exact functions'}; target {policy.target_language}: "
            f"{'; '.join(parts_t) or 'exact functions'}; 1 for rounding)"
            + (f" + 1 ulp of {policy.dtype} for the final rounding" if narrower else ""))
    return _Rule("ulp", text, "target vs source", diff, bound, compared)


def _k_rule(policy: Policy, s: np.ndarray, t: np.ndarray, o: np.ndarray | None, m: np.ndarray | None,
            diff: np.ndarray, compared: np.ndarray, oracle_ok: np.ndarray) -> _Rule:
    k, acc = int(policy.reduction_length or 0), policy.accumulation
    u = unit_roundoff(acc)
    g = gamma(k, u)
    if math.isinf(g):
        return _Rule("k-aware", f"K-aware: K*u = {k}*{u:.3g} >= 1 in {acc}: no bound", "target vs source",
                     diff, np.zeros(s.shape), np.zeros(s.shape, bool))
    u_out = unit_roundoff(policy.dtype)
    reference = o if o is not None else s
    magnitude_text = "sum |terms| in float64"
    if m is None:
        m = np.abs(reference)
        magnitude_text = "|reference| (magnitudes not given: too tight where terms cancel)"
    usable = (oracle_ok if o is not None else compared) & np.isfinite(m)
    with np.errstate(invalid="ignore", over="ignore"):
        if o is not None:
            err = np.where(usable, np.abs(t - o), np.inf)
            bound = policy.c * g * m + u_out * np.abs(o)
            text = (f"K-aware: |target - oracle| <= {policy.c:g} * gamma_{k} * m + u_out*|oracle|, "
                    f"gamma_{k} = {g:.3g} ({acc} accumulation, u = {u:.3g}), m = {magnitude_text}")
            return _Rule("k-aware", text, "target vs oracle", err, bound, usable)
        bound = 2 * policy.c * g * m + 2 * u_out * np.abs(s)
    text = (f"K-aware: |target - source| <= 2 * {policy.c:g} * gamma_{k} * m + 2*u_out*|source| (no oracle: "
            f"both sides' errors), gamma_{k} = {g:.3g} ({acc} accumulation, u = {u:.3g}), m = {magnitude_text}")
    return _Rule("k-aware", text, "target vs source", diff, bound, usable)


def _f64(array: Any) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        return np.asarray(array).astype(np.float64)
