"""Port of prefix_scan.cu with a seeded bug: the scan is written back into x (an in-place cumsum) and x
is returned. The values returned are right, but the caller's input is overwritten."""

import torch
import triton
import triton.language as tl


@triton.jit
def prefix_scan_kernel(x_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    x = tl.load(x_ptr + row * cols + c, mask=mask, other=0.0)
    tl.store(x_ptr + row * cols + c, tl.cumsum(x, axis=0), mask=mask)


def prefix_scan(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    BLOCK = triton.next_power_of_2(cols)
    prefix_scan_kernel[(rows,)](x, rows, cols, BLOCK=BLOCK)
    return x
