"""Triton port of layernorm.cu with a seeded bug: the result is written into x, and x returned; the
values are right, but the caller's x is overwritten."""


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
    var = tl.sum(d * d, axis=0) / cols
    tl.store(out_ptr + row * cols + c, d / tl.sqrt(var + eps), mask=mask)


def layernorm(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    BLOCK = triton.next_power_of_2(cols)
    layernorm_kernel[(rows,)](x, x, rows, cols, 1e-5, BLOCK=BLOCK)
    return x
