"""NaN/Inf differences are judged by where they come from ([w2 0/7], [w2 2/7] item 4).

At a non-finite *input* the answer may depend on the machine's math library: PyTorch's erf-based
GELU gives NaN at +inf on some x86-64 CPUs (AVX512 builds) and +inf on others. Such a difference is
a warning naming the element and both values; the verdict comes from the runs on finite inputs,
where a NaN or an infinity on one side only (a softmax without max subtraction) stays an error."""

from __future__ import annotations

import numpy as np
import pytest

from lowercheck.compare.dynamic import OutputPair, compare, has_nonfinite_inputs
from lowercheck.compare.tolerance import Policy
from lowercheck.findings import Severity
from lowercheck.runners import draws
from lowercheck.runners.base import RunResult

INF, NAN = float("inf"), float("nan")
PAIR = OutputPair("out", "return0", policy=Policy("float32", source_language="torch", target_language="triton"))


def _gelu_like(x: np.ndarray, at_plus_inf: float) -> np.ndarray:
    """x * Phi(x) with the machine's answer at +inf given."""
    out = np.where(np.isfinite(x), x * 0.5, x).astype(np.float32)
    out[np.isneginf(x)] = -0.0
    out[np.isposinf(x)] = at_plus_inf
    out[np.isnan(x)] = NAN
    return out


def _ran_on(x: np.ndarray, **outputs: np.ndarray) -> RunResult:
    """A run's result with the facts its child finds of the input `x` (`draws.facts`)."""
    return RunResult(outputs=outputs, facts={draws.FACTS: {"x": {"nonfinite": bool(not np.isfinite(x).all())}}})


def _run(source_out: np.ndarray, target_out: np.ndarray, x: np.ndarray, kind: str):
    return compare({"n": x.size}, _ran_on(x, out=source_out), _ran_on(x, return0=target_out), [PAIR], kind)


@pytest.mark.parametrize("reference_at_inf", [NAN, INF], ids=["nan_at_inf", "inf_at_inf"])
def test_the_reference_s_answer_at_plus_inf_does_not_change_the_verdict(reference_at_inf: float) -> None:
    x = np.array([0.5, INF, -1.0, -INF, NAN, 2.0], dtype=np.float32)
    findings, record = _run(_gelu_like(x, reference_at_inf), _gelu_like(x, INF), x, "special")
    assert not [f for f in findings if f.level == Severity.ERROR]
    if np.isnan(reference_at_inf):  # said, as a warning naming the element and both values
        (finding,) = findings
        assert finding.code == "LC302" and finding.level == Severity.WARNING
        assert finding.witness["index"] == 1 and np.isnan(finding.witness["source"])
        assert finding.witness["target"] == INF and finding.witness["nonfinite_inputs"]
        assert "nan" in finding.message and "inf" in finding.message
        assert record.status == "NaN/Inf differ"
    else:
        assert findings == [] and record.status == "ok"


def test_non_finite_inputs_are_found_in_the_data_whatever_the_kind_says() -> None:
    x = np.array([1.0, INF], dtype=np.float32)
    findings, _ = _run(_gelu_like(x, NAN), _gelu_like(x, INF), x, "normal")
    assert [f.level for f in findings] == [Severity.WARNING]
    assert has_nonfinite_inputs([_ran_on(x)], "normal")
    assert not has_nonfinite_inputs([_ran_on(np.ones(3, np.float32))], "normal")
    assert has_nonfinite_inputs([RunResult()], "special")


def test_an_overflow_from_finite_inputs_stays_an_error() -> None:
    """A softmax without max subtraction: exp overflows at large finite inputs, the row is NaN."""
    x = np.array([100.0, 99.0, 1.0], dtype=np.float32)
    ref = np.array([0.73, 0.27, 0.0], dtype=np.float32)
    findings, record = _run(ref, np.array([NAN, NAN, 0.0], dtype=np.float32), x, "large")
    (finding,) = findings
    assert finding.code == "LC302" and finding.level == Severity.ERROR and not finding.witness["nonfinite_inputs"]
    assert record.status == "mismatch"
