"""Port of prefix_scan.cu with a seeded bug: the row tile is loaded without a mask. When cols is not a
power of two the lanes c >= cols read past the end of the row (the next row's first elements, or past
the end of x for the last row). An inclusive scan only carries values forward, so those lanes change
no stored result (the store is masked): the stray reads are the whole bug."""

import torch
import triton
import triton.language as tl


@triton.jit
def prefix_scan_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + c)
    tl.store(out_ptr + row * cols + c, tl.cumsum(x, axis=0), mask=c < cols)


def prefix_scan(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(cols)
    prefix_scan_kernel[(rows,)](x, out, rows, cols, BLOCK=BLOCK)
    return out
