"""Triton port of softmax.cu (seeded bug: wrong row stride). One program per row, the whole row in
one BLOCK = next_power_of_2(cols) tile, but the loads step from row to row by BLOCK, the padded
width, instead of cols: for a cols that is not a power of two, row r reads elements of row r + 1
(and the last rows read past x)."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    x = tl.load(x_ptr + row * BLOCK + c, mask=mask, other=float("-inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * cols + c, e / tl.sum(e, axis=0), mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(cols)
    softmax_kernel[(rows,)](x, out, rows, cols, BLOCK=BLOCK)
    return out
