"""Task probes: zeros pass a long bf16 softmax (the torch floor's atol is above every output); a
copy passes ReLU on non-negative inputs only; the mean passes an almost constant output."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from lowercheck.compare.probes import candidates, trivial_outputs
from lowercheck.compare.tolerance import Policy, judge


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum()


def test_zeros_pass_a_long_bf16_softmax():
    x = np.random.default_rng(0).uniform(-1, 1, 300_000)
    oracle = softmax(x)
    source = oracle.astype(ml_dtypes.bfloat16)
    assert oracle.max() < 1e-5  # below the bf16 atol
    floor_only = trivial_outputs(source, [x.astype(ml_dtypes.bfloat16)],
                                 lambda c: judge(source, c, Policy("bfloat16")))
    assert {p.name for p in floor_only} >= {"zeros"} and "copy" not in {p.name for p in floor_only}
    # the floor is a sufficient reason on its own: the oracle does not save the check (LC501's point)
    zeros = judge(source, np.zeros_like(source), Policy("bfloat16"), oracle=oracle)
    assert zeros.passed and zeros.rule.startswith("torch.testing default for bfloat16")
    assert not next(r for r in zeros.rules if r.name == "baseline").passed
    # a short softmax has outputs above atol: zeros fail
    short = softmax(x[:1000])
    assert trivial_outputs(short.astype(ml_dtypes.bfloat16), [x[:1000]],
                           lambda c: judge(short.astype(ml_dtypes.bfloat16), c, Policy("bfloat16"))) == []


def test_copy_passes_relu_on_non_negative_inputs_only():
    rng = np.random.default_rng(1)
    positive = rng.uniform(0, 1, (32, 32)).astype(np.float32)
    relu = np.maximum(positive, 0)
    found = trivial_outputs(relu, [positive], lambda c: judge(relu, c, Policy("float32")).passed)
    assert [p.name for p in found] == ["copy"] and found[0].identical
    signed = rng.standard_normal((32, 32)).astype(np.float32)
    relu = np.maximum(signed, 0)
    assert trivial_outputs(relu, [signed], lambda c: judge(relu, c, Policy("float32"))) == []


def test_mean_passes_an_almost_constant_output():
    source = (1 + 1e-7 * np.random.default_rng(2).standard_normal(1000)).astype(np.float32)
    found = trivial_outputs(source, [], lambda c: judge(source, c, Policy("float32")))
    assert [p.name for p in found] == ["mean"] and not found[0].identical


def test_candidates_shapes_and_specials():
    source = np.array([[1.0, np.nan], [3.0, 5.0]], np.float32)
    found = dict((p.name, c) for p, c in candidates(source, [np.arange(4.0), np.zeros(3)]))
    assert set(found) == {"zeros", "copy", "mean"}
    assert all(c.shape == (2, 2) and c.dtype == np.float32 for c in found.values())
    assert found["mean"][0, 0] == 3.0 and found["copy"][1, 1] == 3.0
    assert "copy" not in dict((p.name, c) for p, c in candidates(source, [np.zeros(3)]))
    # a NaN in the source is a special-value mismatch for every trivial candidate
    assert trivial_outputs(source, [np.arange(4.0)], lambda c: judge(source, c, Policy("float32", ))) == []
    assert trivial_outputs(np.zeros(0, np.float32), [], lambda c: True) == []
