"""Triton port of rotary.cu with a seeded bug: no mask on any load or store, so when half is not a
power of two the BLOCK - half extra lanes read the tables past row s (and past their end on the last
row), and store into the second half of row s (lanes i >= half of the first store, also written by
the second store) and past the end of row s (into the next row, or past the end of out)."""

import torch
import triton
import triton.language as tl


@triton.jit
def rotary_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, seq, half, BLOCK: tl.constexpr):
    s = tl.program_id(0)
    i = tl.arange(0, BLOCK)
    c = tl.load(cos_ptr + s * half + i)
    sn = tl.load(sin_ptr + s * half + i)
    a = tl.load(x_ptr + s * 2 * half + i)
    b = tl.load(x_ptr + s * 2 * half + half + i)
    tl.store(out_ptr + s * 2 * half + i, a * c - b * sn)
    tl.store(out_ptr + s * 2 * half + half + i, b * c + a * sn)


def rotary(x: torch.Tensor, cos_t: torch.Tensor, sin_t: torch.Tensor) -> torch.Tensor:
    seq, half = cos_t.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(half)
    rotary_kernel[(seq,)](x, cos_t, sin_t, out, seq, half, BLOCK=BLOCK)
    return out
