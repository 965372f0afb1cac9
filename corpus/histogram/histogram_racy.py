"""Port of histogram.cu with a seeded bug: the per-program histogram is added into counts with a plain
load and store (a non-atomic read-modify-write) instead of tl.atomic_add. Every program loads and
stores every counter counts[0 .. bins - 1], so as soon as there are two programs (n > 1024) their
updates race: on a GPU, a program that loads a counter before another program's store lands loses
that program's counts. (The interpreter runs programs one after the other, so a run shows nothing.)"""

import torch
import triton
import triton.language as tl


@triton.jit
def histogram_kernel(x_ptr, counts_ptr, n, bins, BLOCK: tl.constexpr, BINS: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    inside = offs < n
    v = tl.load(x_ptr + offs, mask=inside, other=-1)
    h = tl.histogram(v, BINS, mask=inside & (v >= 0) & (v < bins))
    b = tl.arange(0, BINS)
    old = tl.load(counts_ptr + b, mask=b < bins, other=0)
    tl.store(counts_ptr + b, old + h, mask=b < bins)


def histogram(x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    bins = counts.numel()
    BLOCK = 1024
    BINS = triton.next_power_of_2(bins)
    histogram_kernel[(triton.cdiv(n, BLOCK),)](x, counts, n, bins, BLOCK=BLOCK, BINS=BINS)
    return counts
