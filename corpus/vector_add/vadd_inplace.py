"""Triton port of vadd.cu. Seeded bug: the sum is written back into x (x += y) and x is returned,
so the caller's input changes. The returned values are x + y."""

import torch
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(x_ptr + offs, x + y, mask=mask)


def vadd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    vadd_kernel[grid](x, y, n, BLOCK=BLOCK)
    return x
