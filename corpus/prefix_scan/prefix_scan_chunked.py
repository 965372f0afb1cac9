"""Correct port of prefix_scan.cu that looks different: a fixed 64-column chunk walked along the
row like the CUDA block's loop, each chunk scanned with tl.cumsum, plus a running carry (the sum of
the earlier chunks, tl.sum of each chunk) kept across the loop."""

import torch
import triton
import triton.language as tl


@triton.jit
def prefix_scan_kernel(x_ptr, out_ptr, rows, cols, CHUNK: tl.constexpr):
    row = tl.program_id(0)
    base = row * cols
    carry = tl.zeros((), dtype=tl.float32)
    for c0 in range(0, cols, CHUNK):
        c = c0 + tl.arange(0, CHUNK)
        inside = c < cols
        v = tl.load(x_ptr + base + c, mask=inside, other=0.0)
        run = tl.cumsum(v, axis=0)
        tl.store(out_ptr + base + c, run + carry, mask=inside)
        carry += tl.sum(v, axis=0)


def prefix_scan(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    prefix_scan_kernel[(rows,)](x, out, rows, cols, CHUNK=64)
    return out
