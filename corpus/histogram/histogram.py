"""Triton port of histogram.cu: counts[b] += #{i < n : x[i] == b} for 0 <= b < bins (values outside
[0, bins) not counted), counts accumulated into (destination passing, as the CUDA launcher).
Correct: each program histograms a 1024-element tile with tl.histogram (lanes past n or out of range
masked out) over BINS = next_power_of_2(bins) bins and adds the first bins counts into counts with
one tl.atomic_add per bin."""

import torch
import triton
import triton.language as tl


@triton.jit
def histogram_kernel(x_ptr, counts_ptr, n, bins, BLOCK: tl.constexpr, BINS: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    inside = offs < n
    v = tl.load(x_ptr + offs, mask=inside, other=-1)
    valid = inside & (v >= 0) & (v < bins)
    h = tl.histogram(v, BINS, mask=valid)
    b = tl.arange(0, BINS)
    tl.atomic_add(counts_ptr + b, h, mask=b < bins)


def histogram(x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    bins = counts.numel()
    BLOCK = 1024
    BINS = triton.next_power_of_2(bins)
    histogram_kernel[(triton.cdiv(n, BLOCK),)](x, counts, n, bins, BLOCK=BLOCK, BINS=BINS)
    return counts
