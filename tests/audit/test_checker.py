"""The task's checker replayed: torch.allclose semantics, per dtype, over every trial."""

from __future__ import annotations

import numpy as np

from lowercheck.audit.checker import judge
from lowercheck.audit.task import Correctness


def test_allclose_bound_relative_to_the_reference_or_the_solution():
    ref = [[np.array([1.0, 100.0], dtype=np.float32)]]
    out = [[np.array([1.0, 101.5], dtype=np.float32)]]
    loose = Correctness(atol=0.0, rtol=0.015)
    assert judge(out, ref, loose).passed  # 1.5 <= 0.015 * 100
    assert judge(out, ref, Correctness(atol=0.0, rtol=0.0149)).passed is False
    solution_scaled = Correctness(atol=0.0, rtol=0.0149, relative_to="solution")
    assert judge(out, ref, solution_scaled).passed  # 1.5 <= 0.0149 * 101.5, as torch.allclose(ref, out)


def test_every_trial_must_pass_and_the_margin_is_the_worst():
    ref = [[np.zeros(3, np.float32)], [np.zeros(3, np.float32)]]
    out = [[np.full(3, 1e-3, np.float32)], [np.full(3, 2e-2, np.float32)]]
    verdict = judge(out, ref, Correctness(atol=1e-2, rtol=0.0, trials=2))
    assert not verdict.passed and abs(verdict.error - 2e-2) < 1e-6 and abs(verdict.ratio - 2.0) < 1e-3


def test_nan_and_shape_fail_whatever_the_tolerance():
    ref = [[np.array([1.0, np.nan], dtype=np.float32)]]
    assert not judge([[np.array([1.0, np.nan], np.float32)]], ref, Correctness(atol=1.0, rtol=1.0)).passed
    verdict = judge([[np.zeros((2, 1), np.float32)]], [[np.zeros(2, np.float32)]], Correctness(atol=1.0, rtol=1.0))
    assert not verdict.passed and "shape" in verdict.why


def test_tolerance_by_output_dtype():
    per_dtype = Correctness(atol={"float32": 1e-6, "bfloat16": 1e-2}, rtol=0.0)
    ref32, out32 = [[np.zeros(2, np.float32)]], [[np.full(2, 1e-3, np.float32)]]
    assert not judge(out32, ref32, per_dtype).passed
    assert judge(out32, ref32, per_dtype, ["bfloat16"]).passed
