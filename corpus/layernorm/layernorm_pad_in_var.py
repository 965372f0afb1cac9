"""Triton port of layernorm.cu with a seeded bug: the deviations are not masked, so each padding
lane (loaded as 0.0) adds mean^2 to the variance when cols is not a power of two; the stored
values of those rows are too small."""


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
    d = x - mean
    var = tl.sum(d * d, axis=0) / cols
    tl.store(out_ptr + row * cols + c, d / tl.sqrt(var + eps), mask=mask)


def layernorm(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(cols)
    layernorm_kernel[(rows,)](x, out, rows, cols, 1e-5, BLOCK=BLOCK)
    return out
