"""Port of histogram.cu with a seeded bug: the grid is n // BLOCK instead of cdiv(n, BLOCK), so the last
n % 256 elements are never counted (and nothing at all when n < 256)."""

import torch
import triton
import triton.language as tl


@triton.jit
def histogram_kernel(x_ptr, counts_ptr, n, bins, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=0)
    ok = (offs < n) & (v >= 0) & (v < bins)
    tl.atomic_add(counts_ptr + v, tl.full((BLOCK,), 1, tl.int32), mask=ok)


def histogram(x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    histogram_kernel[(n // 256,)](x, counts, n, counts.numel(), BLOCK=256)
    return counts
