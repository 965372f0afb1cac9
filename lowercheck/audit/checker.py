"""The task's own checker, replayed: would it accept these outputs as a solution's?

`torch.allclose` semantics, as the harness configures them: an element passes when
`|out - ref| <= atol + rtol * |r|` (r the reference's value, or the solution's for
`relative_to = "solution"`, as `torch.allclose(ref, out)` scales it), NaN never close, the shapes
equal; a solution passes when every element of every output passes in every trial.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lowercheck.audit.task import Correctness
from lowercheck.compare.tolerance import dtype_name


# How far another machine's measurement of the reference's own rounding error may lie from this
# one's, as a factor either way. Such an error is one summation order's (the BLAS of this CPU's vendor,
# its SIMD width, its math library), and the machines that run a task (CI, a reviewer's laptop, a
# GPU's split-K) round the same sum in other orders: on a 1027-term float32 matmul the mirrored
# answer measured 0.87 of a bound on an AMD EPYC and 1.2 on an Intel Xeon. The factor is a stated
# margin, not a bound: a judgement that this band leaves undecided is borderline (docs/portability.md).
ORDER_FACTOR = 2.0


class Decision(enum.Enum):
    """A judgement as every machine in the band would make it."""

    PASSES = "passes"
    FAILS = "fails"
    BORDERLINE = "borderline"  # passes on some machines, fails on others


@dataclass(frozen=True)
class Verdict:
    passed: bool
    ratio: float  # the largest |out - ref| / (atol + rtol |r|) over the elements: <= 1 passes
    error: float  # the largest |out - ref|
    atol: float
    rtol: float
    trials: int
    why: str = ""  # why it failed, when not by the values (a shape, a NaN)
    of: int = 0  # the harness's trials (more than `trials` when the runs here were cut to a budget)

    def across(self, factor: float = 1.0) -> Decision:
        """The checker's answer on any machine whose ratio lies within `factor` of this one's (1: this
        machine's answer, for a measurement that does not depend on the machine). A failure not of
        the values (a shape, a NaN) fails everywhere."""
        if self.why or not math.isfinite(self.ratio):
            return Decision.PASSES if self.passed else Decision.FAILS
        if self.ratio * factor <= 1.0:
            return Decision.PASSES
        return Decision.FAILS if self.ratio / factor > 1.0 else Decision.BORDERLINE

    def band(self, factor: float) -> str:
        """`borderline: 0.43-1.7 of the bound across summation orders (0.87 here)`."""
        return (f"borderline: {self.ratio / factor:.2g}-{self.ratio * factor:.2g} of the bound across summation "
                f"orders ({self.ratio:.2g} here; largest error {self.error:.3g}, atol {self.atol:g} + rtol "
                f"{self.rtol:g} * |ref|, over {self.trials} trial(s))")

    def margin(self) -> str:
        """`largest error 3.1e-03, 0.31 of the bound atol 0.01 + rtol 0.01 * |ref|, over 5 trial(s)`."""
        return (f"largest error {self.error:.3g}, {self.ratio:.2g} of the bound atol {self.atol:g} + rtol "
                f"{self.rtol:g} * |ref|, over {self.trials} trial(s)"
                + (f" of the harness's {self.of} (the runs here are cut to a time and memory budget)"
                   if self.of > self.trials else ""))


def judge(candidate: Sequence[Sequence[np.ndarray]], reference: Sequence[Sequence[np.ndarray]],
          correctness: Correctness, dtypes: Sequence[str] | None = None) -> Verdict:
    """`candidate[t][k]` against `reference[t][k]` for every trial t and output k; the tolerance is
    the one for output k's dtype (`dtypes[k]`, or the reference's own)."""
    worst_ratio, worst_error, atol_used, rtol_used = 0.0, 0.0, 0.0, 0.0
    for outs, refs in zip(candidate, reference, strict=True):
        if len(outs) != len(refs):
            return Verdict(False, np.inf, np.inf, 0, 0, len(reference), f"{len(outs)} outputs, not {len(refs)}")
        for k, (out, ref) in enumerate(zip(outs, refs)):
            atol, rtol = correctness.tolerance(dtypes[k] if dtypes else dtype_name(ref))
            atol_used, rtol_used = atol, rtol
            if out.shape != ref.shape:
                return Verdict(False, np.inf, np.inf, atol, rtol, len(reference), f"shape {out.shape}, not {ref.shape}")
            if out.size == 0:
                continue
            o, r = np.asarray(out, dtype=np.float64), np.asarray(ref, dtype=np.float64)
            scale = np.abs(o) if correctness.relative_to == "solution" else np.abs(r)
            with np.errstate(invalid="ignore", over="ignore"):
                diff = np.abs(o - r)
                bound = atol + rtol * scale
                ratio = np.where(bound > 0, diff / np.where(bound > 0, bound, 1), np.where(diff > 0, np.inf, 0))
            if np.isnan(diff).any():
                return Verdict(False, np.inf, np.inf, atol, rtol, len(reference), "NaN in the output or the reference")
            worst_ratio = max(worst_ratio, float(ratio.max()))
            worst_error = max(worst_error, float(diff.max()))
    return Verdict(worst_ratio <= 1.0, worst_ratio, worst_error, atol_used, rtol_used, len(reference),
                   of=correctness.trials)
