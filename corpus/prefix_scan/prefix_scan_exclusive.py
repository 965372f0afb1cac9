"""Port of prefix_scan.cu with a seeded bug: an exclusive scan instead of the inclusive one. The row is
loaded shifted by one column (x[r][c - 1], 0.0 for c == 0) before tl.cumsum, so out[r][c] is
x[r][0] + ... + x[r][c - 1]: the element's own input is left out."""

import torch
import triton
import triton.language as tl


@triton.jit
def prefix_scan_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    prev = tl.load(x_ptr + row * cols + c - 1, mask=mask & (c >= 1), other=0.0)
    tl.store(out_ptr + row * cols + c, tl.cumsum(prev, axis=0), mask=mask)


def prefix_scan(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(cols)
    prefix_scan_kernel[(rows,)](x, out, rows, cols, BLOCK=BLOCK)
    return out
