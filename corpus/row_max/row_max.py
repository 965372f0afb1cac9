"""Triton port of row_max.cu: the maximum of each row of x (rows, cols). Correct: one program per
row, the whole row in one BLOCK = next_power_of_2(cols) tile (masked lanes load -inf), tl.max."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + c, mask=c < cols, other=float("-inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))


def row_max(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=x.dtype, device=x.device)
    row_max_kernel[(rows,)](x, out, rows, cols, BLOCK=triton.next_power_of_2(cols))
    return out
