"""Triton port of softmax.cu (seeded bug: the wrong axis). One program per column instead of per
row: it loads column c (rows elements, stride cols), subtracts the column's max and divides by the
column's sum, so out[r, c] is computed from x[*, c] where the source's warp butterflies combine
x[r, *]."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    col = tl.program_id(0)
    r = tl.arange(0, BLOCK)
    mask = r < rows
    x = tl.load(x_ptr + r * cols + col, mask=mask, other=float("-inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + r * cols + col, e / tl.sum(e, axis=0), mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(rows)
    softmax_kernel[(cols,)](x, out, rows, cols, BLOCK=BLOCK)
    return out
