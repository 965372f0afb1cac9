"""Audit verdicts that hold on any machine (docs/portability.md): a judgement of the reference's own
rounding error is decided across a band of summation orders, and a measurement inside the band is a
borderline warning, never an error on one machine and nothing on another."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lowercheck.audit import task as tasks
from lowercheck.audit.checker import ORDER_FACTOR, Decision, Verdict
from lowercheck.audit.checks import Context
from lowercheck.audit.checks.numerics import correct_solutions_rejected, reference_against_oracle
from lowercheck.audit.probe import Probe, Trial
from lowercheck.findings import Severity
from lowercheck.perf.targets import get_target

TASKS = Path(__file__).parents[2] / "corpus" / "tasks"
BORDERLINE = TASKS / "lc602_borderline_matmul" / "task.toml"


def _verdict(ratio: float) -> Verdict:
    return Verdict(ratio <= 1.0, ratio, ratio * 1e-4, 1e-4, 0.0, 1)


@pytest.mark.parametrize(("ratio", "decision"), [(0.3, Decision.PASSES), (0.5, Decision.PASSES),
                                                 (0.51, Decision.BORDERLINE), (1.0, Decision.BORDERLINE),
                                                 (1.99, Decision.BORDERLINE), (2.0, Decision.BORDERLINE),
                                                 (2.01, Decision.FAILS)])
def test_a_ratio_within_the_order_factor_of_the_bound_is_borderline(ratio: float, decision: Decision) -> None:
    assert ORDER_FACTOR == 2.0
    assert _verdict(ratio).across(ORDER_FACTOR) is decision
    # a measurement that does not depend on the machine is decided as measured
    assert _verdict(ratio).across(1.0) is (Decision.PASSES if ratio <= 1 else Decision.FAILS)


def _context(reference_ratio: float, ops: list[str], k: int) -> Context:
    """A probe whose reference lies `reference_ratio` of the task's bound from the float64 oracle at its
    worst element."""
    task = tasks.load(str(BORDERLINE))
    atol, rtol = task.harness.correctness.tolerance("float32")
    rng = np.random.default_rng(0)
    oracle = rng.standard_normal(4096)
    bound = atol + rtol * np.abs(oracle)
    error = reference_ratio * bound * rng.uniform(-1.0, 1.0, oracle.shape)
    error[np.argmax(np.abs(error) / bound)] = reference_ratio * bound[np.argmax(np.abs(error) / bound)]
    reference = (oracle + error).astype(np.float32)
    facts = {"meta": {"k": k, "k_op": "mm" if k else None, "ops": ops}, "deterministic": True}
    return Context(task, Probe(facts, [Trial([], [reference], [oracle])]), get_target("h100-sxm"))


def _outcome(context: Context) -> dict[str, str]:
    """code -> 'error' | 'warning' for the checks of the reference's rounding."""
    found = correct_solutions_rejected(context) + reference_against_oracle(context)
    rounding = [f for f in found if f.code == "LC603" or f.witness.get("candidate") in ("exact", "mirrored")]
    return {f.code: ("error" if f.level == Severity.ERROR else "warning") for f in rounding}


@pytest.mark.parametrize(("ratio", "expected"), [
    (0.2, {}),  # the mirrored answer at 0.4 of the bound: passes on every machine
    (0.4, {"LC602": "warning"}),  # the mirrored answer at 0.8: 0.4-1.6 across summation orders
    (0.8, {"LC603": "warning"}),  # the reference itself at 0.8: 0.4-1.6 (LC603 says it; LC602 leaves it)
    (1.5, {"LC603": "warning"}),
    (2.5, {"LC603": "error"}),  # off the exact answer beyond the bound on every machine
])
def test_the_reference_rounding_checks_across_summation_orders(ratio: float, expected: dict[str, str]) -> None:
    assert _outcome(_context(ratio, ["mm"], 867)) == expected


def test_a_reference_that_rounds_alike_everywhere_is_decided_as_measured() -> None:
    """Additions and products alone, no reduction: IEEE 754 fixes each result's bits on every machine."""
    assert _outcome(_context(0.8, ["add", "mul"], 0)) == {"LC602": "error"}  # the mirrored answer at 1.6
    assert _outcome(_context(1.5, ["add", "mul"], 0)) == {"LC603": "error"}
    assert _outcome(_context(0.4, ["add", "mul"], 0)) == {}


def test_never_an_error_on_one_machine_and_nothing_on_another() -> None:
    """Two machines whose measurements lie within the order factor of each other never disagree between
    an error and no finding: at most one says borderline where the other decides."""
    ratios = np.geomspace(0.05, 8.0, 40)
    outcomes = {r: _outcome(_context(float(r), ["mm"], 867)) for r in ratios}
    for one in ratios:
        for other in ratios:
            if one <= other <= one * ORDER_FACTOR:
                for code in ("LC602", "LC603"):
                    pair = {outcomes[one].get(code), outcomes[other].get(code)}
                    assert pair != {"error", None}, (code, one, outcomes[one], other, outcomes[other])


@pytest.mark.parametrize("capability", ["default", "avx512"])
def test_a_borderline_task_is_a_warning_with_every_cpu_kernel(capability: str) -> None:
    """The task of corpus/tasks/lc602_borderline_matmul, audited with torch's CPU kernels switched
    (ATEN_CPU_CAPABILITY: other vector widths, other summation orders): sound (exit 0) with a
    borderline warning on the reference's rounding, the ratio's range in the witness."""
    done = subprocess.run([sys.executable, "-m", "lowercheck", "audit", str(BORDERLINE), "--format", "json"],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "ATEN_CPU_CAPABILITY": capability})
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(done.stdout)
    borderline = [f for f in doc["findings"] if f["code"] in ("LC602", "LC603") and "borderline" in f["message"]]
    assert borderline and all(f["severity"] == "warning" for f in borderline), doc["findings"]
    low, high = borderline[0]["witness"]["ratio_low"], borderline[0]["witness"]["ratio_high"]
    assert low < 1.0 < high and high / low == pytest.approx(ORDER_FACTOR**2)
