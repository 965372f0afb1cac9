"""Triton port of row_cumsum.cu: the inclusive cumulative sum of each row of x (rows, cols).
one program per row, the whole row in one BLOCK = next_power_of_2(cols) tile (masked lanes load 0.0,
the neutral element), tl.cumsum. Seeded bug: `tl.cumsum(x) - x`, the exclusive scan: out[r][c] misses x[r][c]."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_cumsum_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + c, mask=c < cols, other=0.0)
    tl.store(out_ptr + row * cols + c, tl.cumsum(x, axis=0) - x, mask=c < cols)


def row_cumsum(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    row_cumsum_kernel[(rows,)](x, out, rows, cols, BLOCK=triton.next_power_of_2(cols))
    return out
