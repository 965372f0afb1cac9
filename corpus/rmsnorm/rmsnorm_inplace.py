"""Triton port of rmsnorm.cu with a seeded bug: the normalised row is stored into x and x returned.
The returned values are right (each program reads its whole row before it stores), but the kernel
writes an input and the caller's x changes."""

import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, rows, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    x = tl.load(x_ptr + row * cols + c, mask=mask, other=0.0)
    w = tl.load(w_ptr + c, mask=mask, other=0.0)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / cols + eps)
    tl.store(x_ptr + row * cols + c, x * inv * w, mask=mask)


def rmsnorm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    BLOCK = triton.next_power_of_2(cols)
    rmsnorm_kernel[(rows,)](x, w, rows, cols, 1e-6, BLOCK=BLOCK)
    return x
