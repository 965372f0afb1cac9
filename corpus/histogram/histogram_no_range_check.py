"""Port of histogram.cu with a seeded bug: values are checked against 0 but not against bins, so an
element with a value >= bins adds 1 past the end of counts (an out-of-bounds atomic; the counters
inside counts are still right)."""

import torch
import triton
import triton.language as tl


@triton.jit
def histogram_kernel(x_ptr, counts_ptr, n, bins, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=0)
    ok = (offs < n) & (v >= 0)
    tl.atomic_add(counts_ptr + v, tl.full((BLOCK,), 1, tl.int32), mask=ok)


def histogram(x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    histogram_kernel[(triton.cdiv(n, 256),)](x, counts, n, counts.numel(), BLOCK=256)
    return counts
