"""Port of prefix_scan.cu with a seeded bug: the running sums are accumulated in fp16. The row is cast
to fp16 before tl.cumsum and the result cast back to fp32, so every partial sum is rounded to 11
significant bits (the source sums in fp32)."""

import torch
import triton
import triton.language as tl


@triton.jit
def prefix_scan_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    x = tl.load(x_ptr + row * cols + c, mask=mask, other=0.0)
    run = tl.cumsum(x.to(tl.float16), axis=0)
    tl.store(out_ptr + row * cols + c, run.to(tl.float32), mask=mask)


def prefix_scan(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(cols)
    prefix_scan_kernel[(rows,)](x, out, rows, cols, BLOCK=BLOCK)
    return out
