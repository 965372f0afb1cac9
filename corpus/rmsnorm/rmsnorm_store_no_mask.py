"""Triton port of rmsnorm.cu with a seeded bug: the loads are masked but the store is not, so each
program writes all BLOCK = next_power_of_2(cols) lanes of its tile: when cols is not a power of two,
lanes c >= cols land in the next row of out (logically out of bounds) and, for the last row, past the
end of out."""

import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, rows, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    x = tl.load(x_ptr + row * cols + c, mask=mask, other=0.0)
    w = tl.load(w_ptr + c, mask=mask, other=0.0)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / cols + eps)
    tl.store(out_ptr + row * cols + c, x * inv * w)


def rmsnorm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(cols)
    rmsnorm_kernel[(rows,)](x, w, out, rows, cols, 1e-6, BLOCK=BLOCK)
    return out
