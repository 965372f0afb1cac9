"""Triton port of rmsnorm.cu with a seeded bug: eps left out, the scale is 1 / sqrt(mean(x^2)). The
relative change is about eps / (2 mean(x^2)): below the fp32 tolerance for long rows of standard-normal
values, large for short rows with a small mean square (cols = 1 and |x| ~ 1e-2 gives ~0.5%), and a
row of zeros becomes 0 / 0 = NaN where the source gives 0."""

import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    x = tl.load(x_ptr + row * cols + c, mask=mask, other=0.0)
    w = tl.load(w_ptr + c, mask=mask, other=0.0)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / cols)
    tl.store(out_ptr + row * cols + c, x * inv * w, mask=mask)


def rmsnorm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(cols)
    rmsnorm_kernel[(rows,)](x, w, out, rows, cols, BLOCK=BLOCK)
    return out
