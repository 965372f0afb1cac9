"""Triton port of rmsnorm.cu with a seeded bug: the weight is read back to front, w[cols - 1 - c] for
column c (masked in bounds), so every column but the middle one is scaled by another column's weight."""

import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, rows, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    x = tl.load(x_ptr + row * cols + c, mask=mask, other=0.0)
    w = tl.load(w_ptr + (cols - 1 - c), mask=mask, other=0.0)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / cols + eps)
    tl.store(out_ptr + row * cols + c, x * inv * w, mask=mask)


def rmsnorm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(cols)
    rmsnorm_kernel[(rows,)](x, w, out, rows, cols, 1e-6, BLOCK=BLOCK)
    return out
