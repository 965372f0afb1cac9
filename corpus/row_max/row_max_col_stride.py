"""Triton port of row_max.cu (seeded bug: rows and columns swapped in the index). One program per
row, whole-row tile, but element c of row r is loaded from x[c * rows + r] (a column-major reading)
instead of x[r * cols + c]: every load stays inside x, and out[r] is the maximum of the wrong
elements (for rows > 1)."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + c * rows + row, mask=c < cols, other=float("-inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))


def row_max(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=x.dtype, device=x.device)
    row_max_kernel[(rows,)](x, out, rows, cols, BLOCK=triton.next_power_of_2(cols))
    return out
