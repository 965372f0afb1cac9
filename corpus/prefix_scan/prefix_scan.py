"""Triton port of prefix_scan.cu: inclusive cumulative sum along each row of x (rows, cols).
Correct: one program per row, the whole row in one BLOCK = next_power_of_2(cols) tile (0.0 past
cols), tl.cumsum along it, the first cols results stored."""

import torch
import triton
import triton.language as tl


@triton.jit
def prefix_scan_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    x = tl.load(x_ptr + row * cols + c, mask=mask, other=0.0)
    tl.store(out_ptr + row * cols + c, tl.cumsum(x, axis=0), mask=mask)


def prefix_scan(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(cols)
    prefix_scan_kernel[(rows,)](x, out, rows, cols, BLOCK=BLOCK)
    return out
