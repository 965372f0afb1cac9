"""Triton port of vadd.cu: out = x + y. Correct, but shaped differently: each program owns a tile of
BLOCK elements and handles it as two half-tiles, one after the other. The tiles are still disjoint and
cover [0, n), so the element-to-program map is a bijection."""

import torch
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    HALF: tl.constexpr = BLOCK // 2
    base = tl.program_id(0) * BLOCK
    lo = base + tl.arange(0, HALF)
    hi = lo + HALF
    mask_lo = lo < n
    mask_hi = hi < n
    a = tl.load(x_ptr + lo, mask=mask_lo, other=0.0) + tl.load(y_ptr + lo, mask=mask_lo, other=0.0)
    tl.store(out_ptr + lo, a, mask=mask_lo)
    b = tl.load(x_ptr + hi, mask=mask_hi, other=0.0) + tl.load(y_ptr + hi, mask=mask_hi, other=0.0)
    tl.store(out_ptr + hi, b, mask=mask_hi)


def vadd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 512
    grid = (triton.cdiv(n, BLOCK),)
    vadd_kernel[grid](x, y, out, n, BLOCK=BLOCK)
    return out
