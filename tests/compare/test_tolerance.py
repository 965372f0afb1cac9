"""The tolerance policy: each rule accepts what correct arithmetic produces and rejects the bugs the
issue names (a fixed rtol fails a correct K=4096 matmul; fp16 accumulation fails the K-aware rule)."""

from __future__ import annotations

import numpy as np
import pytest

from lowercheck.compare.tolerance import (Policy, Tolerance, for_dtype, gamma, judge, normalise, ulp,
                                          ulp_distance, unit_roundoff)

K = 4096


@pytest.fixture(scope="module")
def matmul():
    """A 16x16 fp32 matmul at K=4096: sequential (source), blocked by 64 (target), fp16 accumulation,
    the float64 oracle and the magnitudes sum |a||b|."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((16, K)).astype(np.float32)
    b = rng.standard_normal((K, 16)).astype(np.float32)
    sequential = np.zeros((16, 16), np.float32)
    half = np.zeros((16, 16), np.float16)
    for k in range(K):
        product = a[:, k, None] * b[None, k, :]
        sequential += product
        half = (half.astype(np.float32) + product).astype(np.float16)
    blocked = np.zeros((16, 16), np.float32)
    for k0 in range(0, K, 64):
        partial = np.zeros((16, 16), np.float32)
        for k in range(k0 + 63, k0 - 1, -1):  # reversed inside the block: another order again
            partial += a[:, k, None] * b[None, k, :]
        blocked += partial
    oracle = a.astype(np.float64) @ b.astype(np.float64)
    magnitude = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    return sequential, blocked, half.astype(np.float32), oracle, magnitude


def test_fixed_rtol_fails_a_correct_matmul_the_k_aware_rule_passes(matmul):
    sequential, blocked, _, oracle, magnitude = matmul
    assert not np.array_equal(sequential, blocked)  # a different summation order
    fixed = for_dtype("float32")
    assert fixed.rtol == 1.3e-6
    assert not fixed.accepts(sequential, blocked).all()  # the torch default rejects the correct port
    verdict = judge(sequential, blocked, Policy("float32", reduction_length=K), oracle=oracle, magnitude=magnitude)
    assert verdict.passed, verdict.rule
    rules = {r.name: r for r in verdict.rules}
    assert not rules["floor"].passed and rules["floor"].mismatches > 0
    assert rules["k-aware"].passed
    assert verdict.rule.startswith("K-aware") and "gamma_4096" in verdict.rule
    assert verdict.bound == pytest.approx(gamma(K, 2.0 ** -24) * magnitude.flat[rules["k-aware"].worst_index]
                                          + 2.0 ** -24 * abs(oracle.flat[rules["k-aware"].worst_index]))
    assert verdict.closer == "target"  # blocked summation is the more accurate
    assert verdict.max_abs > 0 and verdict.max_ulp >= 1 and verdict.max_rel > 1.3e-6


def test_k_aware_without_oracle_compares_both_errors(matmul):
    sequential, blocked, _, _, magnitude = matmul
    verdict = judge(sequential, blocked, Policy("float32", reduction_length=K), magnitude=magnitude)
    assert verdict.passed
    k_rule = next(r for r in verdict.rules if r.name == "k-aware")
    assert k_rule.compares == "target vs source" and "2 * 1 * gamma_4096" in k_rule.text
    assert verdict.source_error is None and verdict.closer is None


def test_fp16_accumulation_fails_the_k_aware_rule_for_fp32_output(matmul):
    sequential, _, half, oracle, magnitude = matmul
    verdict = judge(sequential, half, Policy("float32", reduction_length=K), oracle=oracle, magnitude=magnitude)
    assert not verdict.passed
    k_rule = next(r for r in verdict.rules if r.name == "k-aware")
    assert not k_rule.passed and k_rule.error > k_rule.bound
    assert verdict.closer == "source" and verdict.target_error > 100 * verdict.source_error
    assert verdict.mismatches.shape == (16, 16) and verdict.mismatches.sum() == k_rule.mismatches
    assert "no rule accepts" in verdict.rule


def test_gamma_and_unit_roundoff():
    assert unit_roundoff("float32") == 2.0 ** -24 and unit_roundoff("bfloat16") == 2.0 ** -8
    assert gamma(4096, 2.0 ** -24) == pytest.approx(4096 * 2.0 ** -24 / (1 - 4096 * 2.0 ** -24))
    assert gamma(4096, 2.0 ** -11) == float("inf")


def test_k_aware_with_no_bound_does_not_accept():
    source = np.ones(8, np.float32)
    target = source + 1
    verdict = judge(source, target, Policy("float32", reduction_length=K, accumulation_dtype="float16"),
                    oracle=source.astype(np.float64), magnitude=np.full(8, 4096.0))
    k_rule = next(r for r in verdict.rules if r.name == "k-aware")
    assert not verdict.passed and not k_rule.passed and "no bound" in k_rule.text


def _triton_exp(x: np.ndarray) -> np.ndarray:
    """Triton's float32 exp: 2**fl(x * log2 e), the product rounded to float32 first."""
    scaled = (x * np.float32(np.log2(np.e))).astype(np.float32)
    return np.exp2(scaled.astype(np.float64)).astype(np.float32)


def test_triton_exp_needs_the_argument_term_of_its_ulp_bound():
    x = np.linspace(-80, 80, 4001, dtype=np.float32)
    source = np.exp(x.astype(np.float64)).astype(np.float32)  # CUDA expf (2 ulp) at its best
    target = _triton_exp(x)
    oracle = np.exp(x.astype(np.float64))
    assert not for_dtype("float32").accepts(source, target).all()
    known = Policy("float32", frozenset({"expf"}), frozenset({"math.exp"}), argument_max=80.0)
    verdict = judge(source, target, known, oracle=oracle)
    assert verdict.passed, verdict.rule
    assert verdict.rule.startswith("ulp") and "floor(1.173*|x|)" in verdict.rule
    assert 10 < verdict.max_ulp <= 2 + 2 + int(1.173 * 80) + 1
    unknown = judge(source, target, Policy("float32", frozenset({"expf"}), frozenset({"math.exp"})))
    assert not unknown.passed and "|x| unknown" in unknown.rules[1].text


def _gelu_tanh(x, dtype):
    x = x.astype(dtype)
    c = dtype(np.sqrt(2 / np.pi))
    return (dtype(0.5) * x * (dtype(1) + np.tanh(c * (x + dtype(0.044715) * x * x * x)))).astype(dtype)


def test_gelu_tanh_ported_as_erf_fails_with_its_ulp_distance():
    from math import erf

    x = np.linspace(-6, 6, 2001).astype(np.float32)
    source = _gelu_tanh(x, np.float32)
    oracle = _gelu_tanh(x.astype(np.float64), np.float64)
    exact = 0.5 * x.astype(np.float64) * (1 + np.vectorize(erf)(x.astype(np.float64) / np.sqrt(2)))
    target = exact.astype(np.float32)
    verdict = judge(source, target, Policy("float32", frozenset({"tanhf"}), frozenset({"math.erf"})), oracle=oracle)
    assert not verdict.passed
    assert verdict.max_ulp > 1000 and verdict.max_abs > 1e-4
    assert verdict.closer == "source"
    # the same function through another formula (x * sigmoid(2u)) is a correct port
    u = np.float32(np.sqrt(2 / np.pi)) * (x + np.float32(0.044715) * x * x * x)
    other = (x / (np.float32(1) + np.exp(np.float32(-2) * u))).astype(np.float32)
    good = judge(source, other, Policy("float32", frozenset({"tanhf"}), frozenset({"math.exp"}), argument_max=30.0),
                 oracle=oracle)
    assert good.passed, good.rule


def test_baseline_rule_accepts_a_target_no_worse_than_twice_the_source():
    rng = np.random.default_rng(3)
    oracle = rng.standard_normal(1000)
    noise = rng.choice([-1.0, 1.0], 1000) * 1e-3
    source = (oracle + noise).astype(np.float32)
    policy = Policy("float32")
    close = judge(source, (oracle - 1.5 * noise).astype(np.float32), policy, oracle=oracle)
    far = judge(source, (oracle - 3 * noise).astype(np.float32), policy, oracle=oracle)
    assert close.passed and close.rule.startswith("baseline")
    assert not next(r for r in close.rules if r.name == "floor").passed
    assert not far.passed and far.closer == "source"


def test_nan_and_inf_are_compared_by_position_and_kept_out_of_the_statistics():
    source = np.array([1, 2, np.nan, 4, 5, np.inf, 7, 8], np.float32)
    target = np.array([1, 2, np.nan, 4, 5, 6, 7, np.nan], np.float32)
    verdict = judge(source, target, Policy("float32"), oracle=source.astype(np.float64))
    assert verdict.special_mismatch.tolist() == [False] * 5 + [True, False, True]
    assert verdict.passed and verdict.max_abs == 0 and verdict.max_ulp == 0 and verdict.compared == 5
    assert not verdict.specials_match
    same = judge(np.array([np.inf, -np.inf, np.nan]), np.array([np.inf, -np.inf, np.nan]), Policy("float64"))
    assert same.specials_match and same.compared == 0
    flipped = judge(np.array([np.inf]), np.array([-np.inf]), Policy("float64"))
    assert not flipped.specials_match


def test_valid_mask_excludes_elements():
    source = np.zeros(4, np.float32)
    target = np.array([0, 0, 5, 0], np.float32)
    assert not judge(source, target, Policy("float32")).passed
    verdict = judge(source, target, Policy("float32"), valid=np.array([True, True, False, True]))
    assert verdict.passed and verdict.compared == 3


def test_integers_match_exactly():
    source = np.array([1, 2, 3], np.int32)
    verdict = judge(source, np.array([1, 2, 4], np.int32), Policy("int32"))
    assert not verdict.passed and verdict.max_ulp == 1 and verdict.rule.startswith("no rule")
    assert [r.name for r in verdict.rules] == ["exact"]
    assert judge(source, source.copy(), Policy("int32", reduction_length=K)).passed


def test_bfloat16_output_uses_its_floor_and_ulps():
    import ml_dtypes

    source = np.array([1.0, 2.0, 3.0], dtype=ml_dtypes.bfloat16)
    target = np.array([1.0078125, 2.0, 3.0], dtype=ml_dtypes.bfloat16)  # one bf16 ulp above 1
    verdict = judge(source, target, Policy("bfloat16"))
    assert verdict.passed and verdict.max_ulp == 1 and "bfloat16" in verdict.rule
    assert judge(source, np.array([1.5, 2, 3], dtype=ml_dtypes.bfloat16), Policy("bfloat16")).passed is False


def test_unknown_function_makes_the_ulp_rule_inapplicable():
    source = np.array([1.0], np.float32)
    verdict = judge(source, source * 1.01, Policy("float32", frozenset({"lgammaf"})))
    ulp_rule = next(r for r in verdict.rules if r.name == "ulp")
    assert not ulp_rule.passed and "no documented error for lgammaf" in ulp_rule.text


def test_ulp_helpers():
    assert ulp(np.array([1.0]), "float32")[0] == 2.0 ** -23
    assert ulp(np.array([0.0]), "float32")[0] == 2.0 ** -149
    assert ulp(np.array([3.0]), "float16")[0] == 2.0 ** -9
    one = np.float32(1)
    assert ulp_distance(np.array([one]), np.array([np.nextafter(one, np.float32(2))]), "float32")[0] == 1
    assert ulp_distance(np.array([0.0]), np.array([-0.0]), "float64")[0] == 0
    tiny = np.float32(2.0 ** -149)
    assert ulp_distance(np.array([tiny]), np.array([-tiny]), "float32")[0] == 2


@pytest.mark.parametrize("name, expected", [("math.exp", "exp"), ("expf", "exp"), ("__nv_erff", "erf"),
                                            ("erf", "erf"), ("erfcf", "erfc"), ("__expf", "__expf"),
                                            ("tl.exp", "exp"), ("tanhf", "tanh")])
def test_normalise(name, expected):
    assert normalise(name) == expected


def test_old_api_is_unchanged():
    tol = for_dtype("float16")
    assert isinstance(tol, Tolerance) and (tol.rtol, tol.atol) == (1e-3, 1e-5)
    assert tol.accepts(np.array([1.0]), np.array([1.0005])).all()
    assert for_dtype("int32").rule == "exact match for int32"


def test_to_json_has_no_arrays(matmul):
    import json

    sequential, blocked, _, oracle, magnitude = matmul
    policy = Policy("float32", reduction_length=K)
    data = judge(sequential, blocked, policy, oracle=oracle, magnitude=magnitude).to_json()
    json.dumps(data)
    assert data["passed"] and data["mismatches"] == 0 and len(data["rules"]) == 3
