"""The task probe's rewrites (lowercheck/runners/task_probe.py), on tensors of the test's own: each
wrong or alternative computation is the one it names."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lowercheck.runners import task_probe


def test_tf32_keeps_ten_mantissa_bits_rounded_to_nearest():
    x = torch.tensor([1.0 + 2**-10, 1.0 + 2**-11 + 2**-13, 1.0 + 2**-12, -3.0, float("inf")])
    rounded = task_probe.to_tf32(x)
    assert rounded.tolist()[:4] == [1.0 + 2**-10, 1.0 + 2**-10, 1.0, -3.0] and math.isinf(rounded[4])


def test_fast_exp_is_within_cudas_bound_for_expf_fast_and_not_exact():
    x = torch.linspace(-80, 80, 20001)
    fast, exact = task_probe.fast_exp(x).double(), torch.exp(x.double())
    ulp = torch.tensor(np.spacing(np.abs(exact.float().numpy())), dtype=torch.float64)
    error = ((fast - exact).abs() / ulp)
    bound = 2 + torch.floor(1.173 * x.abs().double()) + 1  # CUDA guide: 2 + floor(|1.173 x|), + fp32 rounding
    assert bool((error <= bound).all())
    assert float(error.max()) > 4  # and it is an approximation: tens of ulps at |x| ~ 80


def test_chunked_accumulation_rounds_the_running_sum():
    x = torch.full((1, 4096), 1.0 + 2**-9)
    exact = float(x.double().sum())
    low = float(task_probe._chunked_sum(x, 1, torch.float16))
    assert low != exact and abs(low - exact) / exact > 1e-4  # fp16 spacing at 4096 is 4
    a, b = torch.randn(5, 300), torch.randn(300, 7)
    chunked = task_probe._chunked_matmul(a, b, torch.bfloat16).float()
    assert torch.allclose(chunked, a @ b, atol=0.5) and not torch.equal(chunked, a @ b)


def test_float16_products_accumulate_in_float32_and_round_once():
    """The lowp-float16 variant's matrix products: float32 sums rounded to float16 once, as a GPU's
    float16 GEMM; torch's own (slow) CPU kernel differs only by its order of the float32 sums (one
    float16 ulp, and k float32 roundings of the terms' magnitudes)."""
    draws = torch.Generator().manual_seed(0)
    a, b = (torch.randn(257, 257, generator=draws).half() for _ in range(2))
    with task_probe._dispatch_mode(task_probe._float16_products):
        product, added = a @ b, torch.addmm(a[0], a, b)
    assert product.dtype == added.dtype == torch.float16
    assert torch.equal(product, (a.float() @ b.float()).half())
    assert torch.equal(added, torch.addmm(a[0].float(), a.float(), b.float()).half())
    own = (a @ b).numpy().astype(np.float32)
    magnitudes = (a.float().abs() @ b.float().abs()).numpy()
    bound = np.spacing(np.abs(own).astype(np.float16)) + 257 * 2.0**-24 * magnitudes
    assert np.all(np.abs(product.numpy() - own) <= bound)


@pytest.mark.parametrize("seeding, differ", [("per-trial", True), ("fixed", False), ("none", True)])
def test_trial_seeds(seeding, differ):
    seeds = task_probe.trial_seeds(seeding, 42, 3)
    assert (len(set(seeds)) > 1 or seeds[0] is None) == differ
    assert task_probe.trial_seeds(seeding, 42, 3) == seeds  # reproducible
