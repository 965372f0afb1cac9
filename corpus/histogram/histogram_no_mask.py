"""Port of histogram.cu with a seeded bug: the tile's load and the histogram's mask forget the tail
(`offs < n`): when n is not a multiple of 256 the last program reads x past its end and counts
whatever lies there when it falls in [0, bins)."""

import torch
import triton
import triton.language as tl


@triton.jit
def histogram_kernel(x_ptr, counts_ptr, n, bins, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs)
    ok = (v >= 0) & (v < bins)
    tl.atomic_add(counts_ptr + v, tl.full((BLOCK,), 1, tl.int32), mask=ok)


def histogram(x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    histogram_kernel[(triton.cdiv(n, 256),)](x, counts, n, counts.numel(), BLOCK=256)
    return counts
