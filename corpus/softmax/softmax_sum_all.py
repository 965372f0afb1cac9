"""Triton port of softmax.cu with a seeded bug: the row sum is taken over exp(x - max) of the
previous row too (the tile starts one row early, masked only against the start of x): out[r] is
normalised by the sum of two rows."""


import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    x = tl.load(x_ptr + row * cols + c, mask=mask, other=float("-inf"))
    p = row * cols - cols + c
    prev = tl.load(x_ptr + p, mask=mask & (p >= 0), other=float("-inf"))
    row_max = tl.max(x, axis=0)
    e = tl.exp(x - row_max)
    total = tl.sum(e, axis=0) + tl.sum(tl.exp(prev - row_max), axis=0)
    tl.store(out_ptr + row * cols + c, e / total, mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(cols)
    softmax_kernel[(rows,)](x, out, rows, cols, BLOCK=BLOCK)
    return out
