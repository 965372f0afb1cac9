"""Triton port of layernorm.cu with a seeded bug: the variance divides by cols - 1 (unbiased, as
torch.var does by default) instead of cols: every value is scaled by sqrt((cols - 1) / cols)
(a relative error of about 1 / (2 cols)); for cols == 1 the variance is 0 / 0 = NaN."""


import torch
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, out_ptr, rows, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    x = tl.load(x_ptr + row * cols + c, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / (cols - 1)
    tl.store(out_ptr + row * cols + c, d / tl.sqrt(var + eps), mask=mask)


def layernorm(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(cols)
    layernorm_kernel[(rows,)](x, out, rows, cols, 1e-5, BLOCK=BLOCK)
    return out
